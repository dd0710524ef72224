// Whether the camera still shows the view its ROI and lines were drawn on. Public traffic cameras are often
// pan-tilt-zoom cameras that an operator turns: the ROI then covers another patch of road, or none, and the
// counts go wrong without a sound (the simulated road at 2 fps, the camera turned by 3°: 51 counted where 33
// crossed in the next minute; turned by 9°: 19). The check compares the picture's structure (edges: lane markings,
// kerbs, verges), not its light, so day and night, clouds and shadows change it far less than a turn does.
//
// How: the gradient magnitude of the learnt background at the end of start-up is the reference (no vehicles in
// it). Each frame's gradient magnitude is summed into cells of CELL x CELL working pixels; every CHECK_FRAMES
// frames the sum (vehicles, which move, are smeared thin in it; the road's edges add up) is correlated with the
// reference (normalised cross-correlation over the ROI's cells). The first BASELINE_CHECKS give what a correct
// view scores here. A score under MOVED_SHARE of that, twice in a row, is a moved view; a shifted copy of the
// reference that scores well (SHIFT_MATCH) tells by how much it moved. A score back over it, twice, clears it.
// A check that matches well (RENEW_SHARE) renews the reference from the background learnt by then, so that the
// reference follows what changes slowly (the sun's shadows over a day, dusk and dawn, roadworks) and a daemon
// started at night is not told at noon that its camera moved; a turn is sudden, and is judged against the view of
// the latest good check.

import type { Planes } from './background-model.js';

/** Working pixels per cell side. */
const CELL = 2;
/** Frames summed into one check. */
const CHECK_FRAMES = 20;
/** Checks right after start-up that give what this view scores when it is right. */
const BASELINE_CHECKS = 3;
/**
 * A check scoring under this share of the baseline does not match the view. Turned by 1° (24 px), the simulated
 * road scores 0.10 of it; a queue standing over the lanes at 5 fps 0.68.
 */
const MOVED_SHARE = 0.35;
/** Checks in a row that must not match before the view is said to have moved (and match again to clear it). */
const CONFIRM = 2;
/** More frames than are analysed from a move's sinceMs to its finding (CONFIRM checks; one check more to spare). */
export const FRAMES_TO_FIND_A_MOVE = (CONFIRM + 1) * CHECK_FRAMES;
/** Shifts searched, full-resolution px each way, in steps of SHIFT_STEP_PX (625 shifts at any working scale). */
const MAX_SHIFT_PX = 96;
const SHIFT_STEP_PX = 8;
/**
 * A view whose baseline is under this has too little structure that stays (a bare road, a dark night at start-up)
 * to tell a move from noise: it is not judged (state() says nothing).
 */
const MIN_BASELINE = 0.3;
/** A check scoring at least this share of the baseline renews the reference from the learnt background. */
const RENEW_SHARE = 0.8;
/** A shifted reference names the shift when it scores this share of the baseline (a turn too far to see none). */
const SHIFT_MATCH = 0.5;

export interface ViewState {
  /** The latest check's score against the reference (normalised cross-correlation), and what the view scored right after start-up. */
  readonly score: number;
  readonly baseline: number;
  /** Whether the view no longer matches the one the ROI was learnt on (CONFIRM checks in a row). */
  readonly moved: boolean;
  /** When moved and the picture matches the start's shifted: how far, full-resolution px (x to the right, y down). */
  readonly shiftPx?: readonly [number, number];
  /**
   * When moved: the time (ms, the frames' clock) of the first frame of the first check that did not match, of the
   * CONFIRM in a row that found it. The move came after the check before it, which matched: at most CHECK_FRAMES
   * frames before this.
   */
  readonly sinceMs?: number;
}

export class ViewCheck {
  private readonly cw: number;
  private readonly ch: number;
  /** Cells whose every working pixel (and its right and lower neighbours) lies in the ROI. */
  private readonly valid: Uint8Array;
  private readonly validCount: number;
  private readonly ref: Float32Array;
  private readonly acc: Float32Array;
  private readonly lum: Float32Array;
  private hasRef = false;
  private frames = 0;
  private readonly baselineScores: number[] = [];
  private baseline = NaN;
  private score = NaN;
  private misses = 0;
  private hits = 0;
  private moved = false;
  private shift: [number, number] | undefined;
  private sinceMs: number | undefined;
  /** Time of the first frame summed into the check being gathered, and of the first of the latest misses in a row. */
  private windowStartMs = NaN;
  private firstMissMs = NaN;

