// Adaptive colour background at working resolution: per-pixel median start-up, robust global gain
// estimation (cloud, auto-exposure), and selective time-based update that absorbs stopped vehicles slowly.

/** Three planes (R, G, B) of one working-resolution image. */
export interface Planes {
  readonly r: Float32Array;
  readonly g: Float32Array;
  readonly b: Float32Array;
}

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
   * [from, to) only, so that the work can be done in slices.
   */
  initFromMedian(frames: readonly Planes[], mask: Uint8Array, from = 0, to = this.n): void {
    const k = frames.length;
    const tmp = new Float32Array(k);
    const half = k >> 1;
    for (const ch of ['r', 'g', 'b'] as const) {
      const out = this.bg[ch];
      for (let i = from; i < to; i++) {
        if (!mask[i]) continue;
        for (let f = 0; f < k; f++) tmp[f] = frames[f]![ch][i]!;
        const upper = select(tmp, k, half);
        out[i] = k % 2 ? upper : 0.5 * (maxBelow(tmp, half) + upper);
      }
    }
  }

  /**
   * Estimates this frame's per-channel gain over the background as the median ratio over pixels that were
   * background last frame (`prevFg` = 0), so vehicles barely bias it. Stores it in `this.gain`.
   */
  estimateGain(cur: Planes, mask: Uint8Array, prevFg: Uint8Array): void {
    const hist = this.hist;
    for (let c = 0; c < 3; c++) {
      const ch = c === 0 ? 'r' : c === 1 ? 'g' : 'b';
      const x = cur[ch];
      const m = this.bg[ch];
      hist.fill(0);
      let count = 0;
      const inv = 1 / GAIN_BIN;
      for (let i = 0; i < this.n; i += GAIN_STRIDE) {
        if (!mask[i] || prevFg[i]) continue;
        const bv = m[i]!;
        if (bv < MIN_LEVEL) continue;
        let bin = ((x[i]! / bv) * inv) | 0;
        if (bin >= GAIN_BINS) bin = GAIN_BINS - 1;
        hist[bin]!++;
        count++;
      }
      if (count < 16) {
        this.gain[c] = 1;
        continue;
      }
      let acc = 0;
      let bin = 0;
      for (; bin < GAIN_BINS; bin++) {
        acc += hist[bin]!;
        if (acc * 2 >= count) break;
      }
      this.gain[c] = Math.max(GAIN_BIN, (bin + 0.5) * GAIN_BIN);
    }
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
  update(cur: Planes, mask: Uint8Array, fg: Uint8Array, alphaBg: number, alphaFg: number, limit: number): void {
    for (let c = 0; c < 3; c++) {
      const ch = c === 0 ? 'r' : c === 1 ? 'g' : 'b';
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
        m[i] = xv >= SATURATED && bv >= xv ? bv : bv + step;
      }
    }
  }
}
