// `node dist/src/eval/eval-real.js [DIR]`: counts every clip folder in DIR (default ../shared/real-clips)
// at 5, 2.5 and 1 fps (every 1, 2, 5 frames) and prints the README accuracy table. Where the truth file lists
// each crossing's time, the lower rates are also counted from every other first frame (sampling phase),
// against the crossings inside the frames' time span. Exits non-zero only on errors, never on accuracy misses.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfigFile } from '../config/validate-config.js';
import { SourceError, TrafficCounterError, exitCodeFor } from '../errors.js';
import { countFramesInProcess } from './eval-in-process.js';
import { matchWindowSec } from './match-crossings.js';
import type { Direction } from '../analyze/analyzer-types.js';
import { checkTruthLines, evaluateCounts, evaluateCrossings, formatPct, readTruthJson, truthEvents, validateTruth, type TruthEvent, type TruthFile } from './evaluate-counts.js';

const CLIP_FPS = 5; // the shared clips are served at 5 fps
const EVERY = [1, 2, 5] as const;
const START_MS = Date.UTC(2024, 0, 1); // frame 0's time stamp: the truth's times are s after it

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
  /** Crossing by crossing (see evaluateCrossings), where the truth lists its crossings. */
  crossings?: { paired: number; missed: number; extra: number };
}

/** One clip at one frame rate, counted from each possible first frame. */
export interface PhaseRow {
  clip: string;
  fps: number;
  /** Weighted absolute % error from first frame 0, 1, …, every − 1. */
  weighted: (number | null)[];
  /** Automatic and true counts summed over the lines and directions, per first frame. */
  auto: number[];
  truth: number[];
}

/**
 * Evaluates every clip folder (frames/ + config.json + truth.json) of `dir`: `rows` from the first frame, as
 * the README table; `phases` from every first frame, for clips whose truth lists its crossings.
 */
export async function evalRealClips(dir: string): Promise<{ rows: RealEvalRow[]; phases: PhaseRow[] }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new SourceError('TC_ERR_SOURCE_DIR', `${dir}: cannot read the folder (${(err as NodeJS.ErrnoException).code ?? String(err)}); give a folder of clip folders (each with frames/, config.json and truth.json)`, { cause: err });
  }
  const clips = names.filter((n) => isFolder(join(dir, n)) && existsSync(join(dir, n, 'config.json'))).sort();
  if (clips.length === 0) {
    const isClip = existsSync(join(dir, 'config.json'));
    throw new SourceError(
      'TC_ERR_SOURCE_DIR',
      `${dir}: no clip folders in it (folders with frames/, config.json and truth.json); ${isClip ? `it is a clip itself: give the folder it is in, ${resolve(dir, '..')}` : 'give the folder that holds them'}`,
    );
  }
  const rows: RealEvalRow[] = [];
  const phases: PhaseRow[] = [];
  for (const clip of clips) {
    const base = join(dir, clip);
    const config = loadConfigFile(join(base, 'config.json'), { requireUrl: false }, join(base, 'config.json'));
    const truthPath = join(base, 'truth.json');
    const rawTruth = readTruthJson(truthPath, truthPath);
    const truth = validateTruth(rawTruth, truthPath);
    const lineIds = config.cameras.flatMap((c) => c.lines.map((l) => l.id));
    checkTruthLines(truth, lineIds, truthPath, join(base, 'config.json'));
    const events = truthEvents(truth, rawTruth, truthPath, lineIds, (m) => process.stderr.write(`warning: ${m}\n`));
    const count = async (every: number, first: number) => {
      const auto: { id: string; in: number; out: number }[] = [];
      const counted: { lineId: string; direction: Direction; t: number }[] = [];
      let ms = 0, frames = 0;
      for (const camera of config.cameras) {
        const res = await countFramesInProcess(camera, join(base, 'frames'), { fps: CLIP_FPS, every, first, startMs: START_MS, decodeScale: config.decodeScale });
        auto.push(...res.lines);
        counted.push(...res.events.map((e) => ({ lineId: e.lineId, direction: e.direction, t: (e.timeMs - START_MS) / 1000 })));
        ms += res.avgMs;
        frames = res.frames;
      }
      return { auto, counted, ms, frames };
    };
    for (const every of EVERY) {
      const firstPhase = await count(every, 0);
      const { auto, counted, ms } = firstPhase;
      const report = evaluateCounts({ lines: auto }, truth);
      const crossings = events ? evaluateCrossings(events, counted, matchWindowSec(CLIP_FPS / every), Object.keys(truth.lines)) : undefined;
      // Rows with nothing to count and nothing counted say nothing: leave them out of the table.
      for (const r of report.rows) {
        if (r.truth === 0 && r.auto === 0) continue;
        const c = crossings?.rows.find((x) => x.lineId === r.lineId && x.direction === r.direction);
        rows.push({
          clip, fps: CLIP_FPS / every, lineId: r.lineId, direction: r.direction, auto: r.auto, truth: r.truth, pctError: r.pctError, weighted: report.weightedAbsPctError, msPerFrame: ms,
          ...(c ? { crossings: { paired: c.paired, missed: c.missed, extra: c.extra } } : {}),
        });
      }
      if (every === 1 || !events) continue;
      const phase: PhaseRow = { clip, fps: CLIP_FPS / every, weighted: [], auto: [], truth: [] };
      for (let first = 0; first < every; first++) {
        const { auto: lines, frames } = first === 0 ? firstPhase : await count(every, first);
        // Only crossings between the first and the last frame used can be seen.
        const last = first + (frames - 1) * every;
        const r = evaluateCounts({ lines }, truthBetween(events, Object.keys(truth.lines), first / CLIP_FPS, last / CLIP_FPS));
        phase.weighted.push(r.weightedAbsPctError);
        phase.auto.push(r.rows.reduce((a, x) => a + x.auto, 0));
        phase.truth.push(r.totalTruth);
      }
      phases.push(phase);
    }
  }
  return { rows, phases };
}

