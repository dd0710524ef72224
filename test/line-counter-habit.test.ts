// Traffic at one stretch of a line runs one way: a crossing there against every crossing counted near it is a
// wrong link (at 1 fps, a track that took the vehicle behind its own), not a vehicle. Elsewhere on the line, on
// a stretch used both ways, once the habit has faded, or once the refused direction is tried there more than
// rarely, crossings of either direction count.
import { expect, test } from 'vitest';
import type { LineCounter } from '../dist/src/analyze/line-counter.js';
import { counter, feed } from './helpers/line-rig.js';

/** One vehicle crossing at column x, seen at rows 300 and 100 ('out') or 100 and 300 ('in'), one second apart. */
function cross(c: LineCounter, x: number, direction: 'in' | 'out', tSec: number): number {
  return feed(c, c.newState(), x, direction === 'in' ? [100, 300] : [300, 100], tSec).length;
}

test('a crossing against every crossing counted near it is refused; elsewhere on the line it counts', () => {
  const c = counter();
  for (const [k, x] of [500, 520, 490].entries()) expect(cross(c, x, 'out', 10 * k)).toBe(1);
  expect(cross(c, 510, 'in', 40)).toBe(0);
  // Two vehicle sizes and more away, nothing is known yet: it counts.
  expect(cross(c, 900, 'in', 50)).toBe(1);
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([1, 3]);
});

test('on a stretch used both ways, crossings of either direction count', () => {
  const c = counter();
  const dirs = ['out', 'in', 'out', 'out', 'in', 'out', 'in'] as const;
  dirs.forEach((d, k) => expect(cross(c, 500 + 10 * (k % 3), d, 10 * k)).toBe(1));
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([3, 4]);
});

test('a habit set by a few wrong links does not shut out the traffic that crosses there', () => {
  const c = counter();
  // Three wrong links 'in' early on, then the stretch's own traffic, 'out': one is refused, the rest count.
  for (const [k, x] of [500, 520, 490].entries()) expect(cross(c, x, 'in', 10 * k)).toBe(1);
  expect([0, 1, 2, 3].map((k) => cross(c, 505 + 5 * k, 'out', 30 + 10 * k))).toEqual([0, 1, 1, 1]);
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([3, 3]);
  // The habit is now both ways: neither direction is refused there.
  expect(cross(c, 510, 'in', 80)).toBe(1);
});

test('the habit fades: an hour later the other direction counts there again', () => {
  const c = counter();
  for (const [k, x] of [500, 520, 490].entries()) cross(c, x, 'out', 10 * k);
  expect(cross(c, 510, 'in', 3600)).toBe(1);
});
