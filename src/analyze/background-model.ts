// Adaptive colour background at working resolution: per-pixel median start-up, robust global gain
// estimation (cloud, auto-exposure), and selective time-based update that absorbs stopped vehicles slowly.

/** Three planes (R, G, B) of one working-resolution image. */
export interface Planes {
  readonly r: Float32Array;
  readonly g: Float32Array;
  readonly b: Float32Array;
}

/** The planes by channel index, 0..2. */
const CHANNELS = ['r', 'g', 'b'] as const;

export function allocPlanes(n: number): Planes {
  return { r: new Float32Array(n), g: new Float32Array(n), b: new Float32Array(n) };
}

export function copyPlanes(src: Planes): Planes {
  return { r: src.r.slice(), g: src.g.slice(), b: src.b.slice() };
}

// Ratio histogram for the robust gain: bins of 0.005 in frame/background over [0, 4).
const GAIN_BINS = 800;
const GAIN_BIN = 0.005;
// Every GAIN_STRIDE-th pixel is enough for a median of thousands of samples, at a third of the cost.
const GAIN_STRIDE = 3;
// Below this the ratio is dominated by noise and quantisation.
const MIN_LEVEL = 12;
// Global changes smaller than this are left to the per-pixel update (avoids drift from a biased estimate).
const GAIN_DEADBAND = 0.02;
const SATURATED = 252;
// Start-up frames whose light differs from the last one's by more than this share, in any channel, are brought
// to its level before the median (see startupGains). Smaller changes make no foreground by themselves (the
// foreground threshold is about 14 grey levels on a road of 100), and are best left alone: evening out every
// frame, or every frame beyond GAIN_DEADBAND, moved the real clips' counts by several vehicles either way
// (over every phase, 15 -> 24 and 13 vehicles wrong; the Shenzhen clip, whose exposure wanders by 2-3%, at 5
// fps 34 -> 35 and 37 of 34), and 10% also evened out the simulator's slow drift (up to 12% over the
// 1-fps start-up), which moved default and dense traffic at 1 fps by a vehicle either way.
const STARTUP_STEP = 0.15;

/**
 * Rearranges a[0..n) so that a[k] holds the k-th smallest value, nothing larger before it and nothing smaller
 * after it (Hoare's selection, expected O(n)); returns a[k]. A typed-array sort per pixel cost ~3× more
 * (the start-up median runs once per pixel and channel, ~70 000 times at the default working size).
 */
function select(a: Float32Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}

/** The largest of a[0..k), which after select(a, n, k) is the (k-1)-th smallest value. */
function maxBelow(a: Float32Array, k: number): number {
  let m = a[0]!;
  for (let i = 1; i < k; i++) if (a[i]! > m) m = a[i]!;
  return m;
}

export class BackgroundModel {
  readonly bg: Planes;
  /** Gain of the last frame relative to the background, per channel (R, G, B). */
  readonly gain = new Float64Array([1, 1, 1]);
  private readonly hist = new Uint32Array(GAIN_BINS);
  private readonly n: number;

  constructor(n: number) {
    this.n = n;
    this.bg = allocPlanes(n);
  }

  /**
   * Per-pixel median of the start-up frames: vehicles covering a pixel less than half the time vanish. Pixels
   * [from, to) only, so that the work can be done in slices. `gains` (see startupGains), when given, are each
   * frame's per-channel gain over the last frame's light: each frame is divided by its own first.
   */
  initFromMedian(frames: readonly Planes[], mask: Uint8Array, from = 0, to = this.n, gains?: Float64Array, refClipped?: Uint8Array): void {
    const tmp = new Float32Array(frames.length);
    for (let c = 0; c < 3; c++) {
      const ch = CHANNELS[c]!;
      const out = this.bg[ch];
      for (let i = from; i < to; i++) {
        if (!mask[i]) continue;
        // Where the last frame clipped samples, a darker frame brought up to its light overshoots it (the clipped
        // part takes the gain that the camera cut off): only frames as bright or brighter count there.
        const clip = gains !== undefined && refClipped !== undefined && refClipped[i]! > 0;
        let k = 0;
        for (let f = 0; f < frames.length; f++) {
          const gf = gains ? gains[3 * f + c]! : 1;
          if (clip && gf < 1) continue;
          tmp[k++] = frames[f]![ch][i]! / gf;
        }
        const half = k >> 1;
        const upper = select(tmp, k, half);
        out[i] = k % 2 ? upper : 0.5 * (maxBelow(tmp, half) + upper);
      }
    }
  }

