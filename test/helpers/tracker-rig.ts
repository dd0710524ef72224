// A Tracker over a 1280x720 frame with one horizontal line (in = moving down) and a known perspective
// (a pinhole camera over a flat road, horizon at row 100) but no road plane offered, fed with detections
// made by hand: for tests of linking and counting rules without rendering frames.
import { Tracker } from '../../dist/src/analyze/tracker.js';
import { LineCounter } from '../../dist/src/analyze/line-counter.js';
import { FlowPrior } from '../../dist/src/analyze/flow-prior.js';
import { GroundPlane } from '../../dist/src/analyze/ground-plane.js';
import { ANALYZER_DEFAULTS } from '../../dist/src/analyze/analyzer-options.js';
import { THUMB, type Detection } from '../../dist/src/analyze/blob-filter.js';
import type { PerspectiveModel } from '../../dist/src/analyze/perspective-model.js';

export const W = 1280, H = 720, LINE_Y = 400;
export const HORIZON = 100;
/** A vehicle's image size is proportional to its distance below the horizon. */
export const sizeAt = (y: number): number => 0.3 * (y - HORIZON);

/**
 * Rows of a vehicle at constant road speed seen once a second: 1/(y − horizon) changes by the same step
 * each second (dz > 0 coming nearer, dz < 0 receding).
 */
export function rowsAtConstantSpeed(z0: number, dz: number, n: number): number[] {
  return Array.from({ length: n }, (_, k) => HORIZON + 1 / (z0 - k * dz));
}

/**
 * Known perspective; by default no horizon offered, so the tracker works without a road plane (image
 * steps); with `roadPlane`, the true horizon, so it predicts on the road plane.
 */
function stubPerspective(roadPlane: boolean): PerspectiveModel {
  return { ready: true, size: sizeAt, horizon: () => (roadPlane ? HORIZON : NaN), add: () => {} } as unknown as PerspectiveModel;
}

/** A red square vehicle of the typical size for its row. */
export function car(x: number, y: number): Detection {
  const s = sizeAt(y);
  const thumb = new Float32Array(THUMB * THUMB * 4);
  for (let k = 0; k < THUMB * THUMB; k++) thumb.set([200, 40, 40, 1], k * 4);
  return { x, y, area: s * s, size: s, bx: x - s / 2, by: y - s / 2, bw: s, bh: s, r: 200, g: 40, b: 40, thumb, whole: true };
}

/** A square blob of a fraction `f` of d's area, centred where d is (a piece of a vehicle, or a smaller one). */
export function shrunk(d: Detection, f: number): Detection {
  const s = Math.sqrt(f) * d.size;
  return { ...d, area: s * s, size: s, bx: d.x - s / 2, by: d.y - s / 2, bw: s, bh: s };
}

/** One blob covering both detections (no valley between them): union box, area-weighted centroid; not whole. */
export function merged(a: Detection, b: Detection): Detection {
  const bx = Math.min(a.bx, b.bx), by = Math.min(a.by, b.by);
  const bw = Math.max(a.bx + a.bw, b.bx + b.bw) - bx, bh = Math.max(a.by + a.bh, b.by + b.bh) - by;
  const area = a.area + b.area;
  return { ...a, x: (a.x * a.area + b.x * b.area) / area, y: (a.y * a.area + b.y * b.area) / area, area, size: Math.sqrt(area), bx, by, bw, bh, whole: false };
}

export function tracker(opts: { roadPlane?: boolean } = {}): { T: Tracker; flow: FlowPrior } {
  const persp = stubPerspective(opts.roadPlane ?? false);
  const lines = new LineCounter([{ id: 'main', from: [0, LINE_Y], to: [W, LINE_Y] }]);
  const flow = new FlowPrior(0, 150, W, H - 150, 48, ANALYZER_DEFAULTS.maxSpeedSizesPerSec);
  const ground = new GroundPlane(persp, W / 2, (150 + H) / 2, 150);
  const T = new Tracker(ANALYZER_DEFAULTS, lines, [{ nx: 0, ny: 1 }], flow, persp, ground, (150 + H) / 2, { x0: 0, y0: 150, x1: W, y1: H });
  return { T, flow };
}

/**
 * A tracker whose usual motion runs along each column x in `xs` from row `fromY` to row `toY` at `along` sizes
 * per second (+: down the image, in; five links' worth of votes on each).
 */
export function withFlow(
  xs: readonly number[], fromY: number, toY: number, along: number, opts: { roadPlane?: boolean } = {},
): { T: Tracker; flow: FlowPrior } {
  const rig = tracker(opts);
  for (const x of xs) for (let k = 0; k < 5; k++) rig.flow.vote(x, fromY, x, toY, along, 0, 1, 10);
  return rig;
}

/** A tracker whose usual motion is down the image (in) at 2 sizes per second (see withFlow). */
export function withDownFlow(xs: readonly number[], fromY: number, toY: number): { T: Tracker; flow: FlowPrior } {
  return withFlow(xs, fromY, toY, 2);
}

/**
 * A tracker (a fresh one unless given) fed one frame a second (a frame is a list of detections), then three empty
 * frames; its crossings as [line, direction].
 */
export function crossingsOf(frames: readonly Detection[][], T: Tracker = tracker().T): [number, string][] {
  return [...frames, [], [], []].flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700)).map((c) => [c.line, c.direction]);
}
