// A JPEG decoder for the zeromq channel, local (started by the channel) or remote (`traffic-counter decoder
// --connect tcp://HOST:PORT`): a DEALER that announces itself idle, takes one job at a time, sends frames back.

import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Dealer } from 'zeromq';
import { createDecoder, type DecoderName } from './decode-jpeg.js';
import { TrafficCounterError } from '../errors.js';
import type { FrameHeader, ZmqDecodeJob, ZmqFromDecoder } from '../channel/messages.js';

export interface ZeromqDecoderOptions {
  /** The analyzer's endpoint, e.g. tcp://10.0.0.5:5555 or ipc:///tmp/x.sock. */
  readonly connect: string;
  readonly decoder: DecoderName;
  /** Stops the decoder; the promise returned by runZeromqDecoder then resolves. */
  readonly signal?: AbortSignal;
  /** Routing id (unique per decoder, 1–255 bytes); default host/pid/random. */
  readonly routingId?: string;
  /** While idle, the decoder re-announces itself this often, so an analyzer that restarted finds it again. */
  readonly announceIntervalMs?: number;
}

export const ZMQ_SOCKET_DEFAULTS = {
  sendHighWaterMark: 2, // messages per peer; the credit protocol keeps at most one job/frame in flight anyway
  receiveHighWaterMark: 2,
  heartbeatInterval: 1_000, // ms; ZMTP pings so a dead tcp peer is noticed
  heartbeatTimeout: 5_000, // ms without traffic before the connection is dropped
  maxMessageSize: 256 * 1024 * 1024, // bytes per part; refuses absurd messages from a hostile peer
  // Kernel socket buffers, bytes: a 3.6 MB frame then needs a few wake-ups instead of ~18 with the usual
  // 208 KB default (Linux caps this at net.core.wmem_max / rmem_max).
  sendBufferSize: 4 * 1024 * 1024,
  receiveBufferSize: 4 * 1024 * 1024,
};

/** Runs until the signal aborts (or the decoder cannot be loaded). */
export async function runZeromqDecoder(opts: ZeromqDecoderOptions): Promise<void> {
  const decode = await createDecoder(opts.decoder);
  if (opts.signal?.aborted) return;
  const sock = new Dealer({
    ...ZMQ_SOCKET_DEFAULTS,
    routingId: opts.routingId ?? `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`,
    linger: 1_000, // ms to deliver a last frame or 'bye' after close
  });
  let sending = false;
  const send = async (msg: ZmqFromDecoder, pixels?: Uint8Array): Promise<void> => {
    sending = true;
    try {
      await sock.send(pixels ? [JSON.stringify(msg), pixels] : [JSON.stringify(msg)]);
    } finally {
      sending = false;
    }
  };
  const ready: ZmqFromDecoder = { type: 'ready', decoder: opts.decoder, pid: process.pid, host: hostname() };
  const onAbort = (): void => {
    // Tell the analyzer not to wait for us (if that cannot wait), then stop; close() ends the loop below.
    const bye = !sending && sock.writable ? send({ type: 'bye' }) : Promise.resolve();
    bye.catch(() => {}).finally(() => sock.close());
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let busy = false;
  const announce = setInterval(() => {
    // Only a send that cannot wait: a receive is pending now, and a zeromq.js socket that waits to send
    // while it also waits to receive can miss its wake-up (seen in the benchmark's stress runs).
    if (!busy && !sending && !sock.closed && sock.writable) send(ready).catch(() => {});
  }, opts.announceIntervalMs ?? 1_000);
  try {
    sock.connect(opts.connect);
    await send(ready);
    for await (const parts of sock) {
      busy = true;
      await handle(parts);
      busy = false;
    }
  } catch (err) {
    if (!sock.closed) throw err;
  } finally {
    clearInterval(announce);
    opts.signal?.removeEventListener('abort', onAbort);
    if (!sock.closed) sock.close();
  }

  async function handle(parts: Buffer[]): Promise<void> {
    let job: ZmqDecodeJob;
    try {
      job = JSON.parse(parts[0]!.toString('utf8')) as ZmqDecodeJob;
      if (job.type !== 'decode' || typeof job.job !== 'number' || parts.length !== 2) throw new Error('not a decode job');
    } catch (err) {
      process.emitWarning(`zeromq decoder: ignoring a malformed message from the analyzer (${(err as Error).message})`);
      await send(ready);
      return;
    }
    const { req } = job;
    const what = `camera ${req.cameraId} frame ${req.seq}`;
    const t0 = performance.now();
    try {
      const img = await decode(parts[1]!, req.limits, what);
      const header: FrameHeader = {
        type: 'frame',
        cameraId: req.cameraId,
        seq: req.seq,
        capturedAt: req.capturedAt,
        width: img.width,
        height: img.height,
        decodeMs: performance.now() - t0,
      };
      // Zero-copy send: zeromq keeps a reference to img.data until it is on the wire. Both decoders
      // return a fresh buffer per frame and nothing here writes it again.
      const pixels = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
      await send({ type: 'frame', job: job.job, header }, pixels);
    } catch (err) {
      if (sock.closed) return;
      const code = err instanceof TrafficCounterError ? err.code : 'TC_ERR_DECODE_CORRUPT';
      const message = err instanceof Error ? err.message : String(err);
      await send({ type: 'decode-error', job: job.job, failure: { type: 'decode-error', cameraId: req.cameraId, seq: req.seq, capturedAt: req.capturedAt, code, message } });
    }
  }
}
