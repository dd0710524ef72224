// `node dist/src/eval/eval-sim.js [--seeds 1,2,3,4] [--jobs N] [--json]`: the whole simulated suite through the
// analyzer, as the accuracy tests count it: every scenario at 1, 2 and 5 fps, the empty road at 1, 2 and 5 fps,
// and the five other camera placements (default traffic) at 1 and 2.5 fps, each case summed over the seeds.
// Prints one line per case and the vehicles counted wrong in all (|counted − true| per line and direction,
// wrong-way counts included): the figure docs/accuracy.md judges changes by; and, crossing by crossing, the
// true crossings missed and the counted ones that match none (see matchCrossings), which a phantom count
// standing in for a missed vehicle cannot hide; the missed ones by vehicle type, and the extra ones by the type of
// the true vehicle that crossed nearest in time (CaseResult.extraBeside), and the missed ones by where their
// vehicle was in the frames around its crossing: a blob of its own, merged, or none (see missedWhere); and the true
// and the missed crossings that no frame showed on one side of the line (see unseenOnOneSide). Cases run
// in child processes, `--jobs` at a time (default: the machine's cores). Exits non-zero only on errors, never on
// accuracy misses.

import { spawn } from 'node:child_process';
import jpeg from 'jpeg-js';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createScene, isScenarioName, type ScenarioName, type SceneOptions } from '../source/camera-sim/index.js';
import { validateConfig } from '../config/validate-config.js';
import { CameraAnalyzer } from '../analyze/camera-analyzer.js';
import type { CrossingEvent } from '../analyze/analyzer-types.js';
import { evaluateCounts, type EvalRow } from './evaluate-counts.js';
import { judgeCrossings, matchWindowSec, type TimedCrossing } from './match-crossings.js';
import { buildRoiGeometry } from '../analyze/roi-mask.js';
import { clipBox, missedWhere, MISSED_WHERE, placeAmongBlobs, type Box, type BoxedVehicle, type Place } from './missed-where.js';

type Pose = NonNullable<SceneOptions['pose']>;

/** The camera placements of test/analyzer-placements.test.ts. */
export const POSES = {
  steep: { height: 15, pitch: 0.4 },
  low: { height: 6, pitch: 0.15 },
  turned: { yaw: -0.15 },
  lens: { focalPerWidth: 1.4 },
  gantry: { x: 0, yaw: 0, height: 10, pitch: 0.3 },
} as const satisfies Readonly<Record<string, Pose>>;

export interface SimCase {
  scenario: ScenarioName;
  fps: number;
  durationSec: number;
  pose?: keyof typeof POSES;
  /** Frame size, `WIDTHxHEIGHT` (default 1280x720): the same scene and field of view at another resolution. */
  size?: string;
  /**
   * The analyzer's first frame, s (default 0): a counter started (or restarted) in the middle of the traffic,
   * judged on what crossed from then on. The scenes begin on an empty road, which a restart does not have.
   */
  startSec?: number;
}

/** Each scenario's duration, s (test/analyzer-scenarios.test.ts too): about 20 vehicles per direction and seed. */
export const DURATION_SEC: Readonly<Record<ScenarioName, number>> = {
  default: 150, light: 240, dense: 50, 'side-by-side': 60, occlusion: 60, 'hard-shadows': 75, 'illumination-step': 80, empty: 90,
};

/** When the restart cases' counter starts, s: a minute into default traffic. */
export const RESTART_SEC = 60;

export function suiteCases(): SimCase[] {
  const cases: SimCase[] = [];
  for (const fps of [1, 2, 5]) {
    for (const [scenario, durationSec] of Object.entries(DURATION_SEC) as [ScenarioName, number][]) cases.push({ scenario, fps, durationSec });
  }
  for (const fps of [1, 2.5]) for (const pose of Object.keys(POSES) as (keyof typeof POSES)[]) cases.push({ scenario: 'default', fps, durationSec: 120, pose });
  // A counter (re)started in the middle of the traffic, as every restart of the daemon is: judged on 60-150 s.
  for (const fps of [1, 2]) cases.push({ scenario: 'default', fps, durationSec: 150, startSec: RESTART_SEC });
  return cases;
}

