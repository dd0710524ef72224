// Foreground segmentation against the gain-compensated background: a threshold from the frame's own noise
// statistics, and cast-shadow suppression (darker, same chromaticity), down to a darkness the scene's own
// shadows may teach (ShadowRatios).

import type { Planes } from './background-model.js';

export interface ForegroundParams {
  readonly noiseK: number;
  readonly minDiff: number;
  readonly shadowSuppression: boolean;
  readonly shadowMinRatio: number;
  readonly shadowMaxRatio: number;
  readonly shadowChromaTol: number;
}

const HIST = 256;

/**
 * Writes 1 into `fg` for ROI pixels that differ from gain × background by more than the threshold and are
 * not shadow; `diff` receives the per-pixel difference (max over channels). Returns the threshold used.
 * A pixel is shadow down to `shadowFloor` (frame / background brightness; p.shadowMinRatio unless the scene
 * taught a darker one); `ratios`, when given, counts the brightness ratio of every darker pixel that kept
 * the road's chromaticity, at any darkness (see ShadowRatios).
 * The noise sigma is estimated from the 25th percentile of the differences: at that rank the ROI is road
 * even when half of it is covered by vehicles. For the max of three |N(0,σ)| the 25th percentile is 0.9σ.
 */
export function segmentForeground(
  cur: Planes,
  bg: Planes,
  gain: Float64Array,
  mask: Uint8Array,
  p: ForegroundParams,
  diff: Float32Array,
  fg: Uint8Array,
  hist: Uint32Array = new Uint32Array(HIST),
  shadowFloor: number = p.shadowMinRatio,
  ratios?: Float64Array,
  relit?: { readonly prevFg: Uint8Array; readonly clippedNow: Float32Array; readonly clippedBefore: Float32Array; readonly out: Uint8Array },
): number {
  const n = mask.length;
  const gr = gain[0]!, gg = gain[1]!, gb = gain[2]!;
  const { r, g, b } = cur;
  hist.fill(0);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (!mask[i]) {
      diff[i] = 0;
      continue;
    }
    // The camera clips at 255: a white marking brightened by a gain step stays 255, so compare with the
    // clipped prediction.
    const pr = gr * bg.r[i]!, pg = gg * bg.g[i]!, pb = gb * bg.b[i]!;
    const dr = Math.abs(r[i]! - (pr < 255 ? pr : 255));
    const dg = Math.abs(g[i]! - (pg < 255 ? pg : 255));
    const db = Math.abs(b[i]! - (pb < 255 ? pb : 255));
    const d = dr > dg ? (dr > db ? dr : db) : dg > db ? dg : db;
    diff[i] = d;
    hist[d < HIST - 1 ? d | 0 : HIST - 1]!++;
    count++;
  }
  let acc = 0;
  let p25 = 0;
  for (; p25 < HIST; p25++) {
    acc += hist[p25]!;
    if (acc * 4 >= count) break;
  }
  const sigma = (p25 + 0.5) / 0.9;
  const thr = Math.max(p.minDiff, p.noiseK * sigma);
  const lo = shadowFloor, hi = p.shadowMaxRatio, tol = p.shadowChromaTol;
  if (relit) relit.out.fill(0);
  for (let i = 0; i < n; i++) {
    if (diff[i]! <= thr) {
      fg[i] = 0;
      continue;
    }
    if (relit && !relit.prevFg[i] && relitByStep(r[i]!, g[i]!, b[i]!, bg.r[i]!, bg.g[i]!, bg.b[i]!, gr, gg, gb, relit.clippedNow[i]!, relit.clippedBefore[i]!, thr)) {
      relit.out[i] = 1;
      fg[i] = 0;
      continue;
    }
    if (p.shadowSuppression) {
      const br = gr * bg.r[i]!, bgg = gg * bg.g[i]!, bb = gb * bg.b[i]!;
      if (br > 16 && bgg > 16 && bb > 16) {
        const qr = r[i]! / br, qg = g[i]! / bgg, qb = b[i]! / bb;
        const qmax = qr > qg ? (qr > qb ? qr : qb) : qg > qb ? qg : qb;
        const qmin = qr < qg ? (qr < qb ? qr : qb) : qg < qb ? qg : qb;
        // A shadow keeps the road's chromaticity, but camera noise (sigma per channel) spreads the channel
        // ratios by about sigma / background: on a dark road a shadow's ratios differ by more than `tol` from
        // noise alone, and its pixels came out as foreground around the vehicle. Three sigmas of that spread are
        // allowed on top of `tol` (simulated default traffic, seed 7, 2 fps, 75 s: foreground pixels outside
        // every vehicle's box 2,287 -> 1,911).
        const bmin = br < bgg ? (br < bb ? br : bb) : bgg < bb ? bgg : bb;
        const keepsChroma = qmax <= hi && qmax - qmin <= tol + (3 * sigma) / bmin;
        if (ratios && keepsChroma) ratios[Math.min(RATIO_BINS - 1, (((qr + qg + qb) / 3) * RATIO_BINS) | 0)]! += 1;
        if (keepsChroma && qmin >= lo) {
          fg[i] = 0;
          continue;
        }
      }
    }
    fg[i] = 1;
  }
  return thr;
}

