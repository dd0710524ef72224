// Learns, online, how the typical vehicle's size and width grow down the image (ground-plane perspective
// makes apparent size close to linear in the image row), from blobs of tracks that really moved.

const BANDS = 8;
const PER_BAND = 48; // recent samples kept per band
const MIN_SAMPLES = 12; // total samples before the model is used
// Blobs below this × the area-weighted median size of their band are fragments (a roof, a bonnet) and do
// not vote; the floor also bounds how far below the area-weighted median the typical vehicle can fall.
const FRAGMENT_FRAC = 0.6;

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

  // Weighted least squares over per-band medians: medians ignore the odd lorry or fragment.
  private fit(): void {
    if (!this.dirty || !this.ready) return;
    this.dirty = false;
    const ys: number[] = [], ss: number[] = [], ws: number[] = [], hs: number[] = [], wt: number[] = [];
    for (let i = 0; i < BANDS; i++) {
      const n = Math.min(this.counts[i]!, PER_BAND);
      if (n < 3) continue;
      ys.push(this.y0 + (i + 0.5) * this.bandH);
      // Area-weighted medians: one vehicle broken into several fragments (a dark car, a windscreen the colour
      // of the road) casts many small votes; weighting by area keeps the typical size that of whole vehicles,
      // so a bad start cannot teach a too-small vehicle that then splits every blob (a self-reinforcing loop).
      // That median leans towards the biggest blobs, though (lorries, and vehicles that stayed one blob with
      // the one ahead or beside), which would teach a typical vehicle twice a car: so it only sets the floor
      // below which a blob is a fragment, and every blob above the floor then votes once.
      const sizes = this.sizes[i]!;
      const floor = FRAGMENT_FRAC * weightedMedian(sizes, sizes, n);
      ss.push(medianAbove(sizes, sizes, n, floor));
      ws.push(medianAbove(this.widths[i]!, sizes, n, floor));
      hs.push(medianAbove(this.heights[i]!, sizes, n, floor));
      wt.push(n);
    }
    if (ys.length === 0) return;
    const [a, b] = lineFit(ys, ss, wt);
    const [c, d] = lineFit(ys, ws, wt);
    const [e, f] = lineFit(ys, hs, wt);
    this.a = a; this.b = b; this.c = c; this.d = d; this.e = e; this.f = f;
    this.minSize = 0.25 * Math.min(...ss);
  }
}

/** Plain median of values[i] over the i < n whose sizes[i] reach floor. */
function medianAbove(values: Float64Array, sizes: Float64Array, n: number, floor: number): number {
  const kept: number[] = [];
  for (let i = 0; i < n; i++) if (sizes[i]! >= floor) kept.push(values[i]!);
  kept.sort((p, q) => p - q);
  return kept[(kept.length - 1) >> 1]!;
}

/** Median of values[0..n) where each value weighs sizes[i]² (its blob's area). */
function weightedMedian(values: Float64Array, sizes: Float64Array, n: number): number {
  const idx = Array.from({ length: n }, (_, i) => i).sort((p, q) => values[p]! - values[q]!);
  let total = 0;
  for (let i = 0; i < n; i++) total += sizes[i]! * sizes[i]!;
  let acc = 0;
  for (const i of idx) {
    acc += sizes[i]! * sizes[i]!;
    if (acc >= total / 2) return values[i]!;
  }
  return values[idx[n - 1]!]!;
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