  constructor(
    private readonly width: number,
    height: number,
    mask: Uint8Array,
    /** Full-resolution pixels per working pixel. */
    private readonly scale: number,
  ) {
    this.cw = Math.floor((width - 1) / CELL);
    this.ch = Math.floor((height - 1) / CELL);
    this.valid = new Uint8Array(this.cw * this.ch);
    let count = 0;
    for (let cy = 0; cy < this.ch; cy++) {
      for (let cx = 0; cx < this.cw; cx++) {
        let ok = 1;
        for (let y = cy * CELL; y <= cy * CELL + CELL && ok; y++) {
          for (let x = cx * CELL; x <= cx * CELL + CELL; x++) {
            if (!mask[y * width + x]) {
              ok = 0;
              break;
            }
          }
        }
        this.valid[cy * this.cw + cx] = ok;
        count += ok;
      }
    }
    this.validCount = count;
    this.ref = new Float32Array(this.cw * this.ch);
    this.acc = new Float32Array(this.cw * this.ch);
    this.lum = new Float32Array(width * height);
  }

  /** Forgets the learnt view (the analyzer starts again): nothing is known until setReference. */
  forget(): void {
    this.hasRef = false;
    this.moved = false;
    this.shift = this.sinceMs = undefined;
    this.baseline = NaN;
  }

  /** The reference: the learnt background's structure (start-up's end). */
  setReference(bg: Planes): void {
    this.ref.fill(0);
    this.addGradients(bg, this.ref);
    this.hasRef = this.validCount >= 16;
    this.acc.fill(0);
    this.frames = 0;
    this.baselineScores.length = 0;
    this.baseline = NaN;
    this.score = NaN;
    this.misses = this.hits = 0;
    this.moved = false;
    this.shift = this.sinceMs = undefined;
  }

  /** Takes one analysed frame in (`bg`: the background learnt so far); every CHECK_FRAMES frames, checks the view. */
  observe(cur: Planes, bg: Planes, tMs: number): void {
    if (!this.hasRef) return;
    if (this.frames === 0) this.windowStartMs = tMs;
    this.addGradients(cur, this.acc);
    if (++this.frames < CHECK_FRAMES) return;
    this.check();
    if (!this.moved && Number.isFinite(this.baseline) && this.score >= RENEW_SHARE * this.baseline) {
      this.ref.fill(0);
      this.addGradients(bg, this.ref);
    }
    this.acc.fill(0);
    this.frames = 0;
  }

  state(): ViewState | undefined {
    if (!this.hasRef || !(this.baseline >= MIN_BASELINE)) return undefined;
    return {
      score: this.score,
      baseline: this.baseline,
      moved: this.moved,
      ...(this.moved && this.shift ? { shiftPx: this.shift } : {}),
      ...(this.moved && this.sinceMs !== undefined ? { sinceMs: this.sinceMs } : {}),
    };
  }

  private check(): void {
    const s = this.correlate(0, 0);
    this.score = s;
    if (this.baselineScores.length < BASELINE_CHECKS) {
      this.baselineScores.push(s);
      if (this.baselineScores.length === BASELINE_CHECKS) this.baseline = [...this.baselineScores].sort((a, b) => a - b)[1]!;
      return;
    }
    if (!(this.baseline >= MIN_BASELINE)) return;
    if (s < MOVED_SHARE * this.baseline) {
      this.hits = 0;
      if (this.misses === 0) this.firstMissMs = this.windowStartMs;
      if (++this.misses >= CONFIRM && !this.moved) {
        this.moved = true;
        this.sinceMs = this.firstMissMs;
        // Once, when the move is found: the search is 625 correlations (about 6 ms at the usual 320x180).
        this.shift = this.bestShift(s);
      }
    } else {
      this.misses = 0;
      if (this.moved && ++this.hits >= CONFIRM) {
        this.moved = false;
        this.shift = this.sinceMs = undefined;
      }
    }
  }

