// `node dist/src/eval/resize-clip.js SRC_CLIP DST_CLIP FACTOR [--quality Q]`: a clip folder (frames/*.jpg or .jpeg,
// config.json, truth.json, as in ../shared/real-clips) as another camera of the same view would give it: every
// frame resized by FACTOR (area average; 0.5 turns 1280x720 into 640x360, 1.5 into 1920x1080) and re-encoded with
// jpeg-js at quality Q (default 85), and the config's ROI and line coordinates scaled alike. Truth is copied.
// DST_CLIP must be new (or an empty folder); it appears only once complete (see writeClipFolder).
// It checks that the analyzer counts a view alike whatever the camera's resolution (README, "Frame size"):
// `npm run eval:real -- DIR` on a folder of such clips. Run a FACTOR of 1 beside them: re-encoding alone changes
// the pictures too.

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import jpeg from 'jpeg-js';
import { clipFramesOrExit, clipToolStep, decodeClipFrame, readClipConfig, readClipFrame, readClipJson, writeClipFolder } from './eval-in-process.js';
import { validateTruth } from './evaluate-counts.js';

interface ClipConfig {
  cameras: { roi: number[][]; lines: { from: number[]; to: number[] }[] }[];
}

/** RGBA `src` (w x h) resized to round(w·f) x round(h·f), each output pixel the mean of the source pixels it covers. */
export function resizeRgba(src: Uint8Array, w: number, h: number, f: number): { data: Uint8Array; width: number; height: number } {
  const W = Math.round(w * f), H = Math.round(h * f);
  const out = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    const ys = Math.floor(y / f), ye = Math.min(h, Math.max(ys + 1, Math.ceil((y + 1) / f)));
    for (let x = 0; x < W; x++) {
      const xs = Math.floor(x / f), xe = Math.min(w, Math.max(xs + 1, Math.ceil((x + 1) / f)));
      let r = 0, g = 0, b = 0, n = 0;
      for (let yy = ys; yy < ye; yy++) {
        for (let xx = xs; xx < xe; xx++) {
          const i = (yy * w + xx) * 4;
          r += src[i]!; g += src[i + 1]!; b += src[i + 2]!; n++;
        }
      }
      const o = (y * W + x) * 4;
      out[o] = r / n; out[o + 1] = g / n; out[o + 2] = b / n; out[o + 3] = 255;
    }
  }
  return { data: out, width: W, height: H };
}

function main(argv: readonly string[]): void {
  const [src, dst, factor, flag, q] = argv;
  const f = Number(factor);
  const quality = flag === '--quality' ? Number(q) : 85;
  if (!src || !dst || !(f > 0 && f <= 4) || !(quality >= 1 && quality <= 100) || (flag !== undefined && flag !== '--quality')) {
    process.stderr.write('usage: node dist/src/eval/resize-clip.js SRC_CLIP DST_CLIP FACTOR (0 < FACTOR <= 4) [--quality 1-100]\n');
    process.exit(2);
  }
  // The frames as eval, replay and eval:real take them (.jpg/.jpeg in any case, natural order), the config and the
  // truth checked, before anything is written.
  const names = clipFramesOrExit('resize-clip', src);
  const config = clipToolStep('resize-clip', () => readClipConfig(join(src, 'config.json'))) as ClipConfig;
  clipToolStep('resize-clip', () => validateTruth(readClipJson(join(src, 'truth.json')), join(src, 'truth.json')));
  const scale = (p: number[]): number[] => p.map((v) => Math.round(v * f));
  for (const cam of config.cameras) {
    cam.roi = cam.roi.map(scale);
    for (const line of cam.lines) {
      line.from = scale(line.from);
      line.to = scale(line.to);
    }
  }
  writeClipFolder('resize-clip', dst, (out) => {
    mkdirSync(join(out, 'frames'));
    copyFileSync(join(src, 'truth.json'), join(out, 'truth.json'));
    writeFileSync(join(out, 'config.json'), `${JSON.stringify(config, null, 1)}\n`);
    for (const name of names) {
      const file = join(src, 'frames', name);
      const img = clipToolStep('resize-clip', () => decodeClipFrame(file, readClipFrame(file)));
      writeFileSync(join(out, 'frames', name), jpeg.encode(resizeRgba(img.data, img.width, img.height, f), quality).data);
    }
  });
  process.stdout.write(`${dst}: ${names.length} frames at ${f}x\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
