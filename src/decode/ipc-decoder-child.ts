// Entry of a forked decoder process for the ipc channel: receives JPEGs over process IPC, sends RGBA frames back.

import { createDecoder, type JpegDecoder } from './decode-jpeg.js';
import { decodeToFrame } from './decode-to-frame.js';
import type { IpcFromChild, IpcToChild } from '../channel/messages.js';
import { asBuffer, toUint8Array } from './ipc-bytes.js';
import { lowerDecoderPriority } from './decoder-priority.js';

lowerDecoderPriority(Number(process.argv[2] ?? 0)); // argv: [niceness increment]

let decoder: JpegDecoder | undefined;

function send(msg: IpcFromChild): Promise<void> {
  // Paced by the send callback: the parent gives us one job at a time, and we do not take the next
  // before this frame has been written to the pipe.
  return new Promise((resolve, reject) => {
    process.send!(msg, undefined, {}, (err) => (err ? reject(err) : resolve()));
  });
}

async function handle(msg: IpcToChild): Promise<void> {
  if (msg.type === 'init') {
    decoder = await createDecoder(msg.decoder);
    await send({ type: 'ready' });
    return;
  }
  const { req, job } = msg;
  const out = await decodeToFrame(req, toUint8Array(msg.jpeg), decoder!);
  if (out.type === 'frame') {
    // Buffer (not a bare Uint8Array) so that 'json' serialization keeps the bytes (as a number array).
    const pixels = asBuffer(out.pixels);
    await send({ type: 'frame', job, header: out.header, pixels });
  } else {
    await send({ type: 'decode-error', job, failure: out.failure });
  }
}

let chain = Promise.resolve();
process.on('message', (msg: IpcToChild) => {
  chain = chain.then(() => handle(msg)).catch((err) => {
    // The daemon gone (its pipe closed while a frame was on the way back): nothing to say, and nobody to say it to.
    // The write can fail (EPIPE) before this process has read the pipe's end and marked itself disconnected, as when
    // a second Ctrl-C stops the daemon at once with this frame still being decoded.
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (!process.connected || code === 'EPIPE' || code === 'ECONNRESET' || code === 'ERR_IPC_CHANNEL_CLOSED') process.exit(0);
    process.stderr.write(`decoder child: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
// Ctrl-C in a terminal signals the whole process group: the daemon stops its decoders itself (they go with the
// channel), so one killed by the signal would only be restarted, and warned about, during the shutdown.
process.on('SIGINT', () => {});