export interface CaseResult {
  label: string;
  /**
   * Per line and direction, summed over the seeds; `unseen`: the true crossings that no frame showed on one side of
   * the line (see unseenOnOneSide), which a counter of these frames could only infer, not see.
   */
  rows: { key: string; auto: number; truth: number; unseen: number }[];
  /** |counted − true| summed over lines and directions. */
  wrong: number;
  /** Crossing by crossing (see matchCrossings): true crossings not counted, and counted ones not true. */
  missed: number;
  extra: number;
  /** The true crossings, and the missed ones, by their vehicle's type (car, van, heavy, two-wheeler). */
  truthByType: Record<string, number>;
  missedByType: Record<string, number>;
  /**
   * The extra crossings by the type of the vehicle beside them: the true crossing of the same line and direction
   * nearest in time, within BESIDE_SEC ('none' if there is none). A lorry counted twice shows as 'heavy'.
   */
  extraBeside: Record<string, number>;
  /** The missed crossings by where their vehicle was in the frames around them (see missedWhere; keys of MISSED_WHERE). */
  missedWhere: Record<string, number>;
  /**
   * The missed crossings that were unseen on one side of the line. The pairing in time may call a lorry missed and
   * the car it hid counted, so the rows' `unseen` (what a counter needs inference for) says more.
   */
  missedUnseen: number;
}

/**
 * A vehicle showing less than this share of its body in the frame (see Scene.visibleShares, within the ROI) is not
 * seen in that frame: a lorry in the near lane covers the car beside it, or most of the vehicle is outside the ROI.
 */
export const SEEN_SHARE = 0.5;

/**
 * True when, in every frame on one side of a crossing at `t` s (frames at or before it, or every frame after it),
 * the vehicle showed less than SEEN_SHARE of itself: `shares[i]` is the frame at i / fps (vehicleId → share; a
 * vehicle not listed was out of the frame).
 */
export function unseenOnOneSide(shares: readonly ReadonlyMap<number, number>[], fps: number, t: number, vehicleId: number): boolean {
  let before = 0, after = 0;
  shares.forEach((m, i) => {
    const share = m.get(vehicleId) ?? 0;
    if (i / fps <= t) before = Math.max(before, share);
    else after = Math.max(after, share);
  });
  return before < SEEN_SHARE || after < SEEN_SHARE;
}

/** A full-frame mask (width × height, 1 inside) of the camera's ROI, as the analyzer samples it (pixel centres). */
function roiRegion(roi: Parameters<typeof buildRoiGeometry>[0], width: number, height: number): Uint8Array {
  const g = buildRoiGeometry(roi, 1);
  const region = new Uint8Array(width * height);
  for (let y = 0; y < g.height && g.y0 + y < height; y++) {
    for (let x = 0; x < g.width && g.x0 + x < width; x++) region[(g.y0 + y) * width + g.x0 + x] = g.mask[y * g.width + x]!;
  }
  return region;
}

/** How far (s) from an extra crossing the true one it is put beside may be (see CaseResult.extraBeside). */
export const BESIDE_SEC = 3;

const T0 = Date.UTC(2024, 0, 1);

/** "line/direction": how a case's rows and crossings are keyed. */
function crossingKey(c: { readonly lineId: string; readonly direction: string }): string {
  return `${c.lineId}/${c.direction}`;
}

/**
 * Seconds the scene is rendered past a case's duration. A vehicle that crosses a line in the last interval
 * between frames is counted only once a later frame shows it past the line's margin (and at 1 fps, after a
 * link that followed missed frames, once the next link confirms it), so the analyzer is shown frames after the
 * duration, and what happened up to the duration is judged (see judgeCrossings). Ending on the duration's
 * frame, with the counts cut there too, seeds 7–9 had 260 true crossings judged missed; 243 now.
 */
export const TAIL_SEC = 3;

/**
 * Renders one seed of a scene at `fps` for `durationSec` (and TAIL_SEC more) straight into the analyzer (or
 * through JPEG at `jpegQuality`, decoded with jpeg-js), and judges what happened up to `durationSec` against
 * the scene's truth: per line and direction, and crossing by crossing (see judgeCrossings).
 */
