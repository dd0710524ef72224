// At 1 fps a fast vehicle can be in the ROI for one frame only. Seen once and gone, it crossed a line when the
// usual motion of its place, one interval on (or back), runs out of the ROI beyond that line: it could not be
// seen there. Where that motion would have kept it in view, or nothing says how vehicles move there, or the
// blob is smaller than a vehicle, a blob seen once is no evidence of a crossing.
import { describe, expect, it } from 'vitest';
import type { Detection } from '../dist/src/analyze/blob-filter.js';
import { car, crossingsOf, shrunk, withFlow as rigWithFlow } from './helpers/tracker-rig.js';

/** A tracker on the road plane whose usual motion runs along columns 600-680 at `along` sizes per second (+: down). */
function withFlow(along: number): ReturnType<typeof rigWithFlow>['T'] {
  const [from, to] = along > 0 ? [160, 710] : [710, 160];
  return rigWithFlow([600, 640, 680], from, to, along, { roadPlane: true }).T;
}

/** An empty frame first (watched, nothing there), then the one sighting. */
const seenOnce = (d: Detection): Detection[][] => [[], [d]];

describe('a vehicle seen once', () => {
  it('above the line, where the usual motion takes it out of the view at the bottom within a second, is counted in', () => {
    expect(crossingsOf(seenOnce(car(640, 330)), withFlow(4))).toEqual([[0, 'in']]);
  });

  it('past the line, where the usual motion run back a second lies below the view, is counted out', () => {
    expect(crossingsOf(seenOnce(car(640, 330)), withFlow(-4))).toEqual([[0, 'out']]);
  });

  it('is not counted where the usual motion would have kept it in view (it could have been seen)', () => {
    expect(crossingsOf(seenOnce(car(640, 330)), withFlow(1))).toEqual([]);
    expect(crossingsOf(seenOnce(car(640, 330)), withFlow(-1))).toEqual([]);
  });

  it('is not counted where no usual motion is known', () => {
    expect(crossingsOf(seenOnce(car(640, 330)))).toEqual([]);
  });

  it('is not counted when smaller than a whole vehicle (a piece of one, or noise)', () => {
    expect(crossingsOf(seenOnce(shrunk(car(640, 330), 0.3)), withFlow(4))).toEqual([]);
  });

  it('is not counted as having come into view when no frame was watched one interval before (it may have crossed before the start)', () => {
    expect(crossingsOf([[car(640, 330)]], withFlow(-4))).toEqual([]);
  });
});
