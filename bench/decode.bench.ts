// Scenario "decode": ms per 1280x720 frame for each JPEG decoder (jpeg-js, the portable default, and the
// optional libjpeg-turbo ones: sharp/libvips and jpeg-turbo), single thread, on the simulator clip's JPEGs.

import { loadClip, runProbe, type BenchContext } from './bench-util.js';
import type { ComputeArgs, ComputeResult } from './probes/compute-probe.js';
import type { Reporter } from './reporter.js';
import { DECODERS, type DecoderName } from '../src/decode/decoder-name.js';

/** The decoders that load here: jpeg-js always, the optional ones when their package is installed. */
export async function installedDecoders(): Promise<DecoderName[]> {
  const { createDecoder } = await import('../src/decode/decode-jpeg.js');
  const ok = await Promise.all(DECODERS.map((d) => createDecoder(d).then(() => true, () => false)));
  return DECODERS.filter((_, i) => ok[i]);
}

export const CLIP_FRAMES = (quick: boolean): number => (quick ? 8 : 40);

/** Decode scales measured: full size (the 1280x720 figures) and 1/4, the analyzer's default downscale. */
export const DECODE_SCALES_BENCHED = [1, 4] as const;

/** Row label of a decode measurement; the end-to-end scenario looks rows up by it. */
export const decodeLabel = (decoder: string, scale: number): string =>
  `decode decoder=${decoder} decodeScale=${scale} size=1280x720→${1280 / scale}x${720 / scale}`;

export async function decode(ctx: BenchContext, report: Reporter): Promise<void> {
  const clip = await loadClip(CLIP_FRAMES(ctx.quick), ctx.log);
  const rows = [];
  const installed = await installedDecoders();
  for (const decoder of DECODERS) {
    for (const scale of DECODE_SCALES_BENCHED) {
      const label = decodeLabel(decoder, scale);
      if (!installed.includes(decoder)) {
        rows.push({ label, values: { p50: 'not installed' } });
        continue;
      }
      ctx.log(`decode ${decoder} decodeScale=${scale}`);
      const n = decoder !== 'jpeg-js' ? (ctx.quick ? 10 : 150) : ctx.quick ? 4 : 40;
      const args: ComputeArgs = { task: 'decode', decoder, scale, clipDir: clip.dir, warmup: ctx.quick ? 2 : 10, frames: n };
      const r = await runProbe<ComputeResult>('compute-probe.js', args);
      rows.push({ label, values: { p50: r.p50Ms, p99: r.p99Ms, cpu: r.cpuMsPerFrame, fps: 1000 / r.cpuMsPerFrame, kb: r.jpegKB ?? null, n } });
    }
  }
  report.add({
    scenario: 'decode',
    title: 'JPEG decode, 1280x720 → RGBA, full size and at decode scale 1/4',
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
      'one fresh process per decoder and scale, decoding the simulator clip\'s JPEGs one after another on one thread after warm-up ' +
      '(sharp with concurrency 1 and its cache off, as the decoders run it). Includes the header and size checks every decoder does. ' +
      'decodeScale=4: sharp shrinks on load (libjpeg DCT scaling to 1/2, then a cubic 2x reduce); jpeg-turbo (no DCT scaling in its binding) ' +
      'decodes the full frame and box-averages it; decoder=jpeg-js is the portable path, which ' +
      'decodes baseline JPEGs straight to the box average at 1/4 in the DCT domain (scaled-jpeg-decoder.ts), with no full-size IDCT or pixels; ' +
      'jpeg-js itself decodes only what that path leaves (progressive JPEGs) and at decodeScale=1.',
  });
}
