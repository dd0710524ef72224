// Scenario "fan-out": one frame analysed by 1, 2 and 4 analyzers in parallel (one per counting zone), against
// the slowest analyzer alone (the ideal) and against all of them one after another (sequential).

import type { Point } from '../src/config/config-types.js';
import { FRAME_W, loadClip, runProbe, type BenchContext } from './bench-util.js';
import { bandRoi } from './analyzer.bench.js';
import { CLIP_FRAMES } from './decode.bench.js';
import type { FanOutArgs, FanOutResult } from './probes/fanout-probe.js';
import type { Reporter } from './reporter.js';

/** Splits the 40% band ROI into n side-by-side zones of equal width. */
function zones(n: number): Point[][] {
  const [[, top], , [, bottom]] = bandRoi(0.4) as [Point, Point, Point, Point];
  return Array.from({ length: n }, (_, i) => {
    const x0 = Math.round((FRAME_W * i) / n);
    const x1 = Math.round((FRAME_W * (i + 1)) / n);
    return [
      [x0, top],
      [x1, top],
      [x1, bottom],
      [x0, bottom],
    ] as Point[];
  });
}

export async function fanOut(ctx: BenchContext, report: Reporter): Promise<void> {
  const clip = await loadClip(CLIP_FRAMES(ctx.quick), ctx.log);
  const base = clip.config.cameras[0]!;
  // A short background bootstrap, so that a short warm-up covers it; steady-state cost is unchanged.
  const camera = { ...base, analyzer: { ...base.analyzer, bootstrapMaxFrames: 3, bootstrapMinFrames: 2 } };
  const ns = [1, 2, 4];
  ctx.log(`fan-out analyzers=${ns.join(',')}`);
  const args: FanOutArgs = { camera, cases: ns.map(zones), clipDir: clip.dir, warmup: ctx.quick ? 7 : 20, frames: ctx.quick ? 6 : 100, fps: clip.fps };
  const results = await runProbe<FanOutResult[]>('fanout-probe.js', args);
  const rows = ns.map((n, i) => {
    const r = results[i]!;
    return {
      label: `fan-out analyzers=${n} zones=${n}x(${Math.round(40 / n)}% of frame) size=1280x720`,
      values: {
        par: r.parallelP50Ms,
        p99: r.parallelP99Ms,
        ideal: r.slowestP50Ms,
        sum: r.sumP50Ms,
        vsIdeal: r.parallelP50Ms / r.slowestP50Ms,
        speedup: r.sumP50Ms / r.parallelP50Ms,
      },
    };
  });
  report.add({
    scenario: 'fan-out',
    title: 'Fan-out: one frame, N analyzers (one per zone)',
    columns: [
      ['par', 'parallel p50 ms'],
      ['p99', 'parallel p99 ms'],
      ['ideal', 'slowest alone p50 ms'],
      ['sum', 'sequential sum p50 ms'],
      ['vsIdeal', 'parallel / slowest'],
      ['speedup', 'sum / parallel'],
    ],
    rows,
    method:
      'the 40% ROI band is split into N equal zones, one CameraAnalyzer each. Sequential: the N analyzers run one after another on one ' +
      'thread, timing each (slowest alone = the ideal parallel latency; sum = sequential latency). Parallel: N worker threads read the ' +
      'same decoded frame from one SharedArrayBuffer (no copy); latency runs from the Atomics signal to the last analyzer\'s done, awaited ' +
      'with Atomics.waitAsync. Warm-up frames (20; the background bootstrap is shortened to 3 frames) are not measured. With 2 cores, 4 analyzers cannot all run at once.',
  });
}
