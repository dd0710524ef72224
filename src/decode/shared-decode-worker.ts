// Entry of a piscina worker thread for the shared-memory channel: decodes a JPEG into a slot of the shared
// ring and signals the analyzer with Atomics; the task's own return value carries nothing.

import { workerData } from 'node:worker_threads';
import { createDecoder, type JpegDecoder } from './decode-jpeg.js';
import { inspectJpeg } from './jpeg-header.js';
import { DecodeError, TrafficCounterError } from '../errors.js';
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
  const what = `camera ${req.cameraId} frame ${req.seq}`;
  const t0 = performance.now();
  try {
    const { width, height } = inspectJpeg(task.jpeg, what);
    if (width * height * 4 > ring.slotBytes) {
      throw new DecodeError(
        'TC_ERR_DECODE_SIZE_MISMATCH',
        `${what}: ${width}x${height} frame does not fit the shared-memory slot (${ring.slotBytes} bytes); ${init.slotHint}`,
      );
    }
    const img = await decode(task.jpeg, req.limits, what);
    // jpeg-js and sharp both return their own buffer; one copy into the slot, on this thread.
    ring.view(slot, img.data.byteLength).set(img.data);
    ring.publishFrame(slot, img.width, img.height, performance.now() - t0);
  } catch (err) {
    const code = err instanceof TrafficCounterError ? err.code : 'TC_ERR_DECODE_CORRUPT';
    const message = err instanceof Error ? err.message : String(err);
    ring.publishError(slot, code, message, performance.now() - t0);
  }
}
