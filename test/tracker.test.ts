// Counting at low frame rates: a vehicle seen once on each side counts once; jitter, stop-and-go and
// camera outages never add or invert counts.
import { describe, expect, it } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { H, LINE_Y, T0, W, car, roadCamera, roadFrame, type Box } from './helpers/synthetic-road.js';

/**
 * Feeds empty frames for start-up, then one frame per entry (null = no vehicle) at the given times, then ends
 * as a replay does (flush: crossings still held are settled).
 */
function run(track: readonly { t: number; box: Box | null }[], startupSec = 6): { in: number; out: number; events: number } {
  const an = new CameraAnalyzer(roadCamera(), 'cameras[0]');
  let events = 0;
  for (let t = 0; t < startupSec; t++) events += an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + t * 1000 }).length;
  for (const s of track) {
    events += an.process({ width: W, height: H, data: roadFrame(s.box ? [s.box] : []), timeMs: T0 + s.t * 1000 }).length;
  }
  events += an.flush().length;
  const c = an.counts()[0]!;
  return { in: c.in, out: c.out, events };
}

describe('line counting at low frame rates', () => {
  it('counts a vehicle seen only twice at 1 fps, once on each side of the line, exactly once', () => {
    const r = run([{ t: 6, box: car(LINE_Y - 70) }, { t: 7, box: car(LINE_Y + 80) }, { t: 8, box: null }, { t: 9, box: null }]);
    expect(r).toEqual({ in: 1, out: 0, events: 1 });
  });

  it('counts the direction of motion: moving up the image is "out"', () => {
    const r = run([{ t: 6, box: car(LINE_Y + 90) }, { t: 7, box: car(LINE_Y - 60) }, { t: 8, box: null }]);
    expect(r).toEqual({ in: 0, out: 1, events: 1 });
  });

  it('counts a vehicle first seen on the line itself once it is seen beyond it (1 fps), and only then', () => {
    // Caught with its centre 3 px below the line (inside the hysteresis margin), then far above: out.
    const crossed = run([{ t: 6, box: car(LINE_Y + 3) }, { t: 7, box: car(LINE_Y - 90) }, { t: 8, box: null }]);
    expect(crossed).toEqual({ in: 0, out: 1, events: 1 });
    // Caught 3 px above the line and then far above: it never was on the other side, so it did not cross.
    const stayed = run([{ t: 6, box: car(LINE_Y - 3) }, { t: 7, box: car(LINE_Y - 90) }, { t: 8, box: null }]);
    expect(stayed).toEqual({ in: 0, out: 0, events: 0 });
  });

  it('counts a vehicle first seen on the line that leaves it slowly once it has moved the margin\'s full width', () => {
    // The margin is 0.2 × its size (42 px): 8 px. Caught 3 px below the line, then 10 px above it (beyond the
    // margin, but only 13 px from where it was caught), then 30 px above: out, once.
    const crossed = run([{ t: 6, box: car(LINE_Y + 3) }, { t: 7, box: car(LINE_Y - 10) }, { t: 8, box: car(LINE_Y - 30) }, { t: 9, box: car(LINE_Y - 50) }]);
    expect(crossed).toEqual({ in: 0, out: 1, events: 1 });
    // The same, but it stops 12 px above the line: it has not moved the margin's full width, no count.
    const stopped = run([{ t: 6, box: car(LINE_Y + 3) }, { t: 7, box: car(LINE_Y - 10) }, { t: 8, box: car(LINE_Y - 12) }, { t: 9, box: car(LINE_Y - 12) }]);
    expect(stopped).toEqual({ in: 0, out: 0, events: 0 });
  });

  it('counts a vehicle that crossed before it could be seen: first sighted past the line, come from outside the ROI', () => {
    // ROI rows 120-340, line at 180. At 120 px/s and 1 fps the vehicle is at y 80 (outside the ROI), then
    // 200 and 320: both sightings are past the line, and one interval back it was beyond the ROI's edge.
    const count = (ys: number[]) => {
      const an = new CameraAnalyzer({ ...roadCamera(), roi: [[0, 120], [W, 120], [W, 340], [0, 340]] }, 'cameras[0]');
      for (let t = 0; t < 6; t++) an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + t * 1000 });
      ys.forEach((y, i) => an.process({ width: W, height: H, data: roadFrame([car(y)]), timeMs: T0 + (6 + i) * 1000 }));
      an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + (6 + ys.length) * 1000 });
      an.flush();
      return an.counts()[0];
    };
    expect(count([LINE_Y + 20, LINE_Y + 140])).toEqual({ lineId: 'main', in: 1, out: 0 });
    // Slower, so one interval back it was inside the ROI, before the line, and was not seen there: no count.
    expect(count([LINE_Y + 20, LINE_Y + 60])).toEqual({ lineId: 'main', in: 0, out: 0 });
  });

  it('never counts a box jittering around the line', () => {
    const ys = [LINE_Y - 5, LINE_Y + 5, LINE_Y - 4, LINE_Y + 6, LINE_Y - 6, LINE_Y + 4, LINE_Y - 5, LINE_Y + 5];
    const r = run(ys.map((y, i) => ({ t: 6 + i, box: car(y) })));
    expect(r.in + r.out).toBe(0);
  });

  it('counts a crossing once, in its direction, even when the box jitters back and forth while crossing', () => {
    const ys = [LINE_Y - 80, LINE_Y - 40, LINE_Y + 20, LINE_Y - 10, LINE_Y + 25, LINE_Y + 5, LINE_Y + 60, LINE_Y + 110];
    const r = run(ys.map((y, i) => ({ t: 6 + i * 0.5, box: car(y) })));
    expect(r).toEqual({ in: 1, out: 0, events: 1 });
  });

  it('counts stop-and-go across the line once', () => {
    const ys = [LINE_Y - 100, LINE_Y - 50, LINE_Y - 8, LINE_Y - 8, LINE_Y - 8, LINE_Y + 2, LINE_Y + 2, LINE_Y + 30, LINE_Y + 30, LINE_Y + 30, LINE_Y + 90];
    const r = run(ys.map((y, i) => ({ t: 6 + i, box: car(y) })));
    expect(r).toEqual({ in: 1, out: 0, events: 1 });
  });

  it('does not link across a camera outage longer than maxGapSec', () => {
    const r = run([{ t: 6, box: car(LINE_Y - 70) }, { t: 30, box: car(LINE_Y + 80) }, { t: 31, box: null }]);
    expect(r.in + r.out).toBe(0);
  });

  it('uses real time between frames: irregular intervals (skipped frames) still count once', () => {
    const times = [6, 6.2, 6.4, 7.4, 7.6, 9.0];
    const ys = [LINE_Y - 120, LINE_Y - 100, LINE_Y - 80, LINE_Y + 20, LINE_Y + 40, LINE_Y + 110];
    const r = run(times.map((t, i) => ({ t, box: car(ys[i]!) })));
    expect(r).toEqual({ in: 1, out: 0, events: 1 });
  });

  it('does not count a crossing outside the line extent', () => {
    const an = new CameraAnalyzer(
      { ...roadCamera(), lines: [{ id: 'main', from: [0, LINE_Y], to: [200, LINE_Y] }] },
      'cameras[0]',
    );
    // Start-up (bootstrapSec, 8 s) ends before the vehicle appears.
    for (let t = 0; t < 9; t++) an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + t * 1000 });
    an.process({ width: W, height: H, data: roadFrame([car(LINE_Y - 70, 450)]), timeMs: T0 + 9000 });
    an.process({ width: W, height: H, data: roadFrame([car(LINE_Y + 80, 450)]), timeMs: T0 + 10000 });
    an.flush();
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 0, out: 0 });
  });

  it('refuses a frame smaller than the ROI with a message naming the ROI', () => {
    const an = new CameraAnalyzer(roadCamera(), 'cameras[0]');
    expect(() => an.process({ width: 320, height: 180, data: new Uint8Array(320 * 180 * 4), timeMs: T0 })).toThrow(/cameras\[0\]\.roi(\[\d+\])?: .*320x180/);
  });

  it('reset() forgets counts and start-up', () => {
    const an = new CameraAnalyzer(roadCamera(), 'cameras[0]');
    // Start-up (bootstrapSec, 8 s) ends before the vehicle appears.
    for (let t = 0; t < 9; t++) an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + t * 1000 });
    an.process({ width: W, height: H, data: roadFrame([car(LINE_Y - 70)]), timeMs: T0 + 9000 });
    an.process({ width: W, height: H, data: roadFrame([car(LINE_Y + 80)]), timeMs: T0 + 10000 });
    expect(an.counts()[0]!.in).toBe(1);
    an.reset();
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 0, out: 0 });
    expect(an.stats().frames).toBe(0);
  });
});
