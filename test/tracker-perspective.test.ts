// At 1 fps, before the road plane is known, a vehicle coming towards the camera speeds up in the image from
// frame to frame (its image speed grows with the square of its image size). The tracker must still link it
// across the line, or it is lost and never counted.
import { expect, it } from 'vitest';
import { LINE_Y, car, rowsAtConstantSpeed as approach, tracker as rig } from './helpers/tracker-rig.js';

const tracker = () => rig().T;

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

it('counts a receding vehicle first seen past the line when its own shrinking size puts it below the frame a second earlier', () => {
  // Moving up (out) at 1 fps: 345 then 215. Its sizes (73.5, 34.5 px) put the horizon at row 100, so one
  // second earlier it was nearer than the bottom of the frame: it crossed the line unseen. (A straight image
  // step back would put it at row 475, inside the ROI, where it would have been seen.)
  const T = tracker();
  const crossings = [[], [car(640, 345)], [car(640, 215)], []].flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700));
  expect(crossings.map((c) => [c.line, c.direction])).toEqual([[0, 'out']]);
});

it('does not count that vehicle when it is first seen in the first frame watched: it may have crossed before', () => {
  const T = tracker();
  const crossings = [[car(640, 345)], [car(640, 215)], []].flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700));
  expect(crossings).toEqual([]);
});

it('does not count a vehicle first seen past the line that a second earlier was where it would have been seen', () => {
  // 380 then 330: one second earlier it was at row 458, past the line's margin but inside the ROI, unseen.
  const T = tracker();
  const crossings = [[], [car(640, 380)], [car(640, 330)], []].flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700));
  expect(crossings).toEqual([]);
});
