// Shadows darker than shadowMinRatio (a low sun): a cast shadow dims the road by one ratio everywhere, so
// once the scene's shadows have recurred at such a ratio they are taken out like lighter ones; the vehicles
// casting them, and dark vehicles, stay foreground.
import { describe, expect, it } from 'vitest';
import { BackgroundModel } from '../dist/src/analyze/background-model.js';
import { ShadowRatios, segmentForeground } from '../dist/src/analyze/foreground.js';
import { ANALYZER_DEFAULTS, type AnalyzerOptions } from '../dist/src/analyze/analyzer-options.js';
import { PN, PW, roadPlanes, type Patch } from './helpers/working-planes.js';

const N = PN, W = PW;

/** The road (grey levels from 90) with patches drawn over it, later ones on top. */
const planes = (patches: Patch[] = []) => roadPlanes({ base: 90, patches });

const dim = (k: number) => (r: number, g: number, b: number): [number, number, number] => [r * k, g * k, b * k];
const paint = (rgb: [number, number, number]) => (): [number, number, number] => rgb;

/** Segments `frames` (1 s apart) in order, learning shadow ratios with `options`; per frame, the fg mask. */
function segmentAll(frames: ReturnType<typeof planes>[], options: AnalyzerOptions = ANALYZER_DEFAULTS) {
  const mask = new Uint8Array(N).fill(1);
  const model = new BackgroundModel(N);
  model.initFromMedian([planes()], mask);
  const shadows = new ShadowRatios(N);
  return frames.map((cur, t) => {
    const fg = new Uint8Array(N);
    model.estimateGain(cur, mask, new Uint8Array(N));
    const floor = shadows.floor(options.shadowMinRatio, options.shadowLearnMinRatio, options.shadowMaxRatio);
    const ratios = shadows.teach(t * 1000);
    segmentForeground(cur, model.bg, model.gain, mask, options, new Float32Array(N), fg, undefined, floor, ratios);
    if (ratios) shadows.learn();
    return { fg, floor };
  });
}

/** Share of the patch's pixels that are foreground. */
function share(fg: Uint8Array, q: { x0: number; y0: number; x1: number; y1: number }): number {
  let n = 0, on = 0;
  for (let y = q.y0; y < q.y1; y++) for (let x = q.x0; x < q.x1; x++) { n++; on += fg[y * W + x]!; }
  return on / n;
}

describe('shadows darker than shadowMinRatio', () => {
  // Vehicles of different colours pass one per second, each casting a shadow at 0.33 of the road's brightness
  // (below shadowMinRatio, 0.4) beside it.
  const at = (t: number) => {
    const x0 = 4 + ((t * 9) % 36);
    const colours: [number, number, number][] = [[200, 40, 40], [40, 60, 200], [230, 230, 230], [40, 160, 60]];
    const car = { x0, y0: 10, x1: x0 + 10, y1: 20, f: paint(colours[t % 4]!) };
    const shadow = { x0: x0 + 10, y0: 12, x1: x0 + 22, y1: 22, f: dim(0.33) };
    return { car, shadow };
  };
  const frames = Array.from({ length: 40 }, (_, t) => planes([at(t).shadow, at(t).car]));

  it('are foreground at first, and taken out once they have recurred; the vehicles casting them stay foreground', () => {
    const out = segmentAll(frames);
    expect(share(out[0]!.fg, at(0).shadow)).toBeGreaterThan(0.9);
    expect(out[39]!.floor).toBeLessThan(0.33);
    expect(share(out[39]!.fg, at(39).shadow)).toBeLessThan(0.05);
    expect(share(out[39]!.fg, at(39).car)).toBeGreaterThan(0.95);
  });

  it('stay foreground with learning off (shadowLearnMinRatio at shadowMinRatio)', () => {
    const out = segmentAll(frames, { ...ANALYZER_DEFAULTS, shadowLearnMinRatio: ANALYZER_DEFAULTS.shadowMinRatio });
    expect(out[39]!.floor).toBe(ANALYZER_DEFAULTS.shadowMinRatio);
    expect(share(out[39]!.fg, at(39).shadow)).toBeGreaterThan(0.9);
  });

  it('a grey vehicle darker than shadowLearnMinRatio stays foreground in a scene that learnt its shadows', () => {
    const grey = { x0: 40, y0: 30, x1: 52, y1: 40, f: dim(0.22) };
    const out = segmentAll([...frames, planes([at(40).shadow, at(40).car, grey])]);
    expect(out[40]!.floor).toBeLessThan(0.33);
    expect(share(out[40]!.fg, grey)).toBeGreaterThan(0.95);
  });
});

describe('dark vehicles without shadows', () => {
  it('teach no shadow floor: grey cars of many shades pass and one at a shadow-like 0.35 stays foreground', () => {
    // One grey car per second, its brightness 0.2 to 0.4 of the road's in turn (dark paint, not one ratio).
    const car = (t: number) => ({ x0: 4 + ((t * 9) % 36), y0: 10, x1: 16 + ((t * 9) % 36), y1: 22, f: dim(0.2 + 0.2 * ((t * 7) % 10) / 10) });
    const last = { x0: 30, y0: 26, x1: 42, y1: 38, f: dim(0.35) };
    const out = segmentAll([...Array.from({ length: 40 }, (_, t) => planes([car(t)])), planes([last])]);
    expect(out.map((o) => o.floor)).toEqual(out.map(() => ANALYZER_DEFAULTS.shadowMinRatio));
    expect(share(out[40]!.fg, last)).toBeGreaterThan(0.95);
  });
});
