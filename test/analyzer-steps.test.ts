// The daemon runs the analyzer in steps so that a camera's start-up (~0.5 s of work once per camera) never
// holds up its thread: the frame that ends the start-up comes as many small steps, with the same crossings.
import { expect, test } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { H, LINE_Y, T0, W, car, roadCamera, roadFrame } from './helpers/synthetic-road.js';

// Start-up of 8 frames at 1 fps, during which a car crosses the line; then an ordinary frame.
const FRAMES = Array.from({ length: 9 }, (_, t) => ({
  timeMs: T0 + t * 1000,
  data: roadFrame(t >= 3 && t <= 6 ? [car(LINE_Y - 120 + (t - 3) * 80)] : []),
}));
const camera = roadCamera({ bootstrapMinFrames: 8, bootstrapSec: 0 });

test('the frame that ends the start-up comes in many steps, with the same crossings as process()', () => {
  const whole = new CameraAnalyzer(camera, 'cameras[0]');
  const stepped = new CameraAnalyzer(camera, 'cameras[0]');
  const expected: CrossingEvent[] = [];
  const got: CrossingEvent[] = [];
  const stepsPerFrame: number[] = [];
  for (const f of FRAMES) {
    expected.push(...whole.process({ width: W, height: H, ...f }));
    let n = 0;
    for (const batch of stepped.steps({ width: W, height: H, ...f })) {
      got.push(...batch);
      n++;
    }
    stepsPerFrame.push(n);
  }
  expect(expected.map((e) => [e.lineId, e.direction])).toEqual([['main', 'in']]);
  expect(got).toEqual(expected);
  expect(stepped.counts()).toEqual(whole.counts());
  // Buffering frames are no work to speak of; the eighth ends the start-up: the median in slices, then each
  // buffered frame for each of the two learning passes and the counting pass; after it, one step per frame.
  expect(stepsPerFrame.slice(0, 7)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  expect(stepsPerFrame[7]).toBeGreaterThanOrEqual(1 + 3 * 8);
  expect(stepsPerFrame[8]).toBe(1);
});
