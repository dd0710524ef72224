// Scenario "analyzer": CameraAnalyzer time per 1280x720 frame with an ROI covering 40% of the frame
// (a full-width band over the road, holding the clip's counting lines).

import type { CameraConfig, Point } from '../src/config/config-types.js';
import { FRAME_H, FRAME_W, loadClip, runProbe, type BenchContext } from './bench-util.js';
import { CLIP_FRAMES, DECODE_SCALES_BENCHED } from './decode.bench.js';
import type { ComputeArgs, ComputeResult } from './probes/compute-probe.js';
import type { Reporter } from './reporter.js';

/** Full-width band at the bottom of the frame covering `fraction` of it. */
export function bandRoi(fraction: number): Point[] {
  const top = Math.round(FRAME_H * (1 - fraction));
  return [
    [0, top],
    [FRAME_W, top],
    [FRAME_W, FRAME_H],
    [0, FRAME_H],
  ];
}

/** Row label of an analyzer measurement; the end-to-end scenario looks rows up by it. */
export const analyzerLabel = (camera: CameraConfig, scale: number): string =>
  `analyzer roi=40% downscale=${String(camera.analyzer.downscale ?? 'default')} decodeScale=${scale} size=${1280 / scale}x${720 / scale}`;

export async function analyzer(ctx: BenchContext, report: Reporter): Promise<void> {
  const clip = await loadClip(CLIP_FRAMES(ctx.quick), ctx.log);
  const camera = clip.config.cameras[0]!;
  const frames = ctx.quick ? 10 : 150;
  const rows = [];
  for (const scale of DECODE_SCALES_BENCHED) {
    ctx.log(`analyzer decodeScale=${scale}`);
    const args: ComputeArgs = { task: 'analyzer', camera, roi: bandRoi(0.4), scale, clipDir: clip.dir, warmup: 30, frames, fps: clip.fps };
    const r = await runProbe<ComputeResult>('compute-probe.js', args);
    rows.push({ label: analyzerLabel(camera, scale), values: { p50: r.p50Ms, p99: r.p99Ms, cpu: r.cpuMsPerFrame, fps: 1000 / r.cpuMsPerFrame, n: frames, startup: r.startupCpuMs ?? NaN, startupN: r.startupFrames ?? NaN } });
  }
  const full = rows[0]!.values;
  report.ratio({
    name: 'analyzer CPU ms per frame, ROI 40% of 1280x720 (issue 4)',
    value: full.cpu,
    target: '≤ 5',
    met: full.cpu <= 5,
    note: `p50 ${full.p50.toFixed(1)} ms; start-up once: ${full.startup.toFixed(0)} ms CPU over ${full.startupN} frames`,
  });
  report.add({
    scenario: 'analyzer',
    title: 'Analyzer, one camera',
    columns: [
      ['p50', 'p50 ms'],
      ['p99', 'p99 ms'],
      ['cpu', 'CPU ms/frame'],
      ['fps', 'frames/s per core'],
      ['n', 'frames'],
      ['startup', 'start-up CPU ms (once)'],
      ['startupN', 'start-up frames'],
    ],
    rows,
    method:
      'CameraAnalyzer.process() on the simulator clip\'s decoded frames (cycled, timestamps advancing at the clip\'s 10 fps), one thread, ' +
      'after the start-up (the frames buffered for the background median, then learning from them: timed apart, as it happens once per camera) ' +
      'and 30 warm-up frames; the ROI is a full-width band over the bottom 40% of the frame. ' +
      'decodeScale=4: the same frames box-averaged to 320x180 first (what the decoders hand over), not timed.',
  });
}
