// At 1 fps a vehicle may be seen once before a line, find no link there (its step runs against the usual
// motion of that place, where both directions' lanes meet), and be seen next already past the line. When the
// track started past the line gets its first link, the earlier sighting, where that link run back puts it,
// is the same vehicle: the crossing counts.
import { expect, it } from 'vitest';
import { car, tracker, withDownFlow } from './helpers/tracker-rig.js';

/** A tracker whose usual motion around (x, 560..640) is down the image (in), at 2 sizes per second. */
const withDownFlowAt = (x: number) => withDownFlow([x], 560, 640);

it('counts a vehicle seen once before the line, unlinked, then past it, against the usual motion there', () => {
  const { T } = withDownFlowAt(640);
  // Moving up the image (out): once below the line, then twice above it.
  const steps = [[car(640, 600)], [car(640, 380)], [car(640, 300)], []];
  const crossings = steps.flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700));
  expect(crossings.map((c) => [c.line, c.direction])).toEqual([[0, 'out']]);
});

it('does not take over a sighting that is not where the new track came from', () => {
  const { T } = withDownFlowAt(200);
  // The same vehicle above the line, but the only earlier sighting is another vehicle, 440 px to the side.
  const steps = [[car(200, 600)], [car(640, 380)], [car(640, 300)], []];
  const crossings = steps.flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700));
  expect(crossings).toEqual([]);
});

it('takes over the sighting of a track seen once that ended, unlinked, before the vehicle got its first link', () => {
  const { T, flow } = tracker();
  // Up the image and to the right at a steady speed on the road (out, about 1 size per second across the
  // line and 2 along it): more sideways than a link with no usual motion may go. The usual motion is known
  // above the line only, so the sighting below it finds no link, and a track seen once with nothing to
  // predict with ends there; the vehicle's next sighting starts a track that the usual motion links.
  for (let k = 0; k < 5; k++) flow.vote(760, 380, 920, 310, -1, 2.2, 1, 10);
  const steps = [[car(440, 520)], [car(760, 380)], [car(920, 310)], []];
  const crossings = steps.flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700));
  expect(crossings.map((c) => [c.line, c.direction])).toEqual([[0, 'out']]);
});
