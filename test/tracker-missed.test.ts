// A moving vehicle missed in a frame had not stopped where it was last seen: at 1 fps one last seen just
// past a line, inside the hysteresis margin, is often out of sight in the next frame. It crossed.
import { expect, test } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { H, T0, W, roadFrame, type Box } from './helpers/synthetic-road.js';
import { car as det, tracker } from './helpers/tracker-rig.js';

// The line lies near the bottom of the frame: a vehicle 3 px past it is next due below the frame.
const LINE = 300;
const camera = validateConfig(
  { cameras: [{ id: 'test', roi: [[0, 0], [W, 0], [W, H], [0, H]], lines: [{ id: 'main', from: [0, LINE], to: [W, LINE] }], analyzer: { bootstrapMinFrames: 5 } }] },
  { requireUrl: false },
).cameras[0]!;

const car = (x: number, y: number): Box => ({ x, y, w: 40, h: 30 });

/** Runs 6 empty frames, then one frame per entry of `rows` (a car at that row, or none), then 3 empty ones. */
function run(rows: readonly (number | null)[]): { in: number; out: number } {
  const an = new CameraAnalyzer(camera, 'cameras[0]');
  let t = 0;
  const frame = (boxes: Box[]) => an.process({ width: W, height: H, data: roadFrame(boxes), timeMs: T0 + 1000 * t++ });
  for (let i = 0; i < 6; i++) frame([]);
  for (const y of rows) frame(y === null ? [] : [car(320, y)]);
  for (let i = 0; i < 3; i++) frame([]);
  an.flush();
  const [c] = an.counts();
  return { in: c!.in, out: c!.out };
}

test('a vehicle last seen just past the line, inside the margin, and gone in the next frame is counted', () => {
  // 93 px per frame; the last sighting is 3 px past the line (the margin is 0.2 × its size of 35 px).
  expect(run([24, 117, 210, 303])).toEqual({ in: 1, out: 0 });
});

test('a vehicle that stops on the line is not counted, and one missed once before the line counts once', () => {
  expect(run([24, 117, 210, 297, 299, 299, 298, 299])).toEqual({ in: 0, out: 0 });
  expect(run([24, 117, null, 303])).toEqual({ in: 1, out: 0 });
});

test('a slow vehicle unseen for two frames after reaching the line is carried past it; a one-link track is not', () => {
  // 20 px per second down to the line at row 400 (tracker rig); half a step, 10 px, stays inside the margin of
  // 0.2 × its size (18 px), two half steps do not.
  const rows = (ys: number[]) => {
    const { T } = tracker();
    const steps = [...ys.map((y) => [det(640, y)]), [], [], []];
    return steps.flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700)).map((c) => [c.line, c.direction]);
  };
  expect(rows([340, 360, 380, 400])).toEqual([[0, 'in']]);
  expect(rows([380, 400])).toEqual([]);
});
