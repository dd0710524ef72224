// Learns, online, how the typical vehicle's size and width grow down the image (ground-plane perspective
// makes apparent size close to linear in the image row), from blobs of tracks that really moved.

const BANDS = 8;
const PER_BAND = 48; // recent samples kept per band
const MIN_SAMPLES = 12; // total samples before the model is used
// Sizes are compared in log units: a kernel of 0.1 (±10%) resolves a single vehicle from two merged ones
// (area ×2, size ×1.4) and from a fragment; samples within ±NEAR_MODE (±25%) of the mode are that vehicle.
const KDE_WIDTH = 0.1;
const NEAR_MODE = 0.25;
const KDE_STEP = 0.02; // log units per histogram bin
const KDE_RANGE = 1.5; // log ratios beyond ±1.5 (a factor of 4.5) are ignored: neither vehicle nor pair

export class PerspectiveModel {
  private readonly y0: number;
  private readonly bandH: number;
  private readonly sizes: Float64Array[] = [];
  private readonly widths: Float64Array[] = [];
  private readonly heights: Float64Array[] = [];
  private readonly counts = new Int32Array(BANDS);
  private total = 0;
  // Fitted size = a + b·y and width = c + d·y; NaN until fitted.
  private a = NaN;
  private b = 0;
  private c = NaN;
  private d = 0;
  private e = NaN;
  private f = 0;
  private dirty = false;
  private minSize = 0;
  private readonly kdeHist = new Float64Array(Math.round((2 * KDE_RANGE) / KDE_STEP) + 1);

  /** top/bottom: the ROI's full-resolution row range. */
  constructor(top: number, bottom: number) {
    this.y0 = top;
    this.bandH = Math.max(1, (bottom - top) / BANDS);
    for (let i = 0; i < BANDS; i++) {
      this.sizes.push(new Float64Array(PER_BAND));
      this.widths.push(new Float64Array(PER_BAND));
      this.heights.push(new Float64Array(PER_BAND));
    }
  }

  reset(): void {
    this.counts.fill(0);
    this.total = 0;
    this.a = NaN;
    this.c = NaN;
    this.dirty = false;
  }

  /** Adds one observation: centre row, sqrt(area), bbox width and height, all full-resolution px. */
  add(y: number, size: number, width: number, height: number): void {
    const band = Math.min(BANDS - 1, Math.max(0, Math.floor((y - this.y0) / this.bandH)));
    const k = this.counts[band]! % PER_BAND;
    this.sizes[band]![k] = size;
    this.widths[band]![k] = width;
    this.heights[band]![k] = height;
    this.counts[band]!++;
    this.total++;
    this.dirty = true;
  }

  get ready(): boolean {
    return this.total >= MIN_SAMPLES;
  }

  /** Typical vehicle sqrt(area) at row y (full px), or NaN before enough samples. */
  size(y: number): number {
    this.fit();
    return Number.isNaN(this.a) ? NaN : Math.max(this.minSize, this.a + this.b * y);
  }

  /**
   * Row of the horizon implied by the width fit (width ∝ distance below the horizon on a road plane), or
   * NaN when widths do not grow down the image enough to place it (e.g. a top-down camera).
   */
  horizon(): number {
    this.fit();
    if (Number.isNaN(this.c) || this.d <= 1e-3) return NaN;
    return -this.c / this.d;
  }

  /** Typical vehicle bbox height at row y (full px), or NaN. */
  height(y: number): number {
    this.fit();
    return Number.isNaN(this.e) ? NaN : Math.max(this.minSize, this.e + this.f * y);
  }

  /** Typical vehicle bbox width at row y (full px), or NaN. */
  width(y: number): number {
    this.fit();
    return Number.isNaN(this.c) ? NaN : Math.max(this.minSize, this.c + this.d * y);
  }

