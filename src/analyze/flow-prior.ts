// A grid over the ROI remembering how fast, and which way, vehicles usually move along the road axis at
// each place. At 1 fps the first link of a new track is ambiguous (the follower is often nearer than the
// vehicle itself); votes from every plausible pair, weighted by appearance, pile up at the true motion.

const DECAY_SEC = 300; // evidence fades over minutes, so a change of traffic pattern is followed
const BIN = 0.5; // histogram bin, vehicle sizes per second along the road axis
const MIN_WEIGHT = 1.5; // evidence needed before a cell predicts
const MIN_PEAK_SHARE = 0.4; // the peak (±1 bin) must hold this share of the cell's votes
export const STILL = 0.5; // sizes per second: below this a vehicle is standing (or its blob jitters)

export interface FlowEstimate {
  /** Usual velocity along the road axis, vehicle sizes per second (signed along the axis normal). */
  along: number;
  /** Mean sideways velocity of the vehicles moving at that speed (roads need not cross lines squarely). */
  lateral: number;
  weight: number;
}

export class FlowPrior {
  private readonly cols: number;
  private readonly rows: number;
  private readonly bins: number;
  private readonly hist: Float32Array;
  private readonly lat: Float32Array;
  private readonly scratchLat: Float64Array;
  private readonly total: Float64Array;
  private readonly t: Float64Array;
  private readonly scratch: Float64Array;

  /** Grid of `cell`-px cells over the box at (x0, y0) of width × height px; speeds up to maxSpeed sizes/s. */
  constructor(
    private readonly x0: number,
    private readonly y0: number,
    width: number,
    height: number,
    private readonly cell: number,
    private readonly maxSpeed: number,
  ) {
    this.cols = Math.max(1, Math.ceil(width / cell));
    this.rows = Math.max(1, Math.ceil(height / cell));
    this.bins = 2 * Math.ceil(maxSpeed / BIN) + 1;
    const n = this.cols * this.rows;
    this.hist = new Float32Array(n * this.bins);
    this.lat = new Float32Array(n * this.bins);
    this.total = new Float64Array(n);
    this.t = new Float64Array(n);
    this.scratch = new Float64Array(this.bins);
    this.scratchLat = new Float64Array(this.bins);
  }

  reset(): void {
    this.hist.fill(0);
    this.lat.fill(0);
    this.total.fill(0);
    this.t.fill(0);
  }

  private index(x: number, y: number): number {
    const c = Math.min(this.cols - 1, Math.max(0, Math.floor((x - this.x0) / this.cell)));
    const r = Math.min(this.rows - 1, Math.max(0, Math.floor((y - this.y0) / this.cell)));
    return r * this.cols + c;
  }

  private decay(i: number, tSec: number): void {
    const dt = tSec - this.t[i]!;
    if (dt > 0 && this.total[i]! > 0) {
      const f = Math.exp(-dt / DECAY_SEC);
      this.total[i]! *= f;
      const o = i * this.bins;
      for (let k = 0; k < this.bins; k++) {
        this.hist[o + k]! *= f;
        this.lat[o + k]! *= f;
      }
    }
    this.t[i] = tSec;
  }

  /**
   * Votes for motion `along` (sizes/s) in every cell on the link from (ax, ay) to (bx, by): at 1 fps a
   * vehicle is often seen once on each side of the line, so the places between learn from both ends.
   */
  vote(ax: number, ay: number, bx: number, by: number, along: number, lateral: number, weight: number, tSec: number): void {
    // Standing still says nothing about where a lane's traffic goes: a static blob (a parked car, a
    // background error) matches itself perfectly every frame, and would teach "no motion" to every new
    // track there, which at 1 fps makes each vehicle link to the one behind it.
    if (!(weight > 0) || !Number.isFinite(along) || Math.hypot(along, lateral) < STILL) return;
    const half = (this.bins - 1) / 2;
    const k = Math.round(along / BIN) + half;
    if (k < 0 || k >= this.bins) return;
    const steps = Math.max(1, Math.ceil(Math.hypot(bx - ax, by - ay) / this.cell));
    let last = -1;
    for (let s = 0; s <= steps; s++) {
      const i = this.index(ax + ((bx - ax) * s) / steps, ay + ((by - ay) * s) / steps);
      if (i === last) continue;
      last = i;
      this.decay(i, tSec);
      this.hist[i * this.bins + k]! += weight;
      this.lat[i * this.bins + k]! += weight * lateral;
      this.total[i]! += weight;
    }
  }