  /** The shift of the reference (full-resolution px) under which the latest sum matches it well, if one does. */
  private bestShift(s0: number): [number, number] | undefined {
    let best = Math.max(s0, SHIFT_MATCH * this.baseline), at: [number, number] | undefined;
    // In cells: steps of about 8 px, and every other step's row and column of cells correlated, so that the search
    // costs about the same at every working scale (about 6 ms at the usual 320x180, once per move).
    const cellPx = CELL * this.scale;
    const step = Math.max(1, Math.round(SHIFT_STEP_PX / cellPx));
    const reach = step * Math.round(MAX_SHIFT_PX / (step * cellPx));
    for (let dy = -reach; dy <= reach; dy += step) {
      for (let dx = -reach; dx <= reach; dx += step) {
        if (dx === 0 && dy === 0) continue;
        const c = this.correlate(dx, dy, 2 * step);
        if (c > best) {
          best = c;
          at = [dx * CELL * this.scale, dy * CELL * this.scale];
        }
      }
    }
    return at;
  }

  /**
   * Normalised cross-correlation of the sum with the reference moved by (dx, dy) cells (the sum's cell (x, y) against
   * the reference's (x - dx, y - dy): the picture moved by (dx, dy)), over the cells valid in both (every
   * `stride`th row and column of them); 0 for under a quarter of the ROI's cells in common.
   */
  private correlate(dx: number, dy: number, stride = 1): number {
    const { cw, ch, valid, ref, acc } = this;
    let n = 0, sa = 0, sr = 0, saa = 0, srr = 0, sar = 0;
    for (let y = Math.max(0, dy); y < Math.min(ch, ch + dy); y += stride) {
      for (let x = Math.max(0, dx); x < Math.min(cw, cw + dx); x += stride) {
        const i = y * cw + x, j = (y - dy) * cw + (x - dx);
        if (!valid[i] || !valid[j]) continue;
        const a = acc[i]!, r = ref[j]!;
        n++; sa += a; sr += r; saa += a * a; srr += r * r; sar += a * r;
      }
    }
    if (n * stride * stride < this.validCount / 4) return 0;
    const cov = sar - (sa * sr) / n, va = saa - (sa * sa) / n, vr = srr - (sr * sr) / n;
    return va > 0 && vr > 0 ? cov / Math.sqrt(va * vr) : 0;
  }

  /** Adds each cell's gradient magnitude (|dx| + |dy| of the brightness, inside the ROI) to `out`. */
  private addGradients(p: Planes, out: Float32Array): void {
    const { width, cw, ch, valid, lum } = this;
    const { r, g, b } = p;
    for (let i = 0; i < lum.length; i++) lum[i] = r[i]! + g[i]! + b[i]!;
    for (let cy = 0; cy < ch; cy++) {
      for (let cx = 0; cx < cw; cx++) {
        const c = cy * cw + cx;
        if (!valid[c]) continue;
        let sum = 0;
        for (let y = cy * CELL; y < cy * CELL + CELL; y++) {
          for (let x = cx * CELL; x < cx * CELL + CELL; x++) {
            const i = y * width + x;
            const v = lum[i]!;
            sum += Math.abs(lum[i + 1]! - v) + Math.abs(lum[i + width]! - v);
          }
        }
        out[c] += sum;
      }
    }
  }
}

/**
 * What the daemon's health and log, and replay/eval, say about a camera whose view moved (see ViewCheck). `when`
 * tells the time of the check that found it (a replay's frames are timed from 0, not from the epoch).
 */
export function viewMovedMessage(cameraId: string, v: ViewState, when = (ms: number): string => new Date(ms).toISOString()): string {
  const since = v.sinceMs !== undefined ? ` since ${when(v.sinceMs)}` : '';
  const share = Math.max(0, Math.round((100 * v.score) / v.baseline));
  const shift = v.shiftPx ? `; it matches best moved by ${v.shiftPx[0]} px across and ${v.shiftPx[1]} px down` : '';
  return (
    `camera ${cameraId}: the picture no longer matches the view the ROI and lines were learnt on${since} ` +
    `(its edges match ${share}% as well as then${shift}): the camera was turned or zoomed (a pan-tilt-zoom camera moved to ` +
    `another preset?) or its view is blocked, and the counts at its lines are unreliable until it is back; check the ROI ` +
    `and lines on the dashboard's latest image, and if the camera stays so, redraw them and restart`
  );
}
