// Counting accuracy on simulated scenes (deterministic by seed): each scenario at a frame rate of 1, 2
// or 5 fps must count within 5% per line and direction; the empty scene with lighting changes counts 0.
// Each case runs on three seeds (different traffic) and is judged on the sum: about 20 vehicles per direction
// and seed, so one vehicle is 5% of a single run, and a case that passed or failed on one seed's luck would
// say little about the analyzer.
import { describe, expect, it } from 'vitest';
import jpeg from 'jpeg-js';
import { createScene } from '../dist/src/source/camera-sim/index.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { evaluateCounts } from '../dist/src/eval/evaluate-counts.js';

type CameraPose = { x?: number; height?: number; yaw?: number; pitch?: number; focalPerWidth?: number };
type Scenario = 'default' | 'light' | 'dense' | 'side-by-side' | 'occlusion' | 'hard-shadows' | 'illumination-step' | 'empty';
type Row = { lineId: string; direction: string; auto: number; truth: number };

const T0 = Date.UTC(2024, 0, 1);
const SEEDS = [7, 8, 9];

/** Renders the scene at `fps` for `durationSec` straight into the analyzer (or through JPEG when quality is set). */
function countScene(seed: number, scenario: Scenario, fps: number, durationSec: number, jpegQuality?: number, pose?: CameraPose): Row[] {
  const scene = createScene({ seed, scenario, ...(jpegQuality ? { jpegQuality } : {}), ...(pose ? { pose } : {}) });
  const camera = validateConfig({ cameras: [scene.cameraConfig()] }, { requireUrl: false }).cameras[0]!;
  const analyzer = new CameraAnalyzer(camera, 'cameras[0]');
  const buf = new Uint8Array(scene.width * scene.height * 4);
  const frames = Math.floor(durationSec * fps);
  for (let i = 0; i <= frames; i++) {
    const t = i / fps;
    let data: Uint8Array = buf;
    if (jpegQuality) data = jpeg.decode(scene.encodeJpeg(t).jpeg, { useTArray: true, formatAsRGBA: true }).data;
    else scene.render(t, buf);
    analyzer.process({ width: scene.width, height: scene.height, data, timeMs: T0 + Math.round(t * 1000) });
  }
  analyzer.flush();
  const auto = { lines: analyzer.counts().map((c) => ({ id: c.lineId, in: c.in, out: c.out })) };
  return evaluateCounts(auto, scene.truthCounts(frames / fps)).rows;
}

/** The case on every seed: per line and direction the summed counts, and each seed's table for the failure message. */
function countSeeds(scenario: Scenario, fps: number, durationSec: number, jpegQuality?: number, pose?: CameraPose): { rows: Row[]; tables: string } {
  const sum = new Map<string, Row>();
  const tables: string[] = [];
  for (const seed of SEEDS) {
    const rows = countScene(seed, scenario, fps, durationSec, jpegQuality, pose);
    tables.push(`seed ${seed}: ${rows.map((r) => `${r.lineId}/${r.direction} ${r.auto} of ${r.truth}`).join(', ')}`);
    for (const r of rows) {
      const key = `${r.lineId}/${r.direction}`;
      const s = sum.get(key) ?? { lineId: r.lineId, direction: r.direction, auto: 0, truth: 0 };
      s.auto += r.auto;
      s.truth += r.truth;
      sum.set(key, s);
    }
  }
  return { rows: [...sum.values()], tables: tables.join('; ') };
}

function expectWithin5Percent({ rows, tables }: { rows: Row[]; tables: string }, label: string): void {
  const lineTotals = new Map<string, number>();
  for (const r of rows) lineTotals.set(r.lineId, (lineTotals.get(r.lineId) ?? 0) + r.truth);
  for (const r of rows) {
    // A direction nobody drives may collect at most 5% of the line's traffic in wrong-way counts.
    const allowed = r.truth > 0 ? 0.05 * r.truth : 0.05 * lineTotals.get(r.lineId)!;
    expect(Math.abs(r.auto - r.truth), `${label}, ${r.lineId}/${r.direction}: ${r.auto} counted of ${r.truth} over seeds ${SEEDS.join(', ')} (${tables})`).toBeLessThanOrEqual(allowed);
  }
}

// Durations give roughly 20 or more vehicles per direction and seed for each scenario's traffic volume. `met`:
// the scenario meets the target today, so `npm test` runs it too and a change that breaks it fails there.
const CASES: { scenario: Scenario; fps: number; durationSec: number; jpegQuality?: number; met: boolean }[] = [
  { scenario: 'default', fps: 1, durationSec: 150, met: true },
  { scenario: 'light', fps: 2, durationSec: 240, met: true },
  { scenario: 'dense', fps: 5, durationSec: 50, met: true },
  { scenario: 'side-by-side', fps: 2, durationSec: 60, met: true },
  { scenario: 'occlusion', fps: 1, durationSec: 60, met: false },
  { scenario: 'hard-shadows', fps: 2, durationSec: 75, met: true },
  { scenario: 'illumination-step', fps: 5, durationSec: 80, met: true },
  // At 1 fps the 20 start-up frames span 19 s, long enough to span a step of light.
  { scenario: 'illumination-step', fps: 1, durationSec: 80, met: true },
  { scenario: 'default', fps: 2, durationSec: 120, jpegQuality: 60, met: true },
];

// The ≤5% targets of issue 4 are not met yet on every scenario (see README, "Accuracy"): those not met run
// with `npm run test:accuracy` (which runs all) and are reported as skipped by `npm test` until they pass.
const ALL_TARGETS = process.env.TC_ACCURACY_TARGETS === '1';

describe('analyzer accuracy targets on simulated scenarios', () => {
  for (const c of CASES) {
    const label = `${c.scenario}${c.jpegQuality ? ` through JPEG quality ${c.jpegQuality}` : ''} at ${c.fps} fps`;
    it.runIf(c.met || ALL_TARGETS)(`${label} counts within 5% per direction`, () => {
      expectWithin5Percent(countSeeds(c.scenario, c.fps, c.durationSec, c.jpegQuality), label);
    }, 180_000);
  }
});

// Nothing in the analyzer knows the camera: the same road seen from a higher and steeper pole, a low one, a
// pole turned further along the road, a long lens, and a camera over the centre of the road must count as well
// as the default view (a 9 m pole at the verge).
const POSES: { name: string; pose: CameraPose; met: boolean }[] = [
  { name: 'a 15 m pole looking steeply down', pose: { height: 15, pitch: 0.4 }, met: true },
  { name: 'a 6 m pole looking far along the road', pose: { height: 6, pitch: 0.15 }, met: true },
  { name: 'a pole turned toward the road\'s far end', pose: { yaw: -0.15 }, met: true },
  { name: 'a long lens', pose: { focalPerWidth: 1.4 }, met: true },
  { name: 'a gantry over the centre of the road', pose: { x: 0, yaw: 0, height: 10, pitch: 0.3 }, met: true },
];

describe('analyzer accuracy from other camera placements', () => {
  for (const { name, pose, met } of POSES) {
    it.runIf(met || ALL_TARGETS)(`default traffic at 2 fps seen from ${name} counts within 5% per direction`, () => {
      expectWithin5Percent(countSeeds('default', 2, 120, undefined, pose), name);
    }, 180_000);
  }
});

describe('analyzer on a simulated empty road', () => {
  it('counts zero under lighting drift, illumination steps and noise', () => {
    const { rows, tables } = countSeeds('empty', 2, 90);
    expect(rows.map((r) => r.auto), tables).toEqual(rows.map(() => 0));
  }, 120_000);
});