  /**
   * The usual along-axis speed at (x, y), or undefined where evidence is thin or split between speeds.
   * A cell with too little evidence borrows its 3×3 neighbourhood's (speeds vary smoothly over the road).
   * Reading decays the cells it reads to tSec, unless `peek` (a diagnostic that must not touch the counting).
   */
  at(x: number, y: number, tSec: number, peek = false): FlowEstimate | undefined {
    const i = this.index(x, y);
    const acc = this.scratch;
    const lat = this.scratchLat;
    acc.fill(0);
    lat.fill(0);
    let total = this.addCell(i, tSec, acc, lat, peek);
    const own = total;
    // The cell's own few votes, each way: borrowed evidence may fill in a thin cell, not overrule it.
    let ownPos = 0, ownNeg = 0;
    const half = (this.bins - 1) / 2;
    if (own > 0 && own < MIN_WEIGHT) {
      for (let k = 0; k < this.bins; k++) {
        if (k > half) ownPos += acc[k]!;
        else if (k < half) ownNeg += acc[k]!;
      }
    }
    if (total < MIN_WEIGHT) {
      const c0 = i % this.cols, r0 = (i - c0) / this.cols;
      for (let r = Math.max(0, r0 - 1); r <= Math.min(this.rows - 1, r0 + 1); r++) {
        for (let c = Math.max(0, c0 - 1); c <= Math.min(this.cols - 1, c0 + 1); c++) {
          if (r !== r0 || c !== c0) total += this.addCell(r * this.cols + c, tSec, acc, lat, peek);
        }
      }
    }
    if (total < MIN_WEIGHT) return undefined;
    let best = -1, bestMass = 0;
    for (let k = 0; k < this.bins; k++) {
      const m = (k > 0 ? acc[k - 1]! : 0) + acc[k]! + (k + 1 < this.bins ? acc[k + 1]! : 0);
      if (m > bestMass) { bestMass = m; best = k; }
    }
    if (bestMass < MIN_PEAK_SHARE * total) return undefined;
    // Centre of mass of the peak's three bins: finer than a bin.
    let s = 0, w = 0, l = 0;
    for (let k = Math.max(0, best - 1); k <= Math.min(this.bins - 1, best + 1); k++) { s += k * acc[k]!; w += acc[k]!; l += lat[k]!; }
    // A thin cell whose own votes mostly go the other way than its neighbours' lies between lanes of
    // opposite directions (a cell of one lane beside cells of the other): it has no usual motion.
    if (own < MIN_WEIGHT && (s / w > half ? ownNeg > ownPos : ownPos > ownNeg)) return undefined;
    return { along: (s / w - half) * BIN, lateral: l / w, weight: total };
  }

  private addCell(i: number, tSec: number, acc: Float64Array, lat: Float64Array, peek: boolean): number {
    let f = 1;
    if (peek) {
      const dt = tSec - this.t[i]!;
      if (dt > 0) f = Math.exp(-dt / DECAY_SEC);
    } else {
      this.decay(i, tSec);
    }
    if (this.total[i] === 0) return 0;
    const o = i * this.bins;
    for (let k = 0; k < this.bins; k++) {
      acc[k]! += f * this.hist[o + k]!;
      lat[k]! += f * this.lat[o + k]!;
    }
    return f * this.total[i]!;
  }
}
