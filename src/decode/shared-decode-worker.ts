// Entry of a piscina worker thread for the shared-memory channel: decodes a JPEG into a slot of the shared
// ring and signals the analyzer with Atomics; the task's own return value carries nothing.

import { threadId, workerData } from 'node:worker_threads';
import { createDecoder, overMegapixels, type JpegDecoder } from './decode-jpeg.js';
import { decodeToFrame, frameName } from './decode-to-frame.js';
import { scaledSize } from './decode-scale.js';
import { inspectJpeg } from './jpeg-header.js';
import { SharedFrameRing } from '../channel/shared-frame-ring.js';
import type { SharedDecodeTask, SharedRingInit } from '../channel/messages.js';

const init = workerData as SharedRingInit;
const ring = SharedFrameRing.attach(init.control, init.pixels, init.slotCount, init.slotBytes);
let decoder: Promise<JpegDecoder> | undefined;

export default async function decodeIntoSlot(task: SharedDecodeTask): Promise<void> {
  // First thing: the analyzer terminates the thread that holds a slot past decodeTimeoutMs.
  if (task.type === 'decode') ring.claim(task.slot, threadId);
  decoder ??= createDecoder(init.decoder);
  const decode = await decoder;
  if (task.type === 'init') return;
  const { slot, req } = task;
  const t0 = performance.now();
  const tooBig = slotRefusal(task);
  if (tooBig) {
    ring.publishError(slot, 'TC_ERR_DECODE_SIZE_MISMATCH', tooBig, performance.now() - t0);
    return;
  }
  const slotView = ring.view(slot);
  const out = await decodeToFrame(req, task.jpeg, decode, slotView);
  if (out.type === 'decode-error') {
    ring.publishError(slot, out.failure.code, out.failure.message, performance.now() - t0);
    return;
  }
  const h = out.header;
  // jpeg-turbo decodes a full-size frame straight into the slot; the others return their own buffer, copied
  // into the slot here, on this thread.
  const inSlot = out.pixels.buffer === slotView.buffer && out.pixels.byteOffset === slotView.byteOffset;
  if (!inSlot) slotView.set(out.pixels);
  ring.publishFrame(slot, h.width, h.height, h.scale, performance.now() - t0);
}

/**
 * Why the frame cannot go into a slot, from the JPEG header and before any decoding: the size it will have at
 * the request's decode scale (every decoder gives scaledSize()) is more than a slot holds. Undefined when it
 * fits, or when the header cannot be read (decoding then reports that).
 */
function slotRefusal(task: Extract<SharedDecodeTask, { type: 'decode' }>): string | undefined {
  const { req } = task;
  const what = frameName(req.cameraId, req.seq);
  let full: { width: number; height: number };
  try {
    full = inspectJpeg(task.jpeg, what);
  } catch {
    return undefined;
  }
  // Over the camera's maxMegapixels: decodeToFrame refuses it with that limit, the one to raise for a real camera (a
  // header claiming 65000x65000 was told to try another channel, where it was then refused for its megapixels).
  if (overMegapixels(full.width, full.height, req.limits) !== undefined) return undefined;
  const { width, height } = scaledSize(full.width, full.height, req.scale);
  if (width * height * 4 <= ring.slotBytes) return undefined;
  const at = req.scale > 1 ? ` (${width}x${height} decoded at 1/${req.scale})` : '';
  return `${what}: ${full.width}x${full.height} frame${at} does not fit the shared-memory slot (${ring.slotBytes} bytes); ${init.slotHint}`;
}
