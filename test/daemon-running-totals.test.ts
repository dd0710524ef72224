// The live line of `run` prints each crossing with its line's totals. One analyzer step can complete several
// crossings; each must show the totals as they stood after it, not the step's final totals twice.
import { expect, test } from 'vitest';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { runningTotals } from '../dist/src/daemon.js';

const ev = (lineId: string, direction: 'in' | 'out'): CrossingEvent => ({
  cameraId: 'c', lineId, direction, timeMs: 0, trackId: 1, vehicleClass: 'car', areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 2,
});

test('each event of a batch shows its own running totals', () => {
  const events = [ev('north', 'in'), ev('south', 'out'), ev('north', 'in'), ev('north', 'out')];
  const after = [{ lineId: 'north', in: 7, out: 3 }, { lineId: 'south', in: 0, out: 4 }];
  expect(runningTotals(events, after)).toEqual([
    { in: 6, out: 2 },
    { in: 0, out: 4 },
    { in: 7, out: 2 },
    { in: 7, out: 3 },
  ]);
  // A single event shows the totals after it.
  expect(runningTotals([ev('south', 'out')], after)).toEqual([{ in: 0, out: 4 }]);
});
