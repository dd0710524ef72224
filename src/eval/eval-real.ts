// `node dist/src/eval/eval-real.js [DIR]`: counts every clip folder in DIR (default ../shared/real-clips)
// at 5, 2.5 and 1 fps (every 1, 2, 5 frames) and prints the README accuracy table. Exits non-zero only on
// errors, never on accuracy misses.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfigFile } from '../config/validate-config.js';
import { TrafficCounterError } from '../errors.js';
import { countFramesInProcess } from './eval-in-process.js';
import { evaluateCounts, formatPct, loadTruthFile } from './evaluate-counts.js';

const CLIP_FPS = 5; // the shared clips are served at 5 fps
const EVERY = [1, 2, 5] as const;

export interface RealEvalRow {
  clip: string;
  fps: number;
  lineId: string;
  direction: string;
  auto: number;
  truth: number;
  pctError: number | null;
  weighted: number | null;
  msPerFrame: number;
}

/** Evaluates every clip folder (frames/ + config.json + truth.json) of `dir`. */
export async function evalRealClips(dir: string): Promise<RealEvalRow[]> {
  const clips = readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isDirectory() && existsSync(join(dir, n, 'config.json')))
    .sort();
  const rows: RealEvalRow[] = [];
  for (const clip of clips) {
    const base = join(dir, clip);
    const config = loadConfigFile(join(base, 'config.json'), { requireUrl: false });
    const truth = loadTruthFile(join(base, 'truth.json'));
    for (const every of EVERY) {
      const auto: { id: string; in: number; out: number }[] = [];
      let ms = 0;
      for (const camera of config.cameras) {
        const res = await countFramesInProcess(camera, join(base, 'frames'), { fps: CLIP_FPS, every, decodeScale: config.decodeScale });
        auto.push(...res.lines);
        ms += res.avgMs;
      }
      const report = evaluateCounts({ lines: auto }, truth);
      // Rows with nothing to count and nothing counted say nothing: leave them out of the table.
      for (const r of report.rows) {
        if (r.truth === 0 && r.auto === 0) continue;
        rows.push({ clip, fps: CLIP_FPS / every, lineId: r.lineId, direction: r.direction, auto: r.auto, truth: r.truth, pctError: r.pctError, weighted: report.weightedAbsPctError, msPerFrame: ms });
      }
    }
  }
  return rows;
}

export function formatRealTable(rows: readonly RealEvalRow[]): string {
  const out = ['| clip | fps | line | dir | auto | truth | % error | weighted % error (clip, fps) | analyzer ms/frame |', '|---|---:|---|---|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    out.push(`| ${r.clip} | ${r.fps} | ${r.lineId} | ${r.direction} | ${r.auto} | ${r.truth} | ${formatPct(r.pctError)} | ${formatPct(r.weighted)} | ${r.msPerFrame.toFixed(2)} |`);
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const dir = resolve(process.argv[2] ?? '../shared/real-clips');
  const rows = await evalRealClips(dir);
  process.stdout.write(`${formatRealTable(rows)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval-real: ${err instanceof TrafficCounterError ? err.message : (err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  });
}
