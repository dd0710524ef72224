// A crossing where no usual motion is known yet (a vehicle crawling across the line, or the first seconds at
// a place) is held until the place's usual motion can judge it, at most 30 s: then it counts, with the time it
// crossed. Nothing held is lost: a replay's end (flush) counts what is still held.
import { describe, expect, it } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { CRAWL, H, LINE_Y, T0, W, car, roadCamera, roadFrame, type Box } from './helpers/synthetic-road.js';

/**
 * Empty road until 6 s (start-up), then a car crawling up across the line at 10 px/s (a quarter of its size
 * per second: too slow to teach a usual motion), then empty road until `untilSec`. Each event with the
 * time of the frame that emitted it.
 */
function crawl(
  untilSec: number, later: (t: number) => Box[] = () => [], analyzer: Record<string, number> = {},
): { an: CameraAnalyzer; emitted: { atSec: number; ev: CrossingEvent }[] } {
  const an = new CameraAnalyzer(roadCamera(analyzer), 'cameras[0]');
  const emitted: { atSec: number; ev: CrossingEvent }[] = [];
  for (let t = 0; t <= untilSec; t++) {
    const k = t - 6;
    const boxes = k >= 0 && k < CRAWL.length ? [CRAWL[k]!] : later(t);
    for (const ev of an.process({ width: W, height: H, data: roadFrame(boxes), timeMs: T0 + t * 1000 })) emitted.push({ atSec: t, ev });
  }
  return { an, emitted };
}

describe('a crossing where no usual motion is known', () => {
  it('counts once it has waited 30 s for one, with the time it crossed', () => {
    const early = crawl(20);
    expect(early.emitted).toEqual([]);
    expect(early.an.counts()[0]).toEqual({ lineId: 'main', in: 0, out: 0 });

    const { an, emitted } = crawl(45);
    expect(emitted).toHaveLength(1);
    const { atSec, ev } = emitted[0]!;
    expect(ev).toMatchObject({ lineId: 'main', direction: 'out' });
    // Crossed between its sightings at 6 and 8 s (the second one beyond the margin), emitted 30 s later.
    expect(ev.timeMs).toBeGreaterThanOrEqual(T0 + 6000);
    expect(ev.timeMs).toBeLessThanOrEqual(T0 + 8000);
    expect(atSec).toBeGreaterThanOrEqual(36);
    expect(atSec).toBeLessThanOrEqual(39);
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 0, out: 1 });
    // Counted once: flushing does not count it again.
    expect(an.flush()).toEqual([]);
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 0, out: 1 });
  });

  it('waits heldCrossingMaxSec: 10 s, or with 0 not at all', () => {
    const at = (maxSec: number) => crawl(45, undefined, { heldCrossingMaxSec: maxSec }).emitted.map((e) => [e.atSec, e.ev.direction]);
    const [[crossedAt]] = at(0) as [[number, string]];
    expect(crossedAt).toBeGreaterThanOrEqual(7);
    expect(crossedAt).toBeLessThanOrEqual(8);
    expect(at(10)).toEqual([[crossedAt + 10, 'out']]);
  });

  it('is refused when the place then learns that its traffic runs the other way', () => {
    // From 16 s, a blue car every 4 s comes down through the same place ('in'), one sighting on each side.
    const blue = (y: number): Box => ({ ...car(y), rgb: [40, 60, 200] });
    const { an, emitted } = crawl(34, (t) => (t >= 16 && t % 4 === 0 ? [blue(LINE_Y - 80)] : t >= 16 && t % 4 === 1 ? [blue(LINE_Y + 80)] : []));
    emitted.push(...an.flush().map((ev) => ({ atSec: NaN, ev })));
    expect(emitted.map((e) => e.ev.direction)).toEqual(['in', 'in', 'in', 'in', 'in']);
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 5, out: 0 });
  });

  it('is counted by flush() at the end of a replay, not lost', () => {
    const { an, emitted } = crawl(20);
    expect(emitted).toEqual([]);
    const flushed = an.flush();
    expect(flushed.map((e) => e.direction)).toEqual(['out']);
    expect(flushed[0]!.timeMs).toBeLessThanOrEqual(T0 + 8000);
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 0, out: 1 });
  });

  it('is forgotten by reset(), with the counts', () => {
    const { an } = crawl(20);
    an.reset();
    expect(an.flush()).toEqual([]);
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 0, out: 0 });
  });
});
