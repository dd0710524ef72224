// separates() tells the tracker whether a counting line lies between two points (a newborn track moved back
// into the merged blob it came out of, and where it was first seen): only then is the earlier point worth
// feeding. A point within the hysteresis margin of a line is on neither side, so it separates nothing.
import { expect, test } from 'vitest';
import { LineCounter } from '../dist/src/analyze/line-counter.js';
import { MARGIN, counter } from './helpers/line-rig.js';

test('points on either side of the line, beyond the margin, are separated; points on one side are not', () => {
  const c = counter();
  expect(c.separates(600, 150, 600, 260, MARGIN)).toBe(true);
  expect(c.separates(600, 260, 600, 150, MARGIN)).toBe(true);
  expect(c.separates(600, 120, 620, 190, MARGIN)).toBe(false);
  expect(c.separates(600, 210, 600, 300, MARGIN)).toBe(false);
});

test('an earlier point within the margin of the line separates nothing, even when the later one is past it', () => {
  const c = counter();
  expect(c.separates(600, 200 - MARGIN + 1, 600, 300, MARGIN)).toBe(false);
  expect(c.separates(600, 200 - MARGIN - 1, 600, 300, MARGIN)).toBe(true);
});

test('any of several lines between the points is enough', () => {
  const c = new LineCounter([
    { id: 'north', from: [0, 200], to: [1280, 200] },
    { id: 'south', from: [0, 500], to: [1280, 500] },
  ]);
  expect(c.separates(600, 300, 600, 560, MARGIN)).toBe(true);
  expect(c.separates(600, 300, 600, 450, MARGIN)).toBe(false);
});