export function countSceneCrossings(
  seed: number, c: SimCase & { jpegQuality?: number | undefined }, opts: { unseen?: boolean } = {},
): { rows: EvalRow[]; missed: number; extra: number; unseen: Record<string, number>; missedUnseen: number } & TypeTallies {
  const pose = c.pose === undefined ? undefined : POSES[c.pose];
  const [width, height] = c.size === undefined ? [] : c.size.split('x').map(Number);
  const scene = createScene({
    seed, scenario: c.scenario, ...(c.jpegQuality ? { jpegQuality: c.jpegQuality } : {}), ...(pose ? { pose } : {}), ...(width && height ? { width, height } : {}),
  });
  const camera = validateConfig({ cameras: [scene.cameraConfig()] }, { requireUrl: false }).cameras[0]!;
  // Each frame's blobs, by frame time (ms since T0), for where the missed vehicles were.
  const blobsAt = new Map<number, Box[]>();
  const analyzer = new CameraAnalyzer(camera, 'cameras[0]', (tMs, blobs) => {
    blobsAt.set(tMs - T0, blobs.map((b) => [b.bx, b.by, b.bw, b.bh] as const));
  });
  const buf = new Uint8Array(scene.width * scene.height * 4);
  // What of each vehicle the ROI showed, frame by frame (only when asked: it adds a quarter to the rendering).
  const region = opts.unseen ? roiRegion(camera.roi, scene.width, scene.height) : undefined;
  const shares: Map<number, number>[] = [];
  const frames = Math.floor(c.durationSec * c.fps);
  const last = Math.floor((c.durationSec + TAIL_SEC) * c.fps);
  const auto: TimedCrossing[] = [];
  const keep = (events: readonly CrossingEvent[]): void => {
    for (const e of events) auto.push({ key: crossingKey(e), t: (e.timeMs - T0) / 1000 });
  };
  const first = Math.ceil((c.startSec ?? 0) * c.fps);
  for (let i = first; i <= last; i++) {
    const t = i / c.fps;
    let data: Uint8Array = buf;
    if (c.jpegQuality) data = jpeg.decode(scene.encodeJpeg(t).jpeg, { useTArray: true, formatAsRGBA: true }).data;
    else scene.render(t, buf);
    if (region) shares[i] = scene.visibleShares(t, region); // frame i at i / fps (none before the start)
    keep(analyzer.process({ width: scene.width, height: scene.height, data, timeMs: T0 + Math.round(t * 1000) }));
  }
  keep(analyzer.flush());
  const truth = scene.crossings(last / c.fps).filter((e) => e.t >= first / c.fps).map((e) => ({ key: crossingKey(e), t: e.t, type: e.type as string, id: e.vehicleId }));
  const until = frames / c.fps;
  const judged = judgeCrossings(truth, auto, matchWindowSec(c.fps), until);
  const types = emptyTypeTallies();
  for (const e of truth) if (e.t <= until) tally(types.truthByType, e.type);
  for (const m of judged.unpaired.truth) tally(types.missedByType, m.type);
  // Where each missed vehicle was in the frame before its crossing and the frame after it.
  const place = (frame: number, id: number): Place | undefined => {
    const blobs = blobsAt.get(Math.round((frame / c.fps) * 1000));
    if (!blobs) return undefined;
    const boxed = scene.vehicles(frame / c.fps).map((v): BoxedVehicle => ({ id: v.vehicleId, direction: v.direction, box: clipBox(v.bbox, scene.width, scene.height) }));
    const me = boxed.find((v) => v.id === id);
    return me ? placeAmongBlobs(me, boxed, blobs) : 'none';
  };
  for (const m of judged.unpaired.truth) {
    const before = Math.floor(m.t * c.fps);
    tally(types.missedWhere, missedWhere(place(before, m.id), place(before + 1, m.id)));
  }
  for (const x of judged.unpaired.auto) {
    let near: (typeof truth)[number] | undefined;
    for (const e of truth) if (e.key === x.key && Math.abs(e.t - x.t) <= BESIDE_SEC && (!near || Math.abs(e.t - x.t) < Math.abs(near.t - x.t))) near = e;
    tally(types.extraBeside, near?.type ?? 'none');
  }
  const unseen: Record<string, number> = {};
  // The missed crossings are among `truth` (judgeCrossings hands back the same objects), each judged once.
  const unseenTruth = new Set(region ? truth.filter((e) => e.t <= until && unseenOnOneSide(shares, c.fps, e.t, e.id)) : []);
  for (const e of unseenTruth) tally(unseen, e.key);
  const missedUnseen = judged.unpaired.truth.filter((m) => unseenTruth.has(m)).length;
  const n = (lineId: string, d: 'in' | 'out', k: 'auto' | 'truth'): number => judged.counts.get(`${lineId}/${d}`)?.[k] ?? 0;
  const ids = analyzer.counts().map((l) => l.lineId);
  const report = evaluateCounts(
    { lines: ids.map((id) => ({ id, in: n(id, 'in', 'auto'), out: n(id, 'out', 'auto') })) },
    { lines: Object.fromEntries(ids.map((id) => [id, { in: n(id, 'in', 'truth'), out: n(id, 'out', 'truth') }])) },
  );
  return { rows: report.rows, missed: judged.missed, extra: judged.extra, unseen, missedUnseen, ...types };
}