  /**
   * Each start-up frame's per-channel gain over the last one (3 per frame), for initFromMedian: the median ratio
   * over the ROI, where vehicles are a minority; 1 for a frame within STARTUP_STEP of it in every channel.
   * Start-up frames taken across a sudden change of light (a cloud, an auto-exposure jump) split about evenly
   * between two levels gave a median that fell, pixel by pixel, on either level as passing vehicles tipped it:
   * a patchwork that stayed foreground, learnt too slowly under its own foreground, and whose blobs counted
   * (illumination steps at 1 fps, seed 9, a step 10 s into the 20 frames of start-up: 44 of 23 outbound
   * vehicles, and 30 the wrong way).
   */
  startupGains(frames: readonly Planes[], mask: Uint8Array): Float64Array {
    const k = frames.length;
    const gains = new Float64Array(3 * k).fill(1);
    const ref = frames[k - 1];
    if (!ref) return gains;
    const g = [1, 1, 1];
    for (let f = 0; f < k - 1; f++) {
      let step = false;
      for (let c = 0; c < 3; c++) {
        const ch = CHANNELS[c]!;
        g[c] = this.medianRatio(frames[f]![ch], ref[ch], mask) ?? 1;
        if (Math.abs(g[c]! - 1) > STARTUP_STEP) step = true;
      }
      // All three channels or none: one channel alone would shift the frame's colour.
      if (step) for (let c = 0; c < 3; c++) gains[3 * f + c] = g[c]!;
    }
    return gains;
  }

  /**
   * Estimates this frame's per-channel gain over the background as the median ratio over pixels that were
   * background last frame (`prevFg` = 0), so vehicles barely bias it. Stores it in `this.gain`.
   */
  estimateGain(cur: Planes, mask: Uint8Array, prevFg: Uint8Array): void {
    for (let c = 0; c < 3; c++) {
      const ch = CHANNELS[c]!;
      this.gain[c] = this.medianRatio(cur[ch], this.bg[ch], mask, prevFg) ?? 1;
    }
  }

  /**
   * Median of x / m over every GAIN_STRIDE-th ROI pixel (outside `skip`, where given) with m at least MIN_LEVEL,
   * to GAIN_BIN; undefined for fewer than 16 such pixels.
   */
  private medianRatio(x: Float32Array, m: Float32Array, mask: Uint8Array, skip?: Uint8Array): number | undefined {
    const hist = this.hist;
    hist.fill(0);
    let count = 0;
    const inv = 1 / GAIN_BIN;
    for (let i = 0; i < this.n; i += GAIN_STRIDE) {
      if (!mask[i] || (skip && skip[i])) continue;
      const bv = m[i]!;
      if (bv < MIN_LEVEL) continue;
      let bin = ((x[i]! / bv) * inv) | 0;
      if (bin >= GAIN_BINS) bin = GAIN_BINS - 1;
      hist[bin]!++;
      count++;
    }
    if (count < 16) return undefined;
    let acc = 0;
    let bin = 0;
    for (; bin < GAIN_BINS; bin++) {
      acc += hist[bin]!;
      if (acc * 2 >= count) break;
    }
    return Math.max(GAIN_BIN, (bin + 0.5) * GAIN_BIN);
  }

  /**
   * Absorbs a significant global gain at once (everywhere, also under vehicles), then moves each pixel
   * towards the frame: background pixels with `alphaBg`, foreground pixels with the much smaller `alphaFg`.
   * A background pixel's step is taken from a difference of at most `limit` (the frame's foreground threshold):
   * slow light change stays within it and is followed in full, while a cast shadow, which is not foreground but
   * differs by far more, moves the model no more than noise would. Learnt at full weight, the shadows of passing
   * traffic pulled the road's model darker until the bare road showed as foreground (simulated gantry camera at
   * 1 fps, seed 6, with the noise allowance of segmentForeground: 15 phantom vehicles in 20 s on the centre line).
   * Like a running median, the model still follows a change that lasts most of the time.
   */
  update(cur: Planes, mask: Uint8Array, fg: Uint8Array, alphaBg: number, alphaFg: number, limit: number, relit?: Uint8Array): void {
    for (let c = 0; c < 3; c++) {
      const ch = CHANNELS[c]!;
      const x = cur[ch];
      const m = this.bg[ch];
      const g = this.gain[c]!;
      const absorb = Math.abs(g - 1) > GAIN_DEADBAND ? g : 1;
      for (let i = 0; i < this.n; i++) {
        if (!mask[i]) continue;
        const bv = m[i]! * absorb;
        const xv = x[i]!;
        const d = xv - bv;
        const step = fg[i] ? alphaFg * d : alphaBg * (d > limit ? limit : d < -limit ? -limit : d);
        // A clipped pixel only says "at least this bright": learning from it would darken the model of a
        // white marking, which then shows as foreground once the light dims again.
        // A pixel that took the step in part (see segmentForeground's relit) is learnt as it is now, at once.
        if (relit && relit[i]) m[i] = xv;
        else m[i] = xv >= SATURATED && bv >= xv ? bv : bv + step;
      }
    }
  }
}