/**
 * Whether a pixel that was road in the last frame took a step of light (prediction gain × background) only in
 * part, as far as clipped samples explain. A working pixel averages a block of the frame; where a white marking
 * fills part of it, a brightening clips the marking at 255 while the road beside it takes the full gain, so
 * the block ends up short of gain × its average: by at most the clipped share of its samples now × 255 ×
 * (gain - 1) (a clipped sample was at most 255 before), and no darker than before. A darkening, likewise,
 * uncovers brightness that samples clipped when the background was learnt had hidden: the block ends up above
 * gain × its average by at most that share × 255 × (1 - gain), and no brighter than before. Taken for
 * foreground, such pixels along every marking made blobs for as long as the background took to learn them under
 * foreground (simulated empty road, seeds 1-6: 50 phantom vehicles after steps of 30-50%).
 */
function relitByStep(
  r: number, g: number, b: number, br: number, bgg: number, bb: number, gr: number, gg: number, gb: number,
  clippedNow: number, clippedBefore: number, tol: number,
): boolean {
  return partly(r, br, gr, clippedNow, clippedBefore, tol) && partly(g, bgg, gg, clippedNow, clippedBefore, tol) && partly(b, bb, gb, clippedNow, clippedBefore, tol);
}

function partly(x: number, m: number, gain: number, clippedNow: number, clippedBefore: number, tol: number): boolean {
  const pred = gain * m;
  if (gain >= 1) return x >= m - tol && x <= pred + tol && pred - x <= clippedNow * 255 * (gain - 1) + tol;
  return x <= m + tol && x >= pred - tol && x - pred <= clippedBefore * 255 * (1 - gain) + tol;
}

/** Bins of the ratio histogram over frame / background brightness 0..1, 0.025 wide. */
export const RATIO_BINS = 40;
// The histogram forgets with this time constant (s): long enough that shadows recurring with every vehicle
// build a peak, while one vehicle's flat-coloured body, seen for a few seconds, stays a small part of it.
const RATIO_MEMORY_SEC = 60;
// A peak holds at least this many times as many pixels as the bins 2-3 bins away on either side...
const PEAK_SHARPNESS = 3;
// ... and recurs: a frame shows it when the bin holds this share of the frame's darker pixels...
const PRESENT = 0.1;
// ... and at least this share of the frames with darker pixels show it...
const RECURRING = 0.5;
// ... of at least this many such frames (forgetting as the histogram does)...
const MIN_FRAMES = 10;
// ... where a frame has darker pixels when they are at least this share of the ROI's (a vehicle's shadow).
const DARKER_SHARE = 0.001;

