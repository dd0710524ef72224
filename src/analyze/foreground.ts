// Foreground segmentation against the gain-compensated background: a threshold from the frame's own noise
// statistics, and cast-shadow suppression (darker, same chromaticity).

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
  const lo = p.shadowMinRatio, hi = p.shadowMaxRatio, tol = p.shadowChromaTol;
  for (let i = 0; i < n; i++) {
    if (diff[i]! <= thr) {
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
        if (qmin >= lo && qmax <= hi && qmax - qmin <= tol + (3 * sigma) / bmin) {
          fg[i] = 0;
          continue;
        }
      }
    }
    fg[i] = 1;
  }
  return thr;
}
