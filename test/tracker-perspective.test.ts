// At 1 fps, before the road plane is known, a vehicle coming towards the camera speeds up in the image from
// frame to frame (its image speed grows with the square of its image size). The tracker must still link it
// across the line, or it is lost and never counted.
import { expect, it } from 'vitest';
import { Tracker } from '../dist/src/analyze/tracker.js';
import { LineCounter } from '../dist/src/analyze/line-counter.js';
import { FlowPrior } from '../dist/src/analyze/flow-prior.js';
import { GroundPlane } from '../dist/src/analyze/ground-plane.js';
import { ANALYZER_DEFAULTS } from '../dist/src/analyze/analyzer-options.js';
import { THUMB, type Detection } from '../dist/src/analyze/blob-filter.js';
import type { PerspectiveModel } from '../dist/src/analyze/perspective-model.js';

const W = 1280, H = 720, LINE_Y = 400;
// Pinhole camera over a flat road with its horizon at row 100: a vehicle's image size is proportional to its
// distance below the horizon.
const HORIZON = 100;
const sizeAt = (y: number): number => 0.3 * (y - HORIZON);

/** Known perspective, but no horizon offered: the tracker works without a road plane (image steps). */
function stubPerspective(): PerspectiveModel {
  return { ready: true, size: sizeAt, horizon: () => NaN, add: () => {} } as unknown as PerspectiveModel;
}

function car(x: number, y: number): Detection {
  const s = sizeAt(y);
  const thumb = new Float32Array(THUMB * THUMB * 4);
  for (let k = 0; k < THUMB * THUMB; k++) thumb.set([200, 40, 40, 1], k * 4);
  return { x, y, area: s * s, size: s, bx: x - s / 2, by: y - s / 2, bw: s, bh: s, r: 200, g: 40, b: 40, thumb, whole: true };
}

function tracker(): Tracker {
  const persp = stubPerspective();
  const lines = new LineCounter([{ id: 'main', from: [0, LINE_Y], to: [W, LINE_Y] }]);
  const flow = new FlowPrior(0, 150, W, H - 150, 48, ANALYZER_DEFAULTS.maxSpeedSizesPerSec);
  const ground = new GroundPlane(persp, W / 2, (150 + H) / 2, 150);
  return new Tracker(ANALYZER_DEFAULTS, lines, [{ nx: 0, ny: 1 }], flow, persp, ground, (150 + H) / 2, { x0: 0, y0: 150, x1: W, y1: H });
}

/** Rows of a vehicle at constant road speed seen at 1 fps: 1/(y − horizon) falls by the same step each second. */
function approach(z0: number, dz: number, n: number): number[] {
  return Array.from({ length: n }, (_, k) => HORIZON + 1 / (z0 - k * dz));
}

it('links a vehicle coming nearer across the line although each image step is much longer than the last', () => {
  const ys = approach(0.01, 0.0015, 6); // 200, 218, 243, 282, 350, 500: the last step is 2.2× the one before
  expect(ys.at(-2)!).toBeLessThan(LINE_Y);
  expect(ys.at(-1)!).toBeGreaterThan(LINE_Y);
  const T = tracker();
  const crossings = ys.flatMap((y, k) => T.step([car(640, y)], 10_000 + k * 1000, 700));
  expect(crossings.map((c) => [c.line, c.direction])).toEqual([[0, 'in']]);
  expect(T.created).toBe(1); // one track, not a new one where the vehicle arrived
});

it('does not link a vehicle to a detection far beyond where even that growth could take it', () => {
  // Same approach, but the last sighting is replaced by another vehicle twice as far down the road.
  const ys = approach(0.01, 0.0015, 5);
  const T = tracker();
  const crossings = ys.flatMap((y, k) => T.step([car(640, y)], 10_000 + k * 1000, 700));
  crossings.push(...T.step([car(640, 680)], 15_000, 700));
  expect(crossings).toEqual([]);
  expect(T.created).toBe(2);
});
