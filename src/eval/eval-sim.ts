// `node dist/src/eval/eval-sim.js [--seeds 1,2,3,4] [--jobs N] [--json]`: the whole simulated suite through the
// analyzer, as the accuracy tests count it: every scenario at 1, 2 and 5 fps, the empty road at 1, 2 and 5 fps,
// and the five other camera placements (default traffic) at 1 and 2.5 fps, each case summed over the seeds.
// Prints one line per case and the vehicles counted wrong in all (|counted − true| per line and direction,
// wrong-way counts included): the figure docs/accuracy.md judges changes by. Cases run in child processes,
// `--jobs` at a time (default: the machine's cores). Exits non-zero only on errors, never on accuracy misses.

import { spawn } from 'node:child_process';
import jpeg from 'jpeg-js';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createScene, isScenarioName, type ScenarioName, type SceneOptions } from '../source/camera-sim/index.js';
import { validateConfig } from '../config/validate-config.js';
import { CameraAnalyzer } from '../analyze/camera-analyzer.js';
import { evaluateCounts, type EvalRow } from './evaluate-counts.js';

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
}

/** Each scenario's duration, s (test/analyzer-scenarios.test.ts too): about 20 vehicles per direction and seed. */
export const DURATION_SEC: Readonly<Record<ScenarioName, number>> = {
  default: 150, light: 240, dense: 50, 'side-by-side': 60, occlusion: 60, 'hard-shadows': 75, 'illumination-step': 80, empty: 90,
};

export function suiteCases(): SimCase[] {
  const cases: SimCase[] = [];
  for (const fps of [1, 2, 5]) {
    for (const [scenario, durationSec] of Object.entries(DURATION_SEC) as [ScenarioName, number][]) cases.push({ scenario, fps, durationSec });
  }
  for (const fps of [1, 2.5]) for (const pose of Object.keys(POSES) as (keyof typeof POSES)[]) cases.push({ scenario: 'default', fps, durationSec: 120, pose });
  return cases;
}

export interface CaseResult {
  label: string;
  /** Per line and direction, summed over the seeds. */
  rows: { key: string; auto: number; truth: number }[];
  wrong: number;
}

const T0 = Date.UTC(2024, 0, 1);

/**
 * Renders one seed of a scene at `fps` for `durationSec` straight into the analyzer (or through JPEG at
 * `jpegQuality`, decoded with jpeg-js), and judges its counts against the scene's truth.
 */
export function countScene(seed: number, c: SimCase & { jpegQuality?: number | undefined }): EvalRow[] {
  const pose = c.pose === undefined ? undefined : POSES[c.pose];
  const scene = createScene({ seed, scenario: c.scenario, ...(c.jpegQuality ? { jpegQuality: c.jpegQuality } : {}), ...(pose ? { pose } : {}) });
  const camera = validateConfig({ cameras: [scene.cameraConfig()] }, { requireUrl: false }).cameras[0]!;
  const analyzer = new CameraAnalyzer(camera, 'cameras[0]');
  const buf = new Uint8Array(scene.width * scene.height * 4);
  const frames = Math.floor(c.durationSec * c.fps);
  for (let i = 0; i <= frames; i++) {
    const t = i / c.fps;
    let data: Uint8Array = buf;
    if (c.jpegQuality) data = jpeg.decode(scene.encodeJpeg(t).jpeg, { useTArray: true, formatAsRGBA: true }).data;
    else scene.render(t, buf);
    analyzer.process({ width: scene.width, height: scene.height, data, timeMs: T0 + Math.round(t * 1000) });
  }
  analyzer.flush();
  const auto = { lines: analyzer.counts().map((n) => ({ id: n.lineId, in: n.in, out: n.out })) };
  return evaluateCounts(auto, scene.truthCounts(frames / c.fps)).rows;
}

/** Counts one case on every seed, in this process. */
export function runCase(c: SimCase, seeds: readonly number[]): CaseResult {
  const sum = new Map<string, { key: string; auto: number; truth: number }>();
  for (const seed of seeds) {
    for (const r of countScene(seed, c)) {
      const key = `${r.lineId}/${r.direction}`;
      const s = sum.get(key) ?? { key, auto: 0, truth: 0 };
      s.auto += r.auto;
      s.truth += r.truth;
      sum.set(key, s);
    }
  }
  const rows = [...sum.values()];
  return { label: caseLabel(c), rows, wrong: rows.reduce((a, r) => a + Math.abs(r.auto - r.truth), 0) };
}

export function caseLabel(c: SimCase): string {
  return `${c.scenario} ${c.fps} fps${c.pose ? ` ${c.pose}` : ''}`;
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
  const truth = results.reduce((a, r) => a + r.rows.reduce((b, x) => b + x.truth, 0), 0);
  if (json) {
    process.stdout.write(`${JSON.stringify({ seeds, cases: results, wrong, truth }, null, 2)}\n`);
    return;
  }
  for (const r of results) {
    const counts = r.rows.filter((x) => x.auto > 0 || x.truth > 0).map((x) => `${x.key} ${x.auto} (${x.truth})`).join(', ') || 'nothing counted, nothing true';
    process.stdout.write(`${r.label.padEnd(26)} ${counts} | wrong ${r.wrong}\n`);
  }
  process.stdout.write(`seeds ${seeds.join(',')}: ${wrong} vehicles wrong of ${truth}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval-sim: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
