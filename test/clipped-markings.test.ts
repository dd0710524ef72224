// Bright road markings clip at 255 when the light steps up: a working pixel that averages part of a marking and
// part of the road then takes the step only in part. Such pixels are road, not vehicles, whichever way the light
// steps and also when the start-up spans a step; a vehicle on the marking still is a vehicle.
import { describe, expect, it } from 'vitest';
import { BackgroundModel } from '../dist/src/analyze/background-model.js';
import { segmentForeground } from '../dist/src/analyze/foreground.js';
import { ANALYZER_DEFAULTS } from '../dist/src/analyze/analyzer-options.js';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { H, T0, W, roadCamera, roadFrame, type Box } from './helpers/synthetic-road.js';
import { PN, roadPlanes } from './helpers/working-planes.js';

// Yellow road studs or painted squares, 11 px a side, whose edges fall inside the analyzer's 4 × 4 blocks
// (downscale 4): the blocks along them average marking and road. A brightening clips their red and green only.
const MARKINGS: readonly Box[] = [106.5, 226.5, 346.5, 466.5].flatMap((x) => [66.5, 146.5, 226.5, 306.5].map((y): Box => ({ x, y, w: 11, h: 11, rgb: [235, 210, 90] })));

/** Tracks started and events counted over a road with markings at these gains, one frame a second. */
function runRoad(gains: readonly number[], vehicle?: { from: number; box: (t: number) => Box }) {
  const an = new CameraAnalyzer(roadCamera(), 'cameras[0]');
  let events = 0;
  gains.forEach((g, t) => {
    const boxes = vehicle && t >= vehicle.from ? [...MARKINGS, vehicle.box(t - vehicle.from)] : MARKINGS;
    events += an.process({ width: W, height: H, data: roadFrame(boxes, g), timeMs: T0 + t * 1000 }).length;
  });
  events += an.flush().length;
  return { events, tracks: an.stats().tracks };
}

describe('road markings clipped by a step of light', () => {
  it('start no tracks when the light steps up, down and up again', () => {
    const gains = [...Array(10).fill(1), 1.4, 1.4, 1.4, 1.4, 0.7, 0.7, 0.7, 1, 1, 1.45, 1.45, 1.45, 1];
    expect(runRoad(gains)).toEqual({ events: 0, tracks: 0 });
  });

  it('start no tracks when the start-up spans a brightening and the light then drops', () => {
    const gains = [...Array(5).fill(0.85), ...Array(6).fill(1.3), 1.3, 1.3, 0.8, 0.8, 0.8, 1.3];
    expect(runRoad(gains)).toEqual({ events: 0, tracks: 0 });
  });

  it('a car crossing the line on a marking just after a brightening still counts', () => {
    const gains = [...Array(10).fill(1), ...Array(8).fill(1.4)];
    // Blue, driving down over the markings at x = 106.5 and across the line at y = 180, 40 px a second.
    const car = (t: number): Box => ({ x: 108, y: 100 + 40 * t, w: 48, h: 36, rgb: [40, 60, 200] });
    expect(runRoad(gains, { from: 11, box: car }).events).toBe(1);
  });
});

describe('segmentForeground with clipped samples', () => {
  const mask = new Uint8Array(PN).fill(1);
  // A block short of its prediction looks like a shadow (darker, same colour): this judges the clipping alone.
  const NO_SHADOWS = { ...ANALYZER_DEFAULTS, shadowSuppression: false };
  // One working pixel: three quarters marking at 215, one quarter road at 100; the light steps up by 1.4.
  const block = (marking: number, road: number, gain: number) => 0.75 * Math.min(255, marking * gain) + 0.25 * Math.min(255, road * gain);
  function judge(cur: number, bgValue: number, gain: number, clippedNow: number, clippedBefore = 0) {
    const model = new BackgroundModel(PN);
    model.initFromMedian([roadPlanes()], mask);
    const planes = roadPlanes({ gain });
    for (const ch of ['r', 'g', 'b'] as const) { model.bg[ch][0] = bgValue; planes[ch][0] = cur; }
    model.estimateGain(planes, mask, new Uint8Array(PN));
    const fg = new Uint8Array(PN), out = new Uint8Array(PN);
    const clip = (v: number) => Float32Array.from({ length: PN }, (_, i) => (i === 0 ? v : 0));
    segmentForeground(planes, model.bg, model.gain, mask, NO_SHADOWS, new Float32Array(PN), fg, undefined, undefined, undefined, {
      prevFg: new Uint8Array(PN), clippedNow: clip(clippedNow), clippedBefore: clip(clippedBefore), out,
    });
    return { fg: fg[0], relit: out[0], gain: model.gain[0]! };
  }

  it('takes a block short of gain × background by its clipped part for road, and learns it', () => {
    const before = block(215, 100, 1), after = block(215, 100, 1.4);
    const r = judge(after, before, 1.4, 0.75);
    expect(r.gain).toBeCloseTo(1.4, 1);
    // 1.4 × 186 = 261 predicted, 226 seen: beyond the noise threshold (14), but the clipped marking explains it.
    expect(1.4 * before - after).toBeGreaterThan(30);
    expect(r).toMatchObject({ fg: 0, relit: 1 });
  });

  it('keeps such a block foreground when none of its samples clipped, or when it got darker than before', () => {
    const before = block(215, 100, 1), after = block(215, 100, 1.4);
    expect(judge(after, before, 1.4, 0)).toMatchObject({ fg: 1, relit: 0 });
    // A dark vehicle over the marking: darker than the block was before the step.
    expect(judge(before - 40, before, 1.4, 0.25)).toMatchObject({ fg: 1, relit: 0 });
  });

  it('takes a block above gain × background after a darkening by the part that clipped when it was learnt', () => {
    // Learnt in bright light with the marking clipped (255 for 1.4 × 215), then the light drops to 0.6 of it.
    const learnt = block(215, 100, 1.4), seen = block(215 * 1.4 * 0.6, 100 * 1.4 * 0.6, 1);
    expect(seen - 0.6 * learnt).toBeGreaterThan(14);
    expect(judge(seen, learnt, 0.6, 0, 0.75)).toMatchObject({ fg: 0, relit: 1 });
    expect(judge(seen, learnt, 0.6, 0, 0)).toMatchObject({ fg: 1, relit: 0 });
  });
});
