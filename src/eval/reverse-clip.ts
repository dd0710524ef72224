// `node dist/src/eval/reverse-clip.js SRC_CLIP DST_CLIP [--fps N]`: a clip folder (frames/*.jpg, config.json,
// truth.json, as in ../shared/real-clips) played backwards: the same JPEG files, byte for byte, in reverse order
// under the same names, so every vehicle drives the other way (traffic coming nearer now moves away). The config is
// copied; the truth swaps `in` and `out` on every line, and its `events` (s from the first frame, at N frames per
// second, default 5 as the shared clips) are mirrored in time with their direction swapped.
// DST_CLIP must be new (or an empty folder); it appears only once complete (see writeClipFolder).
// It checks that the analyzer counts a road alike whichever way its traffic runs (README, "Traffic the other
// way"): `npm run eval:real -- DIR` on a folder of reversed clips. No pixel changes, so unlike resize-clip it
// needs no control run.

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { clipFramesOrExit, clipToolStep, readClipFrame, readClipJson, writeClipFolder } from './eval-in-process.js';
import { validateTruth } from './evaluate-counts.js';

interface TruthDoc {
  lines: Record<string, { in: number; out: number }>;
  events?: { t: number; direction: 'in' | 'out'; frame?: number; [k: string]: unknown }[];
  [k: string]: unknown;
}

/**
 * The truth of a clip of `frames` frames at `fps` played backwards: counts swapped per line, each event at
 * (frames − 1) / fps − t with the other direction (and, where it gives one, the mirrored frame number), in time order.
 */
export function reverseTruth(truth: TruthDoc, frames: number, fps: number): TruthDoc {
  const lastSec = (frames - 1) / fps;
  const lines = Object.fromEntries(Object.entries(truth.lines).map(([id, c]) => [id, { in: c.out, out: c.in }]));
  const out: TruthDoc = { ...truth, lines };
  if (truth.events) {
    out.events = truth.events
      .map((e) => ({
        ...e,
        t: Math.round((lastSec - e.t) * 1000) / 1000,
        direction: e.direction === 'in' ? ('out' as const) : ('in' as const),
        ...(typeof e.frame === 'number' ? { frame: frames + 1 - e.frame } : {}),
      }))
      .sort((a, b) => a.t - b.t);
  }
  return out;
}

function main(argv: readonly string[]): void {
  const [src, dst, flag, fpsArg] = argv;
  const fps = flag === '--fps' ? Number(fpsArg) : 5;
  if (!src || !dst || (flag !== undefined && flag !== '--fps') || !(fps > 0 && fps <= 1000) || argv.length > 4) {
    process.stderr.write('usage: node dist/src/eval/reverse-clip.js SRC_CLIP DST_CLIP [--fps N (the clip\'s frame rate, default 5)]\n');
    process.exit(2);
  }
  // In natural order (frame2 before frame10), .jpg/.jpeg in any case, sub-folders left out, as eval and replay read the clip back.
  const names = clipFramesOrExit('reverse-clip', src);
  // The config (copied as it is) read and the truth checked before anything is written.
  clipToolStep('reverse-clip', () => readClipJson(join(src, 'config.json')));
  const truth = clipToolStep('reverse-clip', () => {
    const raw = readClipJson(join(src, 'truth.json'));
    validateTruth(raw, join(src, 'truth.json'));
    return raw as TruthDoc;
  });
  writeClipFolder('reverse-clip', dst, (out) => {
    mkdirSync(join(out, 'frames'));
    copyFileSync(join(src, 'config.json'), join(out, 'config.json'));
    writeFileSync(join(out, 'truth.json'), `${JSON.stringify(reverseTruth(truth, names.length, fps), null, 1)}\n`);
    names.forEach((name, i) => {
      const bytes = clipToolStep('reverse-clip', () => readClipFrame(join(src, 'frames', names[names.length - 1 - i]!)));
      writeFileSync(join(out, 'frames', name), bytes);
    });
  });
  process.stdout.write(`${dst}: ${names.length} frames, reversed\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
