// A track missed for seconds is predicted far along its lane, where at 1 fps it can take another vehicle: one
// entering the view there in the other direction. Such a link puts it past a line it never crossed. Its next
// link shows the vehicle it took moving back from the line, so the crossing is refused; a vehicle that was
// only hidden goes on, or leaves the view, and is counted once.
import { expect, it } from 'vitest';
import { LINE_Y, car, tracker } from './helpers/tracker-rig.js';
import type { Detection } from '../dist/src/analyze/blob-filter.js';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { H, T0, W, roadFrame, type Box } from './helpers/synthetic-road.js';

/** One frame a second: a car coming down towards the line, missed twice, then `after` (rows), then gone. */
function crossings(after: readonly number[]): string[] {
  const { T } = tracker();
  const frames: Detection[][] = [
    [car(640, 250)], [car(640, 290)], [car(640, 330)],
    [], [],
    ...after.map((y) => [car(640, y)]),
    [], [], [], [],
  ];
  return frames.flatMap((dets, k) => T.step(dets, 10_000 + k * 1000, 700)).map((c) => c.direction);
}

it('a link after missed frames to a vehicle past the line, which then moves back towards it, does not count', () => {
  const past = LINE_Y + 60;
  expect(crossings([past, past - 20, past - 40])).toEqual([]);
});

it('a vehicle hidden for two frames and seen again past the line counts once, going on or leaving the view', () => {
  const past = LINE_Y + 60;
  expect(crossings([past, past + 40])).toEqual(['in']);
  expect(crossings([past])).toEqual(['in']);
});

// Through the whole analyzer: a crossing still awaiting its track's next link is not lost when counting stops
// (the end of a replay, the daemon's shutdown) or when a camera outage ends every track.
const camera = validateConfig(
  { cameras: [{ id: 'test', roi: [[0, 0], [W, 0], [W, H], [0, H]], lines: [{ id: 'main', from: [0, 200], to: [W, 200] }], analyzer: { bootstrapMinFrames: 5 } }] },
  { requireUrl: false },
).cameras[0]!;

/** 6 empty frames, then a car at each row (none at null), one frame a second; then `end`. */
function analyzerCounts(rows: readonly (number | null)[], end: (an: CameraAnalyzer, t: number) => void): { in: number; out: number } {
  const an = new CameraAnalyzer(camera, 'cameras[0]');
  let t = 0;
  const frame = (boxes: Box[]) => an.process({ width: W, height: H, data: roadFrame(boxes), timeMs: T0 + 1000 * t++ });
  for (let i = 0; i < 6; i++) frame([]);
  for (const y of rows) frame(y === null ? [] : [{ x: 320, y, w: 40, h: 30 }]);
  end(an, t);
  const [c] = an.counts();
  return { in: c!.in, out: c!.out };
}

// 80 px a second down to the line at row 200: missed at 180 and 260, seen again at 340, past the line.
const HIDDEN_THEN_PAST = [20, 100, null, null, 340];

it('a crossing awaiting the next link counts when its track ends, or when counting stops first', () => {
  const emptyThenStop = (an: CameraAnalyzer, t: number) => {
    for (let i = 0; i < 3; i++) an.process({ width: W, height: H, data: roadFrame([]), timeMs: T0 + 1000 * (t + i) });
    an.flush();
  };
  expect(analyzerCounts(HIDDEN_THEN_PAST, emptyThenStop)).toEqual({ in: 1, out: 0 });
  expect(analyzerCounts(HIDDEN_THEN_PAST, (an) => an.flush())).toEqual({ in: 1, out: 0 });
});

it('a crossing awaiting the next link counts when a camera outage ends its track', () => {
  const afterOutage = (an: CameraAnalyzer, t: number) => {
    an.process({ width: W, height: H, data: roadFrame([]), timeMs: T0 + 1000 * (t + 60) });
    an.flush();
  };
  expect(analyzerCounts(HIDDEN_THEN_PAST, afterOutage)).toEqual({ in: 1, out: 0 });
});