  // The typical vehicle is the commonest blob size, not the median: blobs of two vehicles that stayed one
  // (followers at 1-2 fps, neighbours abreast) and fragments of one vehicle (a dark car broken at its
  // windscreen) form modes of their own above and below it, and either can hold half the samples or half
  // the area of a band in dense or dark traffic. Sizes grow linearly down the image, so every sample is
  // compared with a line through the bands: the mode of log(size / line) over all bands together is the
  // single vehicle, and each band's median over the samples near that mode refits the line.
  private fit(): void {
    if (!this.dirty || !this.ready) return;
    this.dirty = false;
    // Start: a line through the per-band medians (any mode mix), used only to compare bands with each other.
    let ys: number[] = [], ss: number[] = [], ws: number[] = [], hs: number[] = [], wt: number[] = [];
    for (let i = 0; i < BANDS; i++) {
      const n = this.samplesIn(i);
      if (n < 3) continue;
      ys.push(this.bandY(i));
      ss.push(median(Array.from(this.sizes[i]!.subarray(0, n))));
      wt.push(n);
    }
    if (ys.length === 0) return;
    let [a, b] = lineFit(ys, ss, wt);
    for (let iter = 0; iter < 2; iter++) {
      const mode = this.logRatioMode(a, b);
      ys = []; ss = []; ws = []; hs = []; wt = [];
      for (let i = 0; i < BANDS; i++) {
        const expected = Math.max(1, a + b * this.bandY(i));
        const keep: number[] = [];
        for (let k = 0, n = this.samplesIn(i); k < n; k++) if (Math.abs(Math.log(this.sizes[i]![k]! / expected) - mode) <= NEAR_MODE) keep.push(k);
        if (keep.length < 2) continue;
        ys.push(this.bandY(i));
        ss.push(median(keep.map((k) => this.sizes[i]![k]!)));
        ws.push(median(keep.map((k) => this.widths[i]![k]!)));
        hs.push(median(keep.map((k) => this.heights[i]![k]!)));
        wt.push(keep.length);
      }
      if (ys.length === 0) return;
      [a, b] = lineFit(ys, ss, wt);
    }
    const [c, d] = lineFit(ys, ws, wt);
    const [e, f] = lineFit(ys, hs, wt);
    this.a = a; this.b = b; this.c = c; this.d = d; this.e = e; this.f = f;
    this.minSize = 0.25 * Math.min(...ss);
  }

  /** Samples held in band i (the newest PER_BAND). */
  private samplesIn(i: number): number {
    return Math.min(this.counts[i]!, PER_BAND);
  }

  /** Centre row of band i, full px. */
  private bandY(i: number): number {
    return this.y0 + (i + 0.5) * this.bandH;
  }

  /** Densest value of log(size / (a + b·y)) over every sample, by a Gaussian kernel of width KDE_WIDTH. */
  private logRatioMode(a: number, b: number): number {
    // Samples binned at KDE_STEP, then the kernel (cut at 3 widths) is run over the bins: a few thousand
    // operations per fit instead of one exp per sample per candidate.
    const hist = this.kdeHist;
    hist.fill(0);
    for (let i = 0; i < BANDS; i++) {
      const expected = Math.max(1, a + b * this.bandY(i));
      const n = this.samplesIn(i);
      for (let k = 0; k < n; k++) {
        const bin = Math.round((Math.log(this.sizes[i]![k]! / expected) + KDE_RANGE) / KDE_STEP);
        if (bin >= 0 && bin < hist.length) hist[bin]!++;
      }
    }
    const reach = Math.ceil((3 * KDE_WIDTH) / KDE_STEP);
    const inv = (KDE_STEP * KDE_STEP) / (2 * KDE_WIDTH * KDE_WIDTH);
    let best = 0, bestD = -1;
    for (let m = 0; m < hist.length; m++) {
      let dens = 0;
      for (let j = Math.max(0, m - reach); j <= Math.min(hist.length - 1, m + reach); j++) {
        if (hist[j]) dens += hist[j]! * Math.exp(-(j - m) * (j - m) * inv);
      }
      if (dens > bestD) { bestD = dens; best = m; }
    }
    return best * KDE_STEP - KDE_RANGE;
  }
}

function median(v: number[]): number {
  v.sort((p, q) => p - q);
  return v[(v.length - 1) >> 1]!;
}

// A single band gives a constant; the slope is clamped to non-negative (things never shrink towards the camera).
function lineFit(x: number[], y: number[], w: number[]): [number, number] {
  let sw = 0, sx = 0, sy = 0;
  for (let i = 0; i < x.length; i++) { sw += w[i]!; sx += w[i]! * x[i]!; sy += w[i]! * y[i]!; }
  const mx = sx / sw, my = sy / sw;
  let sxx = 0, sxy = 0;
  for (let i = 0; i < x.length; i++) { sxx += w[i]! * (x[i]! - mx) ** 2; sxy += w[i]! * (x[i]! - mx) * (y[i]! - my); }
  const slope = sxx > 0 ? Math.max(0, sxy / sxx) : 0;
  return [my - slope * mx, slope];
}