/** Adds n to `into[key]`. */
function tally(into: Record<string, number>, key: string, n = 1): void {
  into[key] = (into[key] ?? 0) + n;
}

/** A case's tallies by vehicle type, and of where the missed vehicles were (see CaseResult). */
type TypeTallies = Pick<CaseResult, 'truthByType' | 'missedByType' | 'extraBeside' | 'missedWhere'>;

function emptyTypeTallies(): TypeTallies {
  return { truthByType: {}, missedByType: {}, extraBeside: {}, missedWhere: {} };
}

/** Adds each of `from`'s tallies to `into`'s. */
function addTypeTallies(into: TypeTallies, from: TypeTallies): void {
  for (const k of ['truthByType', 'missedByType', 'extraBeside', 'missedWhere'] as const) for (const [type, n] of Object.entries(from[k])) tally(into[k], type, n);
}

/** A tally's keys, largest count first (equal counts by name). */
function largestFirst(t: Record<string, number>): string[] {
  return Object.keys(t).sort((a, b) => t[b]! - t[a]! || a.localeCompare(b));
}

/** "heavy 16, car 3": a tally, largest first ("none" for an empty one). */
function formatTally(t: Record<string, number>): string {
  return largestFirst(t).map((k) => `${k} ${t[k]}`).join(', ') || 'none';
}

/** As countSceneCrossings, per line and direction only. */
export function countScene(seed: number, c: SimCase & { jpegQuality?: number | undefined }): EvalRow[] {
  return countSceneCrossings(seed, c).rows;
}

/** Counts one case on every seed, in this process. */
export function runCase(c: SimCase, seeds: readonly number[]): CaseResult {
  const sum = new Map<string, CaseResult['rows'][number]>();
  let missed = 0, extra = 0, missedUnseen = 0;
  const types = emptyTypeTallies();
  for (const seed of seeds) {
    const one = countSceneCrossings(seed, c, { unseen: true });
    missed += one.missed;
    extra += one.extra;
    missedUnseen += one.missedUnseen;
    addTypeTallies(types, one);
    for (const r of one.rows) {
      const key = crossingKey(r);
      const s = sum.get(key) ?? { key, auto: 0, truth: 0, unseen: 0 };
      s.auto += r.auto;
      s.truth += r.truth;
      s.unseen += one.unseen[key] ?? 0;
      sum.set(key, s);
    }
  }
  const rows = [...sum.values()];
  return { label: caseLabel(c), rows, wrong: rows.reduce((a, r) => a + Math.abs(r.auto - r.truth), 0), missed, extra, missedUnseen, ...types };
}

export function caseLabel(c: SimCase): string {
  return `${c.scenario} ${c.fps} fps${c.pose ? ` ${c.pose}` : ''}${c.size ? ` ${c.size}` : ''}${c.startSec ? ` from ${c.startSec} s` : ''}`;
}

function usage(msg: string): never {
  process.stderr.write(`eval-sim: ${msg}\nusage: node dist/src/eval/eval-sim.js [--seeds 1,2,3,4] [--jobs N] [--json]\n`);
  process.exit(2);
}

function parseArgs(argv: readonly string[]): { seeds: number[]; jobs: number; json: boolean; one?: SimCase } {
  let seeds = [7, 8, 9], jobs = availableParallelism(), json = false;
  let one: SimCase | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const val = (): string => argv[++i] ?? usage(`${a} needs a value`);
    if (a === '--seeds') {
      seeds = val().split(',').map(Number);
      if (seeds.length === 0 || seeds.some((s) => !Number.isInteger(s) || s < 0)) usage('--seeds: a comma-separated list of non-negative integers, e.g. 1,2,3,4');
    } else if (a === '--jobs') {
      jobs = Number(val());
      if (!Number.isInteger(jobs) || jobs < 1) usage('--jobs: a positive integer');
    } else if (a === '--json') json = true;
    else if (a === '--case') {
      // Internal: one case, as JSON, in a child process.
      const c = JSON.parse(val()) as SimCase;
      if (!isScenarioName(c.scenario)) usage(`--case: unknown scenario ${String(c.scenario)}`);
      if (c.pose !== undefined && !Object.hasOwn(POSES, c.pose)) usage(`--case: unknown pose ${String(c.pose)}`);
      if (c.size !== undefined && !/^\d+x\d+$/.test(c.size)) usage(`--case: size must be WIDTHxHEIGHT, got ${String(c.size)}`);
      if (c.startSec !== undefined && !(Number.isFinite(c.startSec) && c.startSec >= 0 && c.startSec < c.durationSec)) usage(`--case: startSec must be at least 0 and under durationSec, got ${String(c.startSec)}`);
      one = c;
    } else usage(`unknown argument ${a}`);
  }
  return one ? { seeds, jobs, json, one } : { seeds, jobs, json };
}