/**
 * What the scene's own cast shadows teach. A shadow on the road dims it by about one ratio everywhere (the sun
 * is blocked, the sky still lights it), so the brightness ratios (frame / background) of darker foreground
 * pixels that keep the road's chromaticity pile up in a sharp peak there; vehicle bodies spread over every
 * ratio. A low sun casts shadows darker than shadowMinRatio: they stayed foreground and joined vehicles in
 * neighbouring lanes into one blob. Where the fullest ratio lies below shadowMinRatio, in a sharp and
 * recurring peak, the floor drops to just below it, but never under shadowLearnMinRatio: a daylight shadow is
 * lit by the sky, and darker peaks come from things all vehicles share (window glass, tyres). Each frame time
 * teaches once, so replayed start-up frames do not count twice.
 */
export class ShadowRatios {
  /** Sums over the frames taught, forgetting with RATIO_MEMORY_SEC: pixels per bin... */
  private readonly hist = new Float64Array(RATIO_BINS);
  /** ... frames in which the bin held at least PRESENT of the frame's darker pixels... */
  private readonly present = new Float64Array(RATIO_BINS);
  /** ... and frames with darker pixels (at least DARKER_SHARE of the ROI's). */
  private frames = 0;
  /** The frame being taught (see teach). */
  private readonly frame = new Float64Array(RATIO_BINS);
  private keep = 0;
  private lastMs = -Infinity;

  constructor(private readonly roiPixels: number) {}

  /**
   * The histogram to count frame tMs's pixels into (zeroed), to be folded in with learn(); undefined for a
   * frame time taught before.
   */
  teach(tMs: number): Float64Array | undefined {
    if (!(tMs > this.lastMs)) return undefined;
    this.keep = Number.isFinite(this.lastMs) ? Math.exp(-(tMs - this.lastMs) / 1000 / RATIO_MEMORY_SEC) : 0;
    this.lastMs = tMs;
    this.frame.fill(0);
    return this.frame;
  }

  /** Folds the frame counted since teach() into the memory. */
  learn(): void {
    const f = this.frame, keep = this.keep;
    let total = 0;
    for (let k = 0; k < RATIO_BINS; k++) total += f[k]!;
    const counts = total >= DARKER_SHARE * this.roiPixels;
    this.frames = this.frames * keep + (counts ? 1 : 0);
    for (let k = 0; k < RATIO_BINS; k++) {
      this.hist[k] = this.hist[k]! * keep + f[k]!;
      this.present[k] = this.present[k]! * keep + (counts && f[k]! >= PRESENT * total ? 1 : 0);
    }
  }

  /** The darkest ratio taken for shadow: `min`, or lower (down to `learnMin`) below a sharp peak under it. */
  floor(min: number, learnMin: number, max: number): number {
    if (learnMin >= min || this.frames < MIN_FRAMES) return min;
    const h = this.hist;
    // The fullest bin between learnMin and max, with room for its flanks on both sides.
    let m = -1;
    const from = Math.max(3, Math.floor(learnMin * RATIO_BINS)), to = Math.min(RATIO_BINS - 4, Math.floor(max * RATIO_BINS));
    for (let k = from; k < to; k++) if (m < 0 || h[k]! > h[m]!) m = k;
    // Only a peak below shadowMinRatio (one at or above it is taken for shadow already).
    if (m < 0 || m / RATIO_BINS >= min) return min;
    const flanks = (h[m - 3]! + h[m - 2]! + h[m + 2]! + h[m + 3]!) / 4;
    if (h[m]! < PEAK_SHARPNESS * flanks) return min;
    // Recurring: in most frames with darker pixels, not one vehicle's flat-coloured body seen for a while.
    if (Math.max(this.present[m - 1]!, this.present[m]!, this.present[m + 1]!) < RECURRING * this.frames) return min;
    // Two bins below the peak's: noise and JPEG spread a shadow's ratios over about that.
    return Math.max(learnMin, (m - 2) / RATIO_BINS);
  }

  reset(): void {
    this.hist.fill(0);
    this.present.fill(0);
    this.frames = 0;
    this.lastMs = -Infinity;
  }
}
