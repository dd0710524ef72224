// Background model: a global brightness step (cloud, auto-exposure) and a cast shadow are not
// foreground; a vehicle is. And a scene with lighting changes but no traffic counts nothing.
import { describe, expect, it } from 'vitest';
import { BackgroundModel, allocPlanes } from '../dist/src/analyze/background-model.js';
import { segmentForeground } from '../dist/src/analyze/foreground.js';
import { ANALYZER_DEFAULTS } from '../dist/src/analyze/analyzer-options.js';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { H, T0, W, roadCamera, roadFrame } from './helpers/synthetic-road.js';
import { PN, roadPlanes, type Patch } from './helpers/working-planes.js';

const N = PN;

/** The road with a bright marking area, times `gain`, with an optional patch and camera noise (see roadPlanes). */
function planes(gain: number, patch?: Patch, { base = 80, noise }: { base?: number; noise?: () => number } = {}) {
  return roadPlanes({ gain, patches: patch ? [patch] : [], base, marking: true, noise });
}

function foregroundCount(bgFrames: ReturnType<typeof planes>[], cur: ReturnType<typeof planes>): number {
  const mask = new Uint8Array(N).fill(1);
  const model = new BackgroundModel(N);
  model.initFromMedian(bgFrames, mask);
  model.estimateGain(cur, mask, new Uint8Array(N));
  const fg = new Uint8Array(N);
  segmentForeground(cur, model.bg, model.gain, mask, ANALYZER_DEFAULTS, new Float32Array(N), fg);
  return fg.reduce((a, v) => a + v, 0);
}

