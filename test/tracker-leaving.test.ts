// A vehicle about to leave the view near the camera is predicted far beyond the frame (at 1 fps, hundreds of
// px below it). The link gate allows for the prediction's error only over the part of the step inside the
// view: otherwise it spans the frame's whole bottom, and the leaving track takes a vehicle entering there.
import { expect, it } from 'vitest';
import { HORIZON, LINE_Y, car, rowsAtConstantSpeed as rows, tracker } from './helpers/tracker-rig.js';

it('a track leaving at the bottom does not take a vehicle entering beside it in the other direction, which is counted', () => {
  const { T } = tracker({ roadPlane: true });
  // In: coming nearer down column 640, 200 … 500, crossing the line between the last two; next second it
  // would be at row 1100, far below the frame.
  const inbound = rows(0.01, 0.0015, 6);
  // Out: entering at the bottom 250 px to the right the second after, receding at constant road speed: 650,
  // then 380 (just past the line), 288, 241. Run back from 380 it was at 650, inside the view: only its
  // sighting there shows it crossed.
  const outbound = rows(1 / 550, -0.00175, 4);
  expect(inbound.at(-2)!).toBeLessThan(LINE_Y);
  expect(outbound[1]!).toBeLessThan(LINE_Y - 0.2 * 0.3 * (outbound[1]! - HORIZON));
  const frames = [...inbound.map((y) => [car(640, y)]), ...outbound.map((y, k) => [car(890 - 20 * k, y)]), []];
  const crossings = frames.flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700));
  expect(crossings.map((c) => [c.line, c.direction])).toEqual([[0, 'in'], [0, 'out']]);
});