/** Runs the cases `jobs` at a time in child processes of this script; results in case order. */
async function runAll(cases: readonly SimCase[], seeds: readonly number[], jobs: number): Promise<CaseResult[]> {
  const self = fileURLToPath(import.meta.url);
  const results: CaseResult[] = new Array(cases.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const k = next++;
      results[k] = await new Promise<CaseResult>((resolveCase, reject) => {
        const child = spawn(process.execPath, [self, '--case', JSON.stringify(cases[k]), '--seeds', seeds.join(',')], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolveCase(JSON.parse(out) as CaseResult) : reject(new Error(`eval-sim: case ${caseLabel(cases[k]!)} exited with ${code}`))));
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, cases.length) }, worker));
  return results;
}

async function main(): Promise<void> {
  const { seeds, jobs, json, one } = parseArgs(process.argv.slice(2));
  if (one) {
    process.stdout.write(JSON.stringify(runCase(one, seeds)));
    return;
  }
  const results = await runAll(suiteCases(), seeds, jobs);
  const wrong = results.reduce((a, r) => a + r.wrong, 0);
  const missed = results.reduce((a, r) => a + r.missed, 0), extra = results.reduce((a, r) => a + r.extra, 0);
  const unseen = results.reduce((a, r) => a + r.rows.reduce((b, x) => b + x.unseen, 0), 0), missedUnseen = results.reduce((a, r) => a + r.missedUnseen, 0);
  const truth = results.reduce((a, r) => a + r.rows.reduce((b, x) => b + x.truth, 0), 0);
  const types = emptyTypeTallies();
  for (const r of results) addTypeTallies(types, r);
  const { truthByType, missedByType, extraBeside, missedWhere: where } = types;
  if (json) {
    process.stdout.write(`${JSON.stringify({ seeds, cases: results, wrong, missed, extra, unseen, missedUnseen, truth, truthByType, missedByType, extraBeside, missedWhere: where }, null, 2)}\n`);
    return;
  }
  for (const r of results) {
    const counts = r.rows.filter((x) => x.auto > 0 || x.truth > 0).map((x) => `${x.key} ${x.auto} (${x.truth}${x.unseen ? `, ${x.unseen} unseen` : ''})`).join(', ') || 'nothing counted, nothing true';
    process.stdout.write(`${r.label.padEnd(26)} ${counts} | wrong ${r.wrong} | missed ${r.missed}, extra ${r.extra}\n`);
  }
  process.stdout.write(`seeds ${seeds.join(',')}: ${wrong} vehicles wrong of ${truth}; crossing by crossing ${missed} missed, ${extra} extra\n`);
  const byType = largestFirst(truthByType).map((k) => `${k} ${missedByType[k] ?? 0} of ${truthByType[k]}`).join(', ');
  process.stdout.write(`missed, by vehicle type: ${byType || 'none'}; extra, by the true vehicle beside it (within ${BESIDE_SEC} s): ${formatTally(extraBeside)}\n`);
  const byWhere = largestFirst(where).map((k) => `${MISSED_WHERE[k as keyof typeof MISSED_WHERE]} ${where[k]}`).join(', ');
  process.stdout.write(`missed, by where the vehicle was in the frames before and after its crossing: ${byWhere || 'none'}\n`);
  process.stdout.write(
    `unseen (true crossings with no frame on one side of the line showing ${SEEN_SHARE * 100}% of the vehicle in the ROI, out of the frame or ` +
    `behind a nearer vehicle: a counter can only infer them): ${unseen} of ${truth}; of the ${missed} missed, ${missedUnseen}\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval-sim: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
