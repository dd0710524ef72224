// At 1 fps a platoon whose gaps are one second's travel looks parked: each frame shows a car where the one ahead
// was a frame before. Where the usual motion is thin or wrong (near the camera, traffic moving away: where vehicles
// are first seen, and no track has yet been confirmed to teach it), a vehicle's first sighting links to its follower
// as to a car standing still, and the vehicle is next seen as a new track already past the line. When that track's first link
// shows it moving steadily, its step run back lands on the standing track's first sighting: that sighting was this
// vehicle, the crossing between there and here counts, and the standing track starts again from its second one.
import { describe, expect, it } from 'vitest';
import { car, crossingsOf, rowsAtConstantSpeed, withFlow } from './helpers/tracker-rig.js';
import type { Detection } from '../dist/src/analyze/blob-filter.js';

// Rows of one car moving away (up the image) at a steady road speed, one frame a second: below the line, then
// farther above it each second.
const ROWS = rowsAtConstantSpeed(1 / 370, -0.0013, 4);

/**
 * `n` identical cars in one lane at column x, each one second (one step) behind the one ahead: in frame f, car k is
 * at ROWS[f - k] (frames 0 … n + 2).
 */
function platoon(x: number, n: number): Detection[][] {
  return Array.from({ length: n + ROWS.length - 1 }, (_, f) =>
    Array.from({ length: n }, (_, k) => f - k).filter((i) => i >= 0 && i < ROWS.length).map((i) => car(x, ROWS[i]!)));
}

/**
 * A tracker whose usual motion at column x is known above the line (moving away, 1 size a second) and learnt wrong
 * below it, from a few links (coming nearer, slowly), as a start-up's links at 1 fps can leave it there: each car's
 * first sighting then links to its follower, arrived where it was, as to a car standing still.
 */
function learntWrongBelowLine(x: number) {
  const { T, flow } = withFlow([x], ROWS[ROWS.length - 1]! - 10, 390, -1);
  for (let k = 0; k < 3; k++) flow.vote(x, 430, x, 490, 0.5, 0, 1, 10);
  return { T, flow };
}

describe('a platoon moving away at one gap a frame, where the usual motion before the line is learnt wrong', () => {
  it('sees the rows as a car below the line, then past it', () => {
    expect(ROWS[0]).toBeGreaterThan(420);
    expect(ROWS[1]).toBeLessThan(380);
  });

  it('counts each car once, the way it goes, and learns the usual motion below the line from the steps taken over', () => {
    const x = 640, n = 6;
    const { T, flow } = learntWrongBelowLine(x);
    expect(flow.at(x, ROWS[0]!, 10, true)!.along).toBeGreaterThan(0);
    // Every car but the last is followed, one frame on, by another where it was; the last is followed by none.
    // (Without the takeover, none is counted: each is first seen as a new track past the line.)
    expect(crossingsOf(platoon(x, n), T)).toEqual(Array.from({ length: n }, () => [0, 'out']));
    // Each step taken over is a link confirmed by the next: it votes as one, moving away.
    expect(flow.at(x, ROWS[0]!, 20, true)!.along).toBeLessThan(0);
    // A standing track that gives up its first sighting is seen once again, no longer a linked one: the line reach
    // diagnostic's share of tracks seen twice (see CameraAnalyzer.lineReach) stays a share.
    expect(T.linked).toBeLessThanOrEqual(T.created);
  });

  it('does not count a car standing below the line, nor one past it that came from elsewhere', () => {
    const x = 640;
    // A car stands below the line throughout; another, first seen past the line 400 px to the side, moves away.
    const frames = Array.from({ length: 4 }, (_, f) => [car(x, ROWS[0]!), ...(f >= 1 ? [car(x - 400, ROWS[f]!)] : [])]);
    expect(crossingsOf(frames, learntWrongBelowLine(x).T)).toEqual([]);
  });
});
