// At 1 fps a track's sightings are far apart, and the straight chord between the last one confirmed on one side
// of a line and the first one beyond it on the other can miss the line's ends while the track was seen in
// between, inside the margin, on a path that crosses the line within them. That path is where it crossed. A
// chord well inside a line is where the track crossed, for every line (one line per direction, end to end).
import { expect, test } from 'vitest';
import { LineCounter, type LineCrossing } from '../dist/src/analyze/line-counter.js';
import { MARGIN, SIZE } from './helpers/line-rig.js';

/** One line along row 200 from column 0 to column 600 ('in' is moving down the image). */
const shortLine = (): LineCounter => new LineCounter([{ id: 'main', from: [0, 200], to: [600, 200] }]);

/** Two lines along row 200, one drawn on from the other's end at column 600. */
const endToEnd = (): LineCounter => new LineCounter([
  { id: 'left', from: [0, 200], to: [600, 200] },
  { id: 'right', from: [600, 200], to: [1200, 200] },
]);

/** Feeds one track's sightings [x, y], one second apart, to a new state of `c`; returns the crossings. */
function track(c: LineCounter, points: [number, number][]): LineCrossing[] {
  const st = c.newState();
  const [ox, oy] = points[0]!;
  return points.flatMap(([x, y], k) => c.observe(st, x, y, k * 1000, MARGIN, SIZE, ox, oy, 700));
}

test('a track seen inside the margin just past the line, then far beyond its end, crossed where it was seen', () => {
  // Chord from (560, 120) to (700, 320): row 200 at column 616, beyond the end. Through (580, 203): column 579.
  const out = track(shortLine(), [[540, 60], [560, 120], [580, 203], [700, 320]]);
  expect(out.map((x) => x.direction)).toEqual(['in']);
  expect(out[0]!.x).toBeCloseTo(579, 0);
  expect(out[0]!.timeMs).toBeGreaterThan(1000);
  expect(out[0]!.timeMs).toBeLessThan(2000);
});

test('the same when the sighting inside the margin is just short of the line', () => {
  // Through (590, 197): row 200 between it and (700, 320), at column 593.
  const out = track(shortLine(), [[540, 60], [560, 120], [590, 197], [700, 320]]);
  expect(out.map((x) => x.direction)).toEqual(['in']);
  expect(out[0]!.x).toBeCloseTo(592.7, 0);
});

test('without a sighting in between, or with a path that passes beyond the end too, nothing is counted', () => {
  expect(track(shortLine(), [[540, 60], [560, 120], [700, 320]])).toEqual([]);
  expect(track(shortLine(), [[600, 60], [620, 120], [640, 203], [700, 320]])).toEqual([]);
});

test('where the chord crosses within the line\'s ends, the crossing is placed on the chord as before', () => {
  // Chord from (300, 120) to (320, 320): column 308 at row 200, whatever the sighting inside the margin.
  const out = track(shortLine(), [[290, 60], [300, 120], [380, 203], [320, 320]]);
  expect(out.map((x) => x.direction)).toEqual(['in']);
  expect(out[0]!.x).toBeCloseTo(308, 0);
});

test('with two lines end to end, a chord well inside one counts there only, not on the other through the path', () => {
  const c = endToEnd();
  // Chord from (650, 120) to (400, 320): row 200 at column 550, 50 px inside 'left'. Through (615, 205): column
  // 617, inside 'right'.
  const out = track(c, [[660, 60], [650, 120], [615, 205], [400, 320]]);
  expect(out.map((x) => [x.line, x.direction])).toEqual([[0, 'in']]);
  expect(out[0]!.x).toBeCloseTo(550, 0);
});

test('with two lines end to end, a chord at their meeting point counts once, on the line the path crosses', () => {
  const c = endToEnd();
  // Chord from (570, 120) to (650, 320): row 200 at column 602, 2 px inside 'right', within the margin. Through
  // (575, 203): column 575, inside 'left'.
  const out = track(c, [[565, 60], [570, 120], [575, 203], [650, 320]]);
  expect(out.map((x) => [x.line, x.direction])).toEqual([[0, 'in']]);
});
