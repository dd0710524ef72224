// Fan-out probe: the same frame analysed by N analyzers (one per counting zone), first one after another
// on this thread (each one's time alone, and their sum), then by N worker threads in parallel.

import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CameraConfig, Point } from '../../src/config/config-types.js';
import { CameraAnalyzer } from '../../src/analyze/camera-analyzer.js';
import { waitAsync } from '../../src/channel/wait-async.js';
import { FRAME_BYTES, FRAME_H, FRAME_W, decodeClipFrames, hrNow, probeMain, summarize } from '../bench-util.js';

export interface FanOutArgs {
  camera: CameraConfig;
  /** Per case, one ROI polygon per zone. */
  cases: Point[][][];
  clipDir: string;
  warmup: number;
  frames: number;
  fps: number;
}

export interface FanOutResult {
  /** p50 over frames of the slowest zone's time alone, ms (the ideal parallel latency). */
  slowestP50Ms: number;
  /** p50 over frames of the sum of the zones' times (one thread, sequential), ms. */
  sumP50Ms: number;
  /** p50 / p99 of the parallel fan-out latency: signal to all N done, ms. */
  parallelP50Ms: number;
  parallelP99Ms: number;
}

const WORKER = fileURLToPath(new URL('./fanout-worker.js', import.meta.url));

async function runCase(a: FanOutArgs, zones: Point[][], store: SharedArrayBuffer): Promise<FanOutResult> {
  const count = store.byteLength / FRAME_BYTES;
  const frame = (i: number): Uint8Array => new Uint8Array(store, (i % count) * FRAME_BYTES, FRAME_BYTES);
  const timeMs = (i: number): number => 1_700_000_000_000 + (i * 1000) / a.fps;
  const configs = zones.map((roi) => ({ ...a.camera, roi }));

  // Sequential: every zone's analyzer on this thread, timed one by one.
  const seq = configs.map((c) => new CameraAnalyzer(c, 'fan-out'));
  const slowest: number[] = [];
  const sums: number[] = [];
  for (let i = 0; i < a.warmup + a.frames; i++) {
    let max = 0;
    let sum = 0;
    for (const an of seq) {
      const t0 = performance.now();
      an.process({ width: FRAME_W, height: FRAME_H, data: frame(i), timeMs: timeMs(i) });
      const dt = performance.now() - t0;
      max = Math.max(max, dt);
      sum += dt;
    }
    if (i >= a.warmup) {
      slowest.push(max);
      sums.push(sum);
    }
  }

  // Parallel: one worker per zone, all reading the same frame in shared memory.
  const ctlBuf = new SharedArrayBuffer(16);
  const ctl = new Int32Array(ctlBuf); // [0] go sequence, [1] frame index, [2] done count, [3] stop
  const workers = configs.map((camera) => new Worker(WORKER, { workerData: { camera, frames: store, ctl: ctlBuf, fps: a.fps } }));
  await Promise.all(workers.map((w) => new Promise((r) => w.once('online', r))));
  const lat: number[] = [];
  const n = workers.length;
  for (let i = 0; i < a.warmup + a.frames; i++) {
    const target = (i + 1) * n;
    const t0 = hrNow();
    Atomics.store(ctl, 1, i);
    Atomics.add(ctl, 0, 1);
    Atomics.notify(ctl, 0);
    // This thread only awaits (waitAsync); the analyzers block in their own threads.
    for (let done = Atomics.load(ctl, 2); done < target; done = Atomics.load(ctl, 2)) {
      await waitAsync(ctl, 2, done);
    }
    if (i >= a.warmup) lat.push(Number(hrNow() - t0) / 1e6);
  }
  Atomics.store(ctl, 3, 1);
  Atomics.add(ctl, 0, 1);
  Atomics.notify(ctl, 0);
  await Promise.all(workers.map((w) => new Promise((r) => w.once('exit', r))));
  const par = summarize(lat);
  return { slowestP50Ms: summarize(slowest).p50, sumP50Ms: summarize(sums).p50, parallelP50Ms: par.p50, parallelP99Ms: par.p99 };
}

probeMain<FanOutArgs, FanOutResult[]>(async (a) => {
  const decoded = await decodeClipFrames(a.clipDir);
  const store = new SharedArrayBuffer(decoded.length * FRAME_BYTES);
  for (const [i, img] of decoded.entries()) new Uint8Array(store, i * FRAME_BYTES, FRAME_BYTES).set(img.data);
  const out = [];
  for (const zones of a.cases) out.push(await runCase(a, zones, store));
  return out;
});
