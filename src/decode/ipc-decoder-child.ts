// Entry of a forked decoder process for the ipc channel: receives JPEGs over process IPC, sends RGBA frames back.

import { createDecoder, type JpegDecoder } from './decode-jpeg.js';
import { TrafficCounterError } from '../errors.js';
import type { IpcFromChild, IpcToChild } from '../channel/messages.js';
import { toUint8Array } from './ipc-bytes.js';
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
  const what = `camera ${req.cameraId} frame ${req.seq}`;
  const t0 = performance.now();
  try {
    const img = await decoder!(toUint8Array(msg.jpeg), req.limits, what);
    const header = {
      type: 'frame' as const,
      cameraId: req.cameraId,
      seq: req.seq,
      capturedAt: req.capturedAt,
      width: img.width,
      height: img.height,
      decodeMs: performance.now() - t0,
    };
    // Buffer (not a bare Uint8Array) so that 'json' serialization keeps the bytes (as a number array).
    const pixels = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
    await send({ type: 'frame', job, header, pixels });
  } catch (err) {
    const code = err instanceof TrafficCounterError ? err.code : 'TC_ERR_DECODE_CORRUPT';
    const message = err instanceof Error ? err.message : String(err);
    await send({ type: 'decode-error', job, failure: { type: 'decode-error', cameraId: req.cameraId, seq: req.seq, capturedAt: req.capturedAt, code, message } });
  }
}

let chain = Promise.resolve();
process.on('message', (msg: IpcToChild) => {
  chain = chain.then(() => handle(msg)).catch((err) => {
    process.stderr.write(`decoder child: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