/** Whether `path` is a folder; an entry that cannot be looked at (a dangling link) is not, and is told on stderr. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (err) {
    process.stderr.write(`warning: ${path}: cannot look at it (${(err as NodeJS.ErrnoException).code ?? String(err)}; a link to nothing?); not a clip folder, left out\n`);
    return false;
  }
}

/** Truth counts of the crossings at t0…t1 s, for the given line ids. */
function truthBetween(events: readonly TruthEvent[], lineIds: readonly string[], t0: number, t1: number): TruthFile {
  const lines: TruthFile['lines'] = Object.fromEntries(lineIds.map((id) => [id, { in: 0, out: 0 }]));
  for (const e of events) {
    const l = Object.hasOwn(lines, e.line) ? lines[e.line] : undefined;
    if (l && e.t >= t0 && e.t <= t1) l[e.direction]++;
  }
  return { lines };
}

export function formatRealTable(rows: readonly RealEvalRow[]): string {
  const out = ['| clip | fps | line | dir | auto | truth | % error | weighted % error (clip, fps) | paired / missed / extra | analyzer ms/frame |', '|---|---:|---|---|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    const c = r.crossings ? `${r.crossings.paired} / ${r.crossings.missed} / ${r.crossings.extra}` : 'n/a';
    out.push(`| ${r.clip} | ${r.fps} | ${r.lineId} | ${r.direction} | ${r.auto} | ${r.truth} | ${formatPct(r.pctError)} | ${formatPct(r.weighted)} | ${c} | ${r.msPerFrame.toFixed(2)} |`);
  }
  return out.join('\n');
}

export function formatPhaseTable(phases: readonly PhaseRow[]): string {
  const out = ['| clip | fps | counted / true, from first frame 0, 1, … | weighted % error, each | mean | worst |', '|---|---:|---|---|---:|---:|'];
  for (const p of phases) {
    const errs = p.weighted.filter((e): e is number => e !== null);
    const mean = errs.length ? errs.reduce((a, e) => a + e, 0) / errs.length : null;
    const worst = errs.length ? Math.max(...errs) : null;
    out.push(`| ${p.clip} | ${p.fps} | ${p.auto.map((a, i) => `${a}/${p.truth[i]}`).join(', ')} | ${p.weighted.map(formatPct).join(', ')} | ${formatPct(mean)} | ${formatPct(worst)} |`);
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const dir = resolve(process.argv[2] ?? '../shared/real-clips');
  const { rows, phases } = await evalRealClips(dir);
  process.stdout.write(`${formatRealTable(rows)}\n`);
  if (phases.length) process.stdout.write(`\nEvery sampling phase (first frame 0 … every − 1), against the crossings between the first and last frame used:\n\n${formatPhaseTable(phases)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval-real: ${err instanceof TrafficCounterError ? err.message : (err as Error).stack ?? String(err)}\n`);
    // As the CLI's: a clip's config.json or truth.json to fix is 2, as `eval --config` says of it.
    process.exitCode = exitCodeFor(err);
  });
}