describe('background model', () => {
  const base = [planes(1), planes(1), planes(1)];

  it('a sudden global brightening or darkening produces no foreground', () => {
    for (const gain of [0.6, 0.75, 1.3, 1.45]) expect(foregroundCount(base, planes(gain)), `gain ${gain}`).toBe(0);
  });

  it('a cast shadow (darker, same chromaticity) is not foreground', () => {
    const shadow = planes(1, { x0: 5, y0: 5, x1: 30, y1: 30, f: (r, g, b) => [r * 0.6, g * 0.6, b * 0.6] });
    expect(foregroundCount(base, shadow)).toBe(0);
  });

  it('a coloured vehicle is foreground, also after a brightness step', () => {
    const car = (gain: number) => planes(gain, { x0: 10, y0: 10, x1: 20, y1: 18, f: () => [200, 40, 40] });
    expect(foregroundCount(base, car(1))).toBeGreaterThanOrEqual(70);
    expect(foregroundCount(base, car(1.3))).toBeGreaterThanOrEqual(70);
  });

  it('a shadow on a dark road is not foreground despite camera noise; a dark red car on it is', () => {
    let seed = 99;
    // Camera noise: about N(0, 3) per channel (a sum of four uniforms).
    const noise = (): number => {
      let a = 0;
      for (let k = 0; k < 4; k++) a += (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
      return ((a - 2) * 3) / Math.sqrt(4 / 12);
    };
    const patch = { x0: 5, y0: 5, x1: 35, y1: 35 };
    const dark = { base: 40, noise };
    const shadow = planes(1, { ...patch, f: (r, g, b) => [r * 0.55, g * 0.55, b * 0.55] }, dark);
    // 900 shadow pixels, their difference from the road (18 and more) above the threshold (14): only the
    // chromaticity test keeps them out.
    expect(foregroundCount([planes(1, undefined, { base: 40 })], shadow)).toBeLessThanOrEqual(18);
    const car = planes(1, { ...patch, f: () => [75, 25, 25] }, dark);
    expect(foregroundCount([planes(1, undefined, { base: 40 })], car)).toBeGreaterThanOrEqual(880);
  });

  it('the shadows of passing traffic do not darken the road in the background', () => {
    const mask = new Uint8Array(N).fill(1);
    const model = new BackgroundModel(N);
    model.initFromMedian([planes(1)], mask);
    const shadowed = planes(1, { x0: 30, y0: 10, x1: 56, y1: 34, f: (r, g, b) => [r * 0.55, g * 0.55, b * 0.55] });
    // A camera at 1 fps; a shadow over the road in one frame of three, for five minutes.
    const alphaBg = 1 - Math.exp(-1 / ANALYZER_DEFAULTS.bgTimeConstantSec);
    const alphaFg = 1 - Math.exp(-1 / ANALYZER_DEFAULTS.fgTimeConstantSec);
    const fg = new Uint8Array(N);
    for (let t = 0; t < 300; t++) {
      const cur = t % 3 === 0 ? shadowed : planes(1);
      model.estimateGain(cur, mask, fg);
      const thr = segmentForeground(cur, model.bg, model.gain, mask, ANALYZER_DEFAULTS, new Float32Array(N), fg);
      expect(fg.reduce((a, v) => a + v, 0), `frame ${t}`).toBe(0);
      model.update(cur, mask, fg, alphaBg, alphaFg, thr);
    }
    // The bare road is still background (learnt at full weight, a third of a 45% shadow pulls it 15% darker).
    segmentForeground(planes(1), model.bg, model.gain, mask, ANALYZER_DEFAULTS, new Float32Array(N), fg);
    expect(fg.reduce((a, v) => a + v, 0)).toBe(0);
  });

  it('the median start-up ignores a vehicle present in a minority of frames', () => {
    const withCar = planes(1, { x0: 10, y0: 10, x1: 20, y1: 18, f: () => [30, 30, 30] });
    expect(foregroundCount([withCar, planes(1), planes(1), withCar, planes(1)], planes(1))).toBe(0);
  });

  it('start-up frames taken across a brightness step give a background at one level, whichever way vehicles tip each pixel', () => {
    // Five frames under a cloud (0.65), then six in full light: a pixel's median falls between the two levels,
    // and a vehicle in one frame tips it to either side. A black car in a bright frame leaves its place at the
    // dark level, brighter in every later frame than the rest of the model says; a white van in a dark frame
    // leaves its place at the bright level.
    const car = { x0: 40, y0: 10, x1: 50, y1: 18, f: () => [10, 10, 10] as [number, number, number] };
    const van = { x0: 10, y0: 10, x1: 24, y1: 20, f: () => [250, 250, 250] as [number, number, number] };
    const frames = [planes(0.65), planes(0.65, van), planes(0.65), planes(0.65), planes(0.65), planes(1), planes(1, car), planes(1), planes(1), planes(1), planes(1)];
    const mask = new Uint8Array(N).fill(1);
    const model = new BackgroundModel(N);
    const gains = model.startupGains(frames, mask);
    model.initFromMedian(frames, mask, 0, N, gains);
    const fg = new Uint8Array(N);
    for (const gain of [0.65, 1]) {
      const cur = planes(gain);
      model.estimateGain(cur, mask, new Uint8Array(N));
      segmentForeground(cur, model.bg, model.gain, mask, ANALYZER_DEFAULTS, new Float32Array(N), fg);
      expect(fg.reduce((a, v) => a + v, 0), `road at gain ${gain}`).toBe(0);
    }
    // Each frame's gain over the last, and 1 for frames in the last one's light.
    expect(Array.from(gains.subarray(0, 3), (g) => Math.round(g * 100) / 100)).toEqual([0.65, 0.65, 0.65]);
    expect([...gains.subarray(15)]).toEqual(Array(18).fill(1));
    // A drift of exposure smaller than a step is left to the median.
    expect([...model.startupGains([planes(1.08), planes(0.95), planes(1)], mask)]).toEqual(Array(9).fill(1));
  });

  it('an empty road under repeated brightness steps counts nothing end to end', () => {
    const an = new CameraAnalyzer(roadCamera(), 'cameras[0]');
    const gains = [1, 1, 1, 1, 1, 1, 1.35, 1.35, 1.35, 0.65, 0.65, 1, 1, 1.4, 0.7, 0.7, 1];
    let events = 0;
    gains.forEach((g, t) => (events += an.process({ width: W, height: H, data: roadFrame([], g), timeMs: T0 + t * 1000 }).length));
    events += an.flush().length;
    expect(events).toBe(0);
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 0, out: 0 });
  });
});

describe('start-up median', () => {
  it('is the per-pixel median of the start-up frames, for odd and even frame counts', () => {
    let s = 12345;
    const rnd = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 255;
    for (const k of [1, 2, 5, 20, 21, 40]) {
      const frames = Array.from({ length: k }, () => {
        const p = allocPlanes(N);
        for (let i = 0; i < N; i++) {
          // Few distinct values, so that ties are common.
          p.r[i] = Math.round(rnd() / 32) * 32; p.g[i] = rnd(); p.b[i] = i % 7;
        }
        return p;
      });
      const mask = new Uint8Array(N).fill(1);
      mask[5] = 0;
      const model = new BackgroundModel(N);
      model.initFromMedian(frames, mask);
      for (const ch of ['r', 'g', 'b'] as const) {
        for (const i of [0, 5, 17, 1000, N - 1]) {
          const v = frames.map((f) => f[ch][i]!).sort((a, b) => a - b);
          const median = k % 2 ? v[k >> 1]! : (v[(k >> 1) - 1]! + v[k >> 1]!) / 2;
          expect(model.bg[ch][i], `${ch}[${i}] of ${k} frames`).toBeCloseTo(i === 5 ? 0 : median, 3);
        }
      }
    }
  });
});
