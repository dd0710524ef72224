// A LineCounter with one line along row 200 ('in' is moving down the image) and one track's sightings fed to
// it by hand, one second apart: for tests of the counting rules without a tracker.
import { LineCounter, type LineState, type LineCrossing, type Verdict } from '../../dist/src/analyze/line-counter.js';

export const SIZE = 40; // vehicle size, px
export const MARGIN = 8;

export function counter(): LineCounter {
  return new LineCounter([{ id: 'main', from: [0, 200], to: [1280, 200] }]);
}

/**
 * Feeds one track's sightings at column x and the given rows, one second apart from tSec on, to its state
 * `st` (its first row is where it was first seen); returns the crossings.
 */
export function feed(
  c: LineCounter, st: LineState, x: number, rows: number[], tSec: number, accept?: (line: number, d: 'in' | 'out') => Verdict,
): LineCrossing[] {
  const out: LineCrossing[] = [];
  for (const [k, y] of rows.entries()) out.push(...c.observe(st, x, y, (tSec + k) * 1000, MARGIN, SIZE, x, rows[0]!, 700, accept));
  return out;
}
