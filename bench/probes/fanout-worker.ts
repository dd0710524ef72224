// One analyzer thread of the fan-out probe: waits for a frame index, analyses that frame (a view into the
// shared frame store, no copy) for its own zone, and reports done through Atomics.

import { workerData } from 'node:worker_threads';
import type { CameraConfig } from '../../src/config/config-types.js';
import { CameraAnalyzer } from '../../src/analyze/camera-analyzer.js';
import { FRAME_BYTES, FRAME_H, FRAME_W } from '../bench-util.js';

const { camera, frames, ctl: ctlBuf, fps } = workerData as { camera: CameraConfig; frames: SharedArrayBuffer; ctl: SharedArrayBuffer; fps: number };
const ctl = new Int32Array(ctlBuf); // [0] go sequence, [1] frame index, [2] done count, [3] stop
const count = frames.byteLength / FRAME_BYTES;
const analyzer = new CameraAnalyzer(camera, 'fan-out');
let seen = 0;
for (;;) {
  while (Atomics.load(ctl, 0) === seen) Atomics.wait(ctl, 0, seen);
  seen = Atomics.load(ctl, 0);
  if (Atomics.load(ctl, 3) === 1) break;
  const i = Atomics.load(ctl, 1);
  const data = new Uint8Array(frames, (i % count) * FRAME_BYTES, FRAME_BYTES);
  analyzer.process({ width: FRAME_W, height: FRAME_H, data, timeMs: 1_700_000_000_000 + (i * 1000) / fps });
  Atomics.add(ctl, 2, 1);
  Atomics.notify(ctl, 2);
}
