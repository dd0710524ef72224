// Scenario "decode": ms per 1280x720 frame for each JPEG decoder (jpeg-js, the portable default, and the
// optional sharp/libjpeg-turbo), single thread, on the simulator clip's JPEGs.

import { loadClip, runProbe, type BenchContext } from './bench-util.js';
import type { ComputeArgs, ComputeResult } from './probes/compute-probe.js';
import type { Reporter } from './reporter.js';

/** True when the optional sharp decoder loads here (sharp is an optional dependency). */
export async function sharpInstalled(): Promise<boolean> {
  const { createDecoder } = await import('../src/decode/decode-jpeg.js');
  return createDecoder('sharp').then(
    () => true,
    () => false,
  );
}

export const CLIP_FRAMES = (quick: boolean): number => (quick ? 8 : 40);

export async function decode(ctx: BenchContext, report: Reporter): Promise<void> {
  const clip = await loadClip(CLIP_FRAMES(ctx.quick), ctx.log);
  const rows = [];
  for (const decoder of ['jpeg-js', 'sharp'] as const) {
    const label = `decode decoder=${decoder} size=1280x720`;
    if (decoder === 'sharp' && !(await sharpInstalled())) {
      rows.push({ label, values: { p50: 'not installed' } });
      continue;
    }
    ctx.log(`decode ${decoder}`);
    const n = decoder === 'sharp' ? (ctx.quick ? 10 : 150) : ctx.quick ? 4 : 40;
    const args: ComputeArgs = { task: 'decode', decoder, clipDir: clip.dir, warmup: ctx.quick ? 2 : 10, frames: n };
    const r = await runProbe<ComputeResult>('compute-probe.js', args);
    rows.push({ label, values: { p50: r.p50Ms, p99: r.p99Ms, cpu: r.cpuMsPerFrame, fps: 1000 / r.cpuMsPerFrame, kb: r.jpegKB ?? null, n } });
  }
  report.add({
    scenario: 'decode',
    title: 'JPEG decode, 1280x720 → RGBA',
    columns: [
      ['p50', 'p50 ms'],
      ['p99', 'p99 ms'],
      ['cpu', 'CPU ms/frame'],
      ['fps', 'frames/s per core'],
      ['kb', 'JPEG KB'],
      ['n', 'frames'],
    ],
    rows,
    method:
      'one fresh process per decoder, decoding the simulator clip\'s JPEGs one after another on one thread after warm-up ' +
      '(sharp with concurrency 1 and its cache off, as the decoders run it). Includes the header and size checks both decoders do.',
  });
}
