// Entry of a piscina worker thread for the shared-memory channel: decodes a JPEG into a slot of the shared
// ring and signals the analyzer with Atomics; the task's own return value carries nothing.

import { workerData } from 'node:worker_threads';
import { createDecoder, type JpegDecoder } from './decode-jpeg.js';
import { decodeToFrame } from './decode-to-frame.js';
import { SharedFrameRing } from '../channel/shared-frame-ring.js';
import type { SharedDecodeTask, SharedRingInit } from '../channel/messages.js';

const init = workerData as SharedRingInit;
const ring = SharedFrameRing.attach(init.control, init.pixels, init.slotCount, init.slotBytes);
let decoder: Promise<JpegDecoder> | undefined;

export default async function decodeIntoSlot(task: SharedDecodeTask): Promise<void> {
  decoder ??= createDecoder(init.decoder);
  const decode = await decoder;
  if (task.type === 'init') return;
  const { slot, req } = task;
  const t0 = performance.now();
  const out = await decodeToFrame(req, task.jpeg, decode);
  if (out.type === 'decode-error') {
    ring.publishError(slot, out.failure.code, out.failure.message, performance.now() - t0);
    return;
  }
  const h = out.header;
  if (out.pixels.byteLength > ring.slotBytes) {
    // Checked on the decoded frame, so that a frame decoded at 1/scale is held to its real size.
    const at = h.scale > 1 ? ` (decoded at 1/${h.scale})` : '';
    const message = `camera ${req.cameraId} frame ${req.seq}: ${h.width}x${h.height} frame${at} does not fit the shared-memory slot (${ring.slotBytes} bytes); ${init.slotHint}`;
    ring.publishError(slot, 'TC_ERR_DECODE_SIZE_MISMATCH', message, performance.now() - t0);
    return;
  }
  // jpeg-js and sharp both return their own buffer; one copy into the slot, on this thread.
  ring.view(slot, out.pixels.byteLength).set(out.pixels);
  ring.publishFrame(slot, h.width, h.height, h.scale, performance.now() - t0);
}
