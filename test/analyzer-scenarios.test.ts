// Counting accuracy on simulated scenes (deterministic by seed): every scenario at 1, 2 and 5 fps must count
// within 5% per line and direction; the empty scene with lighting changes counts 0. Each case runs on three
// seeds (different traffic) and is judged on the sum: about 20 vehicles per direction and seed, so one vehicle
// is 5% of a single run, and a case that passed or failed on one seed's luck would say little about the analyzer.
// Seeds 7-9 are the seeds changes were tried on first, so these cases guard against regressions more than they
// measure: on seeds drawn afresh about half of them are within 5% (docs/accuracy.md, "How much the simulator's
// figures mean").
import { describe, expect, it } from 'vitest';
import { DURATION_SEC } from '../dist/src/eval/eval-sim.js';
import { ALL_TARGETS, countSeeds, expectWithin5Percent, type Scenario } from './helpers/scenario-counts.js';

// Every scenario at 1, 2 and 5 fps (issue 4), plus JPEG quality 60, for eval-sim's durations (roughly 20 or more
// vehicles per direction and seed for each scenario's traffic volume). A case listed in NOT_MET misses the target today
// (see docs/accuracy.md, "Simulated scenes"); every other case is run by `npm test` too, so a change that
// breaks it fails there. In the occlusion scene at 1 fps, 5 of the 63 outbound crossings are unseen (eval-sim's
// `unseen`: a lorry covers more than half of the car in every frame on one side of the line), so within 5% there
// takes inferring vehicles no frame showed; hard shadows at 1 fps miss vehicles that were in view.
const NOT_MET = new Set(['occlusion@1', 'hard-shadows@1']);
const CASES: { scenario: Scenario; fps: number; durationSec: number; jpegQuality?: number; met: boolean }[] = [
  ...(Object.entries(DURATION_SEC) as [Scenario, number][]).filter(([scenario]) => scenario !== 'empty').flatMap(([scenario, durationSec]) =>
    [1, 2, 5].map((fps) => ({ scenario, fps, durationSec, met: !NOT_MET.has(`${scenario}@${fps}`) }))),
  { scenario: 'default', fps: 2, durationSec: 120, jpegQuality: 60, met: true },
];

describe('analyzer accuracy targets on simulated scenarios', () => {
  for (const c of CASES) {
    const label = `${c.scenario}${c.jpegQuality ? ` through JPEG quality ${c.jpegQuality}` : ''} at ${c.fps} fps`;
    it.runIf(c.met || ALL_TARGETS)(`${label} counts within 5% per direction`, () => {
      expectWithin5Percent(countSeeds(c.scenario, c.fps, c.durationSec, c.jpegQuality), label);
    }, 180_000);
  }
});

// No traffic is cheap to simulate, so the empty road runs on nine seeds (nine series of steps of light) at every
// rate: on seeds 1-6 a brightening step clipped the road markings and their blobs counted (46, 42 and 40
// phantom vehicles at 1, 2 and 5 fps), while seeds 7-9 happened to count zero.
describe('analyzer on a simulated empty road', () => {
  for (const fps of [1, 2, 5]) {
    it(`counts zero under lighting drift, illumination steps and noise at ${fps} fps`, () => {
      const { rows, tables } = countSeeds('empty', fps, DURATION_SEC.empty, undefined, undefined, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(rows.map((r) => r.auto), tables).toEqual(rows.map(() => 0));
    }, 180_000);
  }
});
