// Learns, online, how the typical vehicle's size and width grow down the image (ground-plane perspective
// makes apparent size close to linear in the image row), from blobs of tracks that really moved.

const BANDS = 8;
const PER_BAND = 48; // recent samples kept per band
const MIN_SAMPLES = 12; // total samples before the model is used
// Sizes are compared in log units: samples within ±NEAR_MODE (±25%) of the typical line are that vehicle,
// which sets it apart from two merged ones (area ×2, size ×1.4), lorries and fragments.
const NEAR_MODE = 0.25;
// A single vehicle's blob fills at least MIN_FILL of its box (cars ~0.6–0.85); blobs of two or more vehicles
// merged along a queue or diagonally across lanes leave much of their box empty (~0.3–0.5), and so does a
// vehicle cut by the ROI's edge together with its shadow.
const MIN_FILL = 0.5;
// Candidate horizons for the consensus line: HORIZON_CANDIDATES rows, spaced by growing steps (×HORIZON_STEP).
const HORIZON_CANDIDATES = 49;
const HORIZON_STEP = 1.12;

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
  // Scratch for consensusLine: log sizes sorted within each band, two buffers for merging the log ratios to a
  // candidate line, and each band's start offset.
  private readonly consLogSize = new Float64Array(BANDS * PER_BAND);
  private readonly consA = new Float64Array(BANDS * PER_BAND);
  private readonly consB = new Float64Array(BANDS * PER_BAND);
  private readonly consStart = new Int32Array(BANDS + 1);

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

  /**
   * Adds one observation: centre row, sqrt(area), bbox width and height, all full-resolution px. A blob that
   * fills less than MIN_FILL of its box is not shaped like one vehicle and is not taken: at the start of a
   * 1-fps camera on a busy road, queues merged into one blob outnumbered the single cars, and the typical
   * vehicle learnt from them was three times a car's size for 150 s.
   */
  add(y: number, size: number, width: number, height: number): void {
    if (size * size < MIN_FILL * width * height) return;
    const band = Math.min(BANDS - 1, Math.max(0, Math.floor((y - this.y0) / this.bandH)));
    const k = this.counts[band]! % PER_BAND;
    this.sizes[band]![k] = size;
    this.widths[band]![k] = width;
    this.heights[band]![k] = height;
    this.counts[band]!++;
    this.total++;
    this.dirty = true;
  }

  /** Whether sizes are known: enough samples, and a fit made from them (until then size() is NaN). */
  get ready(): boolean {
    if (this.total < MIN_SAMPLES) return false;
    this.fit();
    return !Number.isNaN(this.a);
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
  // (followers at 1-2 fps, neighbours abreast), lorries, and fragments of one vehicle (a dark car broken at its
  // windscreen) form modes of their own above and below it, and either can hold half the samples or half
  // the area of a band in dense, heavy or dark traffic. Sizes grow in proportion to the distance below the
  // horizon, so the typical vehicle is the line size = k·(y − yh) that the most samples, over all bands
  // together, lie near (see consensusLine); each band's median over the samples near it refits the line.
  private fit(): void {
    if (!this.dirty || this.total < MIN_SAMPLES) return;
    this.dirty = false;
    let bandsWithSamples = 0;
    for (let i = 0; i < BANDS; i++) if (this.samplesIn(i) >= 3) bandsWithSamples++;
    if (bandsWithSamples === 0) return;
    let [a, b] = this.consensusLine();
    let ys: number[] = [], ss: number[] = [], ws: number[] = [], hs: number[] = [], wt: number[] = [];
    for (let iter = 0; iter < 2; iter++) {
      ys = []; ss = []; ws = []; hs = []; wt = [];
      for (let i = 0; i < BANDS; i++) {
        const expected = Math.max(1, a + b * this.bandY(i));
        const keep: number[] = [];
        for (let k = 0, n = this.samplesIn(i); k < n; k++) if (Math.abs(Math.log(this.sizes[i]![k]! / expected)) <= NEAR_MODE) keep.push(k);
        if (keep.length < 2) continue;
        ys.push(this.bandY(i));
        ss.push(lowerMedian(keep.map((k) => this.sizes[i]![k]!)));
        ws.push(lowerMedian(keep.map((k) => this.widths[i]![k]!)));
        hs.push(lowerMedian(keep.map((k) => this.heights[i]![k]!)));
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

  /**
   * The line size = k·(y − yh) that the most samples lie within ±NEAR_MODE of, over candidate horizons yh
   * from just above the top band to far above it (towards a camera looking straight down, where sizes hardly
   * grow). Bands holding mostly lorries or merged pairs cannot tilt it, as they tilt a line through the
   * bands' medians: at the start, at 1 fps, a few lorries near the camera and cars far away made such a line
   * three times too steep, and with blobs filtered and merged by it the model never recovered.
   */
  private consensusLine(): [number, number] {
    // Each band's log sizes, sorted once: a candidate horizon shifts a whole band by one amount, so the
    // sorted log ratios over all bands are a merge of the bands' sorted lists.
    const ls = this.consLogSize, start = this.consStart;
    let m = 0, ymin = Infinity;
    for (let i = 0; i < BANDS; i++) {
      start[i] = m;
      const n = this.samplesIn(i);
      for (let k = 0; k < n; k++) ls[m + k] = Math.log(this.sizes[i]![k]!);
      ls.subarray(m, m + n).sort();
      m += n;
      if (n > 0 && this.bandY(i) < ymin) ymin = this.bandY(i);
    }
    start[BANDS] = m;
    const span = this.bandH * BANDS;
    let best: [number, number] = [0, 0], bestCount = 0;
    for (let j = 0; j < HORIZON_CANDIDATES; j++) {
      // Candidates closer together near the top band, where the fitted sizes depend most on yh.
      const yh = ymin - 0.5 * this.bandH - (span * (Math.pow(HORIZON_STEP, j) - 1)) / 1.3;
      // Shifted bands into one buffer, then merged pairwise (8 → 4 → 2 → 1 sorted runs).
      let src = this.consA, dst = this.consB;
      for (let i = 0; i < BANDS; i++) {
        const sh = start[i + 1]! > start[i]! ? Math.log(this.bandY(i) - yh) : 0;
        for (let k = start[i]!; k < start[i + 1]!; k++) src[k] = ls[k]! - sh;
      }
      for (let width = 1; width < BANDS; width *= 2) {
        for (let i = 0; i < BANDS; i += 2 * width) {
          let a = start[i]!, b = start[Math.min(BANDS, i + width)]!, o = a;
          const aEnd = b, bEnd = start[Math.min(BANDS, i + 2 * width)]!;
          while (a < aEnd && b < bEnd) dst[o++] = src[a]! <= src[b]! ? src[a++]! : src[b++]!;
          while (a < aEnd) dst[o++] = src[a++]!;
          while (b < bEnd) dst[o++] = src[b++]!;
        }
        const t = src; src = dst; dst = t;
      }
      const vals = src;
      // The densest window for this horizon (the smaller sizes on a tie: pairs and lorries are bigger).
      let count = 0, centre = 0;
      for (let lo = 0, hi = 0; hi < m; hi++) {
        while (vals[hi]! - vals[lo]! > 2 * NEAR_MODE) lo++;
        if (hi - lo + 1 > count) { count = hi - lo + 1; centre = (vals[hi]! + vals[lo]!) / 2; }
      }
      // Equal counts go to the farther horizon: no more perspective than the samples demand. With samples in
      // a few bands only (at 1 fps, the far end of a receding road), many slopes hold the same samples.
      if (count >= bestCount) {
        bestCount = count;
        const k = Math.exp(centre);
        best = [-k * yh, k];
      }
    }
    return best;
  }

  /** Samples held in band i (the newest PER_BAND). */
  private samplesIn(i: number): number {
    return Math.min(this.counts[i]!, PER_BAND);
  }

  /** Centre row of band i, full px. */
  private bandY(i: number): number {
    return this.y0 + (i + 0.5) * this.bandH;
  }
}

/**
 * The lower median (of an even count, the smaller middle value, always one of the samples), sorting `v` in place:
 * the model's figures are a real vehicle's, never an average of two (the analyzer's `median`, for frame
 * intervals and its summaries, averages them). Counting was tuned with this one.
 */
function lowerMedian(v: number[]): number {
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
