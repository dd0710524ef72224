// A track that turns back has switched to another vehicle: from then on it predicts that vehicle's motion.
import { expect, test } from 'vitest';
import { car, tracker } from './helpers/tracker-rig.js';

test("a track that turned back onto another vehicle moves on at that vehicle's speed, not an average with the old one", () => {
  const { T } = tracker();
  // A vehicle creeping down to row 680 (10 px/s), then the track follows one going up at 100 px/s; at row 380
  // it is more than two sizes back from the farthest point: a switch.
  const ys = [650, 660, 670, 680, 580, 480, 380];
  ys.forEach((y, k) => T.step([car(640, y)], 10_000 + k * 1000, 700));
  const [track] = T.tracks;
  expect(track!.firstY).toBe(680);
  expect(track!.vy).toBeCloseTo(-100, 6);
});
