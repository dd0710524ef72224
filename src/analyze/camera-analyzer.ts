// One camera's analyzer: ROI crop → background → foreground → blobs → tracks → line crossings.
// Pure computation on reused typed arrays; frames are never kept after process() returns.

import { ViewCheck, type ViewState } from './view-check.js';
import { ConfigError } from '../errors.js';
import type { CameraConfig, Point } from '../config/config-types.js';
import type { AnalyzerFrame, CrossingEvent, LineReach, VehicleClass } from './analyzer-types.js';
import { FRAME_SIZE_KEYS, resolveAnalyzerOptions, type AnalyzerOptions } from './analyzer-options.js';
import { buildRoiGeometry, checkFrameContainsRoi, sampleRoi, type RoiGeometry } from './roi-mask.js';
import { allocPlanes, BackgroundModel, copyPlanes, type Planes } from './background-model.js';
import { segmentForeground, ShadowRatios } from './foreground.js';
import { close, dilate } from './morphology.js';
import { ComponentLabeler } from './connected-components.js';
import { componentsToDetections, type Detection } from './blob-filter.js';
import { PerspectiveModel } from './perspective-model.js';
import { FlowPrior, STILL } from './flow-prior.js';
import { GroundPlane } from './ground-plane.js';
import { COUNTED, LineCounter } from './line-counter.js';
import { Tracker, type SteadySighting, type SteadyTriple, type Track, type TrackCrossing } from './tracker.js';
import { lineReachWarning } from './line-reach.js';

// Frame interval assumed for the first frame after start-up (only scales the first background update).
const FIRST_DT_SEC = 0.2;
// Flow prior cell, working px: about a near lane's width, so opposite directions stay apart.
const FLOW_CELL = 12;
// Share of the vehicles seen steadily (see relearnFromSteady) the start-up's usual motion may run against before it
// is learnt again from them. Against a start-up that learnt it right: at most 18% (simulator seeds 1–9, every
// scenario and placement; the shared clips, every phase); against the wrong ones found: 35% and 93% (docs/analyzer.md).
const RELEARN_SHARE = 0.3;
// At most this many held crossings (see settleHeld and heldCrossingMaxSec; one per vehicle, a few bytes each);
// beyond it the oldest counts at once.
const HELD_MAX = 256;
// The start-up median runs in slices of about this many pixel-frames (a few ms each), each a step of its own
// (see steps()).
const MEDIAN_STEP_SAMPLES = 30_000;
/** Frame intervals kept for lineReach's median interval. */
const DT_KEEP = 15;
/** Points sampled along each line, and steps along a motion, for lineReach. */
const REACH_POINTS = 9;
const REACH_MARCH = 64;

/**
 * Called with the blobs of each frame analysed for counting (not the start-up's learning passes), in full-resolution
 * px, before the tracker links them: for diagnostics such as `eval-sim`'s account of where missed vehicles were.
 * The blobs are the analyzer's own and must not be changed.
 */
export type BlobObserver = (timeMs: number, blobs: readonly Detection[]) => void;

/** A start-up frame, buffered until the background is learnt: its ROI planes and clipped shares (0–255). */
interface BootstrapFrame {
  planes: Planes;
  clipped: Uint8Array;
  timeMs: number;
}

/**
 * One camera's analyzer at a given working scale. The frame-size options (see FRAME_SIZE_KEYS) are known only
 * once a frame has been decoded, so cameras use it through CameraAnalyzer (below), which sets them from their
 * first frame.
 */
class ScaledAnalyzer {
  readonly options: AnalyzerOptions;
  private readonly camera: CameraConfig;
  private readonly path: string;
  private readonly geom: RoiGeometry;
  private readonly n: number;
  private readonly cur: Planes;
  private readonly bgModel: BackgroundModel;
  private readonly diff: Float32Array;
  /** The foreground threshold of the latest frame (see segmentForeground). */
  private thr = Infinity;
  private readonly fgRaw: Uint8Array;
  private readonly fg: Uint8Array;
  private readonly fgPrev: Uint8Array;
  /** Pixels that took this frame's step of light only in part (see segmentForeground), when it had one. */
  private readonly relit: Uint8Array;
  /** Share of clipped samples per pixel of the live frame (see sampleRoi). */
  private readonly clipped: Float32Array;
  /** ... and of the live frame each pixel was last road in: what the background there was learnt from. */
  private readonly bgClipped: Float32Array;
  /** The planes `clipped` belongs to. */
  private clipFor: Planes | undefined;
  private readonly tmp1: Uint8Array;
  private readonly tmp2: Uint8Array;
  private readonly hist = new Uint32Array(256);
  private readonly shadows: ShadowRatios;
  private readonly labeler: ComponentLabeler;
  private readonly persp: PerspectiveModel;
  private readonly flow: FlowPrior;
  private readonly ground: GroundPlane;
  private readonly lineCounter: LineCounter;
  private readonly tracker: Tracker;
  /** Start-up frames, with the share of clipped samples per pixel (see sampleRoi) in 1/255ths. */
  private bootstrap: BootstrapFrame[] = [];
  /** Crossings held until the usual motion where they happened is known (see settleHeld), oldest first. */
  private held: { crossing: TrackCrossing; event: CrossingEvent; sinceMs: number }[] = [];
  private initialised = false;
  private lastT = NaN;
  private checkedSize = '';
  private frames = 0;
  private totalMs = 0;
  /** Each line's unit normal, full-resolution px. */
  private readonly normals: { nx: number; ny: number }[];
  /** Per line, for lineReach (see noteOnLine): tracks seen on it that ended, those of them seen once, and those it counted. */
  private readonly tracksOn: Uint32Array;
  private readonly tracksOnce: Uint32Array;
  private readonly tracksCounted: Uint32Array;
  /** Live tracks seen on a line so far, and the lines (indices). */
  private readonly watch = new Map<Track, Set<number>>();
  /** The latest frame intervals (s), for lineReach; a ring of DT_KEEP. */
  private readonly dts = new Float64Array(DT_KEEP);
  private dtCount = 0;
  /** Whether the camera still shows the view the ROI was learnt on (see ViewCheck). */
  private readonly view: ViewCheck;

  constructor(camera: CameraConfig, path: string, options: AnalyzerOptions, private readonly observer?: BlobObserver) {
    this.camera = camera;
    this.path = path;
    this.options = options;
    const o = this.options;
    this.geom = buildRoiGeometry(camera.roi, o.downscale);
    if (this.geom.maskCount < 16) {
      throw new ConfigError(`${path}.roi: covers only ${this.geom.maskCount} working pixels at analyzer.downscale ${o.downscale}; draw a larger ROI or lower downscale`);
    }
    const n = (this.n = this.geom.width * this.geom.height);
    this.cur = allocPlanes(n);
    this.bgModel = new BackgroundModel(n);
    this.diff = new Float32Array(n);
    this.fgRaw = new Uint8Array(n);
    this.fg = new Uint8Array(n);
    this.fgPrev = new Uint8Array(n);
    this.relit = new Uint8Array(n);
    this.clipped = new Float32Array(n);
    this.bgClipped = new Float32Array(n);
    this.tmp1 = new Uint8Array(n);
    this.tmp2 = new Uint8Array(n);
    this.labeler = new ComponentLabeler(n);
    this.view = new ViewCheck(this.geom.width, this.geom.height, this.geom.mask, this.geom.scale);
    this.shadows = new ShadowRatios(this.geom.maskCount);
    const g = this.geom;
    const x1 = g.x0 + g.width * g.scale, y1 = g.y0 + g.height * g.scale;
    this.persp = new PerspectiveModel(g.y0, y1);
    this.flow = new FlowPrior(g.x0, g.y0, g.width * g.scale, g.height * g.scale, FLOW_CELL * g.scale, o.maxSpeedSizesPerSec);
    this.lineCounter = new LineCounter(camera.lines, o.downscale);
    const normals = (this.normals = camera.lines.map((l) => {
      const dx = l.to[0] - l.from[0], dy = l.to[1] - l.from[1];
      const len = Math.hypot(dx, dy);
      return { nx: -dy / len, ny: dx / len };
    }));
    this.tracksOn = new Uint32Array(camera.lines.length);
    this.tracksOnce = new Uint32Array(camera.lines.length);
    this.tracksCounted = new Uint32Array(camera.lines.length);
    const yref = (g.y0 + y1) / 2;
    this.ground = new GroundPlane(this.persp, (g.x0 + x1) / 2, yref, g.y0);
    this.tracker = new Tracker(o, this.lineCounter, normals, this.flow, this.persp, this.ground, yref, { x0: g.x0, y0: g.y0, x1, y1 });
  }

  /**
   * CameraAnalyzer.process() in steps, for a caller that shares its thread (the daemon): each step is a few
   * milliseconds of work and yields the crossings it completed. An ordinary frame is one step; the frame that ends the
   * start-up is dozens (the background median in slices, then each buffered frame of the learning and
   * counting passes), so a caller that lets its event loop run between steps is never held for the ~0.5 s
   * the whole start-up takes. The frame's pixels are read before the first step returns.
   */
  *steps(frame: AnalyzerFrame): Generator<CrossingEvent[], void, undefined> {
    let t0 = performance.now();
    const inner = this.stepsUntimed(frame);
    for (;;) {
      const r = inner.next();
      this.totalMs += performance.now() - t0; // CPU time only: not the caller's time between steps
      if (r.done) break;
      yield r.value;
      t0 = performance.now();
    }
    this.frames++;
  }

  /** Refuses a frame the ROI does not fit or whose data is short, naming the fix (once per size and scale). */
  checkFrame(frame: AnalyzerFrame): void {
    const scale = frame.scale ?? 1;
    // Re-checked whenever size or scale changes (decoders restarted with another decodeScale; a camera whose
    // frames change size gets a new ScaledAnalyzer, see CameraAnalyzer): stepsUntimed's sampling relies on both.
    const key = `${frame.width}x${frame.height}@${scale}`;
    if (key !== this.checkedSize) {
      checkFrameContainsRoi(this.geom, frame.width, frame.height, scale, this.path);
      if (frame.data.length < frame.width * frame.height * 4) {
        throw new ConfigError(`${this.path}: frame data has ${frame.data.length} bytes, expected ${frame.width * frame.height * 4} for RGBA ${frame.width}x${frame.height}`);
      }
      this.checkedSize = key;
    }
  }

  private *stepsUntimed(frame: AnalyzerFrame): Generator<CrossingEvent[], void, undefined> {
    this.checkFrame(frame);
    const scale = frame.scale ?? 1;
    if (!this.initialised) {
      const planes = allocPlanes(this.n);
      sampleRoi(frame.data, frame.width, scale, this.geom, planes.r, planes.g, planes.b, this.clipped);
      const clipped = Uint8Array.from(this.clipped, (v) => Math.round(v * 255));
      const last = this.bootstrap[this.bootstrap.length - 1];
      if (!last || frame.timeMs > last.timeMs) this.bootstrap.push({ planes, clipped, timeMs: frame.timeMs });
      const o = this.options;
      const span = (frame.timeMs - this.bootstrap[0]!.timeMs) / 1000;
      if (this.bootstrap.length >= o.bootstrapMaxFrames || (this.bootstrap.length >= o.bootstrapMinFrames && span >= o.bootstrapSec)) {
        yield* this.finishBootstrap();
      }
    } else {
      sampleRoi(frame.data, frame.width, scale, this.geom, this.cur.r, this.cur.g, this.cur.b, this.clipped);
      this.clipFor = this.cur;
      this.view.observe(this.cur, this.bgModel.bg, frame.timeMs);
      yield this.analyse(this.cur, frame.timeMs);
    }
  }

  /** True while the start-up frames are being buffered (the background is not yet learnt). */
  get starting(): boolean {
    return !this.initialised;
  }

  /**
   * Ends counting for now (at the end of a replay, at the daemon's shutdown): start-up, if not over, ends
   * early so the buffered frames are analysed, and every crossing still held is settled (see settleHeld):
   * each counts unless what is known by then refuses it. Returns the events of those counted.
   */
  flush(): CrossingEvent[] {
    const events = this.initialised || this.bootstrap.length === 0 ? [] : [...this.finishBootstrap()].flat();
    this.admit(this.tracker.release(), this.lastT, events);
    events.push(...this.settleHeld(this.lastT, true));
    return events;
  }

  counts(): { lineId: string; in: number; out: number }[] {
    return this.lineCounter.ids.map((lineId, i) => ({ lineId, in: this.lineCounter.inCounts[i]!, out: this.lineCounter.outCounts[i]! }));
  }

  stats(): { frames: number; tracks: number; avgMs: number } {
    return { frames: this.frames, tracks: this.tracker.created, avgMs: this.frames ? this.totalMs / this.frames : 0 };
  }

  /**
   * Whether the ROI reaches far enough past each line for the camera's frame rate, from the usual motion learnt
   * so far: at 1 fps a car near the camera moves 200–400 px between frames, and one seen only on one side of a
   * line is not counted there (see README, cameras[].roi). For each of REACH_POINTS points along the line inside
   * the ROI: one frame interval of the usual motion forward and back, and how much of each stays in the ROI.
   */
  lineReach(): LineReach[] {
    const n = Math.min(this.dtCount, DT_KEEP);
    const interval = n > 0 ? median(Array.from(this.dts.subarray(0, n))) : null;
    return this.camera.lines.map((line, i) => {
      let samples = 0;
      const step: number[] = [], stepBack: number[] = [], before: number[] = [], after: number[] = [], near: number[] = [], both: number[] = [];
      const depth: number[] = [], depthIn: number[] = [], depthOut: number[] = [];
      const { nx, ny } = this.normals[i]!;
      for (let k = 0; k < REACH_POINTS; k++) {
        const f = (k + 0.5) / REACH_POINTS;
        const x = line.from[0] + f * (line.to[0] - line.from[0]), y = line.from[1] + f * (line.to[1] - line.from[1]);
        if (!this.inRoi(x, y)) continue;
        samples++;
        depthIn.push(this.roiDepth(x, y, nx, ny));
        depthOut.push(this.roiDepth(x, y, -nx, -ny));
        depth.push(depthIn.at(-1)! + depthOut.at(-1)!);
        const s = interval === null || !this.initialised ? undefined : this.tracker.usualStep(x, y, this.lastT / 1000, interval);
        if (!s) continue;
        const len = Math.hypot(s.fx - x, s.fy - y), backLen = Math.hypot(s.bx - x, s.by - y);
        const a = this.roiRun(x, y, s.bx, s.by), b = this.roiRun(x, y, s.fx, s.fy);
        step.push(len);
        stepBack.push(backLen);
        before.push(a * backLen);
        after.push(b * len);
        near.push(Math.min(1, a + b));
        both.push(Math.max(0, a + b - 1));
      }
      const m = (v: number[]): number | null => (v.length ? median(v) : null);
      return {
        lineId: line.id, samples, known: step.length, frameIntervalSec: interval, stepPx: m(step), stepBackPx: m(stepBack), beforePx: m(before), afterPx: m(after), seenNear: m(near), bothSides: m(both),
        depthPx: m(depth), depthInSidePx: m(depthIn), depthOutSidePx: m(depthOut),
        vehiclesOnLine: this.tracksOn[i]!, seenOnlyOnLine: this.tracksOnce[i]!, countedOnLine: this.tracksCounted[i]!,
      };
    });
  }

  /** Whether the camera still shows the view the ROI was learnt on; undefined until that is known (see ViewCheck). */
  viewState(): ViewState | undefined {
    return this.view.state();
  }

  /** The warnings `reach` (by default lineReach() now) gives for this camera's lines (see lineReachWarning). */
  lineReachWarnings(reach: readonly LineReach[] = this.lineReach()): { lineId: string; message: string }[] {
    const tracks = { made: this.tracker.created, linked: this.tracker.linked };
    const out: { lineId: string; message: string }[] = [];
    for (const r of reach) {
      const message = lineReachWarning(this.camera.id, r, tracks);
      if (message !== undefined) out.push({ lineId: r.lineId, message });
    }
    return out;
  }

  private inRoi(x: number, y: number): boolean {
    const g = this.geom;
    const c = Math.floor((x - g.x0) / g.scale), r = Math.floor((y - g.y0) / g.scale);
    return c >= 0 && r >= 0 && c < g.width && r < g.height && g.mask[r * g.width + c] === 1;
  }

  /** How far (full-resolution px, to a working pixel) the ROI reaches from (x, y) along the unit direction (dx, dy). */
  private roiDepth(x: number, y: number, dx: number, dy: number): number {
    const step = this.geom.scale;
    let s = 0;
    while (this.inRoi(x + (s + step) * dx, y + (s + step) * dy)) s += step;
    return s;
  }

  /** The share of the segment from (x, y) to (x1, y1) that lies in the ROI before it first leaves it. */
  private roiRun(x: number, y: number, x1: number, y1: number): number {
    for (let k = 1; k <= REACH_MARCH; k++) {
      const f = k / REACH_MARCH;
      if (!this.inRoi(x + f * (x1 - x), y + f * (y1 - y))) return (k - 1) / REACH_MARCH;
    }
    return 1;
  }

  reset(): void {
    this.dtCount = 0;
    this.tracksOn.fill(0);
    this.tracksOnce.fill(0);
    this.tracksCounted.fill(0);
    this.watch.clear();
    this.bootstrap = [];
    this.held = [];
    this.initialised = false;
    this.lastT = NaN;
    this.frames = 0;
    this.totalMs = 0;
    this.fgPrev.fill(0);
    this.bgClipped.fill(0);
    this.tracker.reset();
    this.tracker.created = 0;
    this.tracker.linked = 0;
    this.lineCounter.reset();
    this.flow.reset();
    this.persp.reset();
    this.shadows.reset();
    this.view.forget();
  }

  /** The start-up, one step per slice of the median and per buffered frame of each pass (see steps()). */
  private *finishBootstrap(): Generator<CrossingEvent[], void, undefined> {
    const frames = this.bootstrap;
    this.bootstrap = [];
    const planes = frames.map((f) => f.planes);
    const gains = this.bgModel.startupGains(planes, this.geom.mask);
    yield [];
    const slice = Math.max(256, Math.ceil(MEDIAN_STEP_SAMPLES / frames.length));
    // The background is learnt from frames in the last one's light where it clipped samples (see initFromMedian).
    const ref = frames[frames.length - 1]!.clipped;
    for (let from = 0; from < this.n; from += slice) {
      this.bgModel.initFromMedian(planes, this.geom.mask, from, Math.min(this.n, from + slice), gains, ref);
      yield [];
    }
    for (let i = 0; i < this.n; i++) this.bgClipped[i] = ref[i]! / 255;
    this.initialised = true;
    this.view.setReference(this.bgModel.bg);
    // Two learning passes over the start-up frames, so the counting pass (and a 1-fps camera) starts
    // knowing the perspective (from blobs that moved) and then the usual motion in ground coordinates.
    yield* this.learningPass(frames);
    this.flow.reset();
    const seen = yield* this.learningPass(frames);
    // A third pass, only where the second learnt the usual motion against the vehicles it saw steadily, learns it
    // again from theirs (see relearnFromSteady). They are looked for one frame per step.
    const triples: SteadyTriple[] = [];
    for (let f = 0; f + 2 < seen.length; f++) {
      this.tracker.steadyTriples(seen[f]!, seen[f + 1]!, seen[f + 2]!, triples);
      yield [];
    }
    if (this.relearnFromSteady(triples)) yield* this.learningPass(frames);
    for (const f of frames) {
      this.useClipped(f);
      yield this.analyse(f.planes, f.timeMs);
    }
  }

  /**
   * Whether the usual motion the start-up learnt is to be learnt again. At 1 fps a vehicle's own step and the step
   * to the one behind it look alike (see Tracker.steadyTriples), and the start-up's links can settle on the wrong
   * one over much of the view: traffic moving away learnt as coming nearer, every crossing then refused as a wrong
   * link or counted the wrong way. Vehicles seen steadily in three frames in a row tell which it is: where, for
   * RELEARN_SHARE of them (by weight) or more, the learnt motion at their middle sighting runs the other way, it is
   * replaced by theirs, and the caller's next pass learns on from there. Otherwise nothing changes.
   */
  private relearnFromSteady(triples: readonly SteadyTriple[]): boolean {
    let agree = 0, against = 0;
    for (const t of triples) {
      const a = this.flow.at(t.d1.x, t.d1.y, t.tSec, true);
      if (!a || Math.abs(a.along) < STILL) continue;
      if (a.along * t.along > 0) agree += t.weight;
      else against += t.weight;
    }
    if (!(against > 0 && against >= RELEARN_SHARE * (agree + against))) return false;
    this.flow.reset();
    // Each triple votes over its whole way, first sighting to last, as a confirmed link votes over its step.
    for (const t of triples) {
      this.flow.vote(t.d0.x, t.d0.y, t.d2.x, t.d2.y, t.along, t.lateral, t.weight, t.tSec);
    }
    return true;
  }

  /** One learning pass over the start-up frames, one step per frame (nothing is counted); each frame's blobs. */
  private *learningPass(frames: readonly BootstrapFrame[]): Generator<CrossingEvent[], SteadySighting[], undefined> {
    const seen: SteadySighting[] = [];
    for (const f of frames) {
      this.useClipped(f);
      const dets = this.detect(f.planes, f.timeMs);
      seen.push({ dets, tMs: f.timeMs });
      this.tracker.step(dets, f.timeMs, 0, true);
      yield [];
    }
    this.tracker.reset();
    return seen;
  }

  /** Makes a start-up frame's clipped shares those of the frame segmented next (see segment). */
  private useClipped(f: { planes: Planes; clipped: Uint8Array }): void {
    for (let i = 0; i < this.n; i++) this.clipped[i] = f.clipped[i]! / 255;
    this.clipFor = f.planes;
  }

  private analyse(cur: Planes, tMs: number): CrossingEvent[] {
    const o = this.options;
    const g = this.geom;
    let dtSec = (tMs - this.lastT) / 1000;
    if (!(dtSec > 0)) {
      if (tMs <= this.lastT) return []; // duplicate or out-of-order frame: nothing new to learn
      dtSec = FIRST_DT_SEC;
    }
    // An outage ends every track; their crossings still awaiting a next link (see Tracker.confirm) are held.
    const released = dtSec > o.maxGapSec ? this.tracker.endAll() : [];
    const frameDt = Math.min(dtSec, o.maxGapSec);
    if (Number.isFinite(this.lastT) && dtSec <= o.maxGapSec) this.dts[this.dtCount++ % DT_KEEP] = dtSec;
    this.lastT = tMs;

    // Crossings held in earlier frames, judged by what those frames taught.
    const events = this.settleHeld(tMs, false);
    this.admit(released, tMs, events);
    this.admit(this.detectAndTrack(cur, tMs, false, frameDt), tMs, events);

    // Background learns everywhere, slowly under (dilated) foreground so stopped vehicles are kept out, and
    // elsewhere by at most the foreground threshold per step, so cast shadows are kept out too.
    dilate(this.fg, g.width, g.height, 1, this.fgPrev, this.tmp1);
    const alphaBg = 1 - Math.exp(-frameDt / o.bgTimeConstantSec);
    const alphaFg = 1 - Math.exp(-frameDt / o.fgTimeConstantSec);
    // segment() judged `relit` for this frame when its clipped shares were at hand.
    const clipKnown = cur === this.clipFor;
    this.bgModel.update(cur, g.mask, this.fgPrev, alphaBg, alphaFg, this.thr, clipKnown ? this.relit : undefined);
    if (clipKnown) for (let i = 0; i < this.n; i++) if (!this.fgPrev[i]) this.bgClipped[i] = this.clipped[i]!;
    return events;
  }

  /**
   * Crossings found at tMs: counted ones become events at once; held (provisional) ones wait in `held`, the
   * oldest settled as counted when HELD_MAX wait already.
   */
  private admit(crossings: readonly TrackCrossing[], tMs: number, events: CrossingEvent[]): void {
    for (const c of crossings) {
      if (!c.provisional) {
        events.push(this.toEvent(c));
        continue;
      }
      if (this.held.length >= HELD_MAX) events.push(...this.settle(this.held.shift()!, true));
      this.held.push({ crossing: c, event: this.toEvent(c), sinceMs: tMs });
    }
  }

  /**
   * Settles the held crossings whose place now has a usual motion (counted if they run with it, refused as
   * wrong links if against), and those held heldCrossingMaxSec by tMs, or all with `all` (counted where none
   * is known yet); returns the events of those counted, each with the time of its crossing.
   */
  private settleHeld(tMs: number, all: boolean): CrossingEvent[] {
    const events: CrossingEvent[] = [];
    this.held = this.held.filter((h) => {
      const { crossing: c } = h;
      const verdict = this.tracker.withFlow(c.direction, c.x, c.y, tMs);
      if (verdict === undefined && !all && tMs - h.sinceMs < this.options.heldCrossingMaxSec * 1000) return true;
      events.push(...this.settle(h, verdict ?? true));
      return false;
    });
    return events;
  }

  private settle(h: { crossing: TrackCrossing; event: CrossingEvent }, counted: boolean): CrossingEvent[] {
    this.lineCounter.settle(h.crossing, counted);
    return counted ? [h.event] : [];
  }

  /** Segments the frame and feeds the tracker; leaves the foreground mask in `this.fg`. */
  private detectAndTrack(cur: Planes, tMs: number, learnOnly: boolean, frameDt = FIRST_DT_SEC): TrackCrossing[] {
    const dets = this.detect(cur, tMs);
    if (!learnOnly) this.observer?.(tMs, dets);
    // Fragments of one vehicle cross within a fraction of a frame interval of each other.
    const dupWindowMs = Math.min(1000, 400 + 0.3 * frameDt * 1000);
    const crossings = this.tracker.step(dets, tMs, dupWindowMs, learnOnly);
    if (!learnOnly) this.noteOnLine(tMs);
    return crossings;
  }

  /**
   * Background subtraction into `this.fgRaw`, shadows taken out down to the darkness the scene's shadows have
   * taught so far; a frame time not seen before teaches it too.
   */
  private segment(cur: Planes, tMs: number): void {
    const o = this.options;
    const g = this.geom;
    this.bgModel.estimateGain(cur, g.mask, this.fgPrev);
    const floor = this.shadows.floor(o.shadowMinRatio, o.shadowLearnMinRatio, o.shadowMaxRatio);
    const ratios = this.shadows.teach(tMs);
    // Only a frame whose clipped shares are at hand may take pixels that took a step of light in part for road
    // (the background learns them only when the frame is analysed for counting: see analyse).
    const relit = cur === this.clipFor ? { prevFg: this.fgPrev, clippedNow: this.clipped, clippedBefore: this.bgClipped, out: this.relit } : undefined;
    this.thr = segmentForeground(cur, this.bgModel.bg, this.bgModel.gain, g.mask, o, this.diff, this.fgRaw, this.hist, floor, ratios, relit);
    if (ratios) this.shadows.learn();
  }

  /** Background subtraction → blobs → detections; leaves the foreground mask in `this.fg`. */
  private detect(cur: Planes, tMs: number): Detection[] {
    const o = this.options;
    const g = this.geom;
    this.segment(cur, tMs);
    close(this.fgRaw, g.width, g.height, 1, this.fg, this.tmp1, this.tmp2);
    const comps = this.labeler.label(this.fg, g.width, g.height, cur);
    // Blobs of vehicles abreast are cut across the usual motion where it is known.
    return componentsToDetections(comps, this.labeler.labels, cur, g, this.persp, o, (x, y) => this.tracker.imageDirection(x, y, tMs / 1000));
  }

  /**
   * Per line, for lineReach: each track seen on it (its blob across the line), tallied when it ends, and how
   * many of those were seen in that one frame only. Such a vehicle was seen on no other frame, on neither side
   * of the line, and cannot be counted there: the ROI around the line is shorter than its travel between frames.
   */
  private noteOnLine(tMs: number): void {
    for (const T of this.tracker.tracks) {
      if (T.lastT !== tMs) continue;
      const D = T.det;
      for (let i = 0; i < this.lineCounter.count; i++) {
        if (!this.lineCounter.spans(i, D.x, D.y, D.bx, D.by, D.bw, D.bh)) continue;
        const on = this.watch.get(T);
        if (on) on.add(i);
        else this.watch.set(T, new Set([i]));
      }
    }
    const live = new Set(this.tracker.tracks);
    for (const [T, on] of this.watch) {
      if (live.has(T)) continue;
      this.watch.delete(T);
      for (const i of on) {
        this.tracksOn[i]!++;
        if (T.hits === 1) this.tracksOnce[i]!++;
        if (T.lines.counted[i] === COUNTED) this.tracksCounted[i]!++;
      }
    }
  }

  private toEvent(c: TrackCrossing): CrossingEvent {
    const D: Detection = c.det;
    const T = c.track;
    return {
      cameraId: this.camera.id,
      lineId: this.lineCounter.ids[c.line]!,
      direction: c.direction,
      timeMs: Math.round(c.timeMs),
      trackId: T.id,
      vehicleClass: this.classify(D),
      areaPx: Math.round(D.area),
      bbox: [Math.round(D.bx), Math.round(D.by), Math.round(D.bw), Math.round(D.bh)],
      speedPxPerS: Math.round(T.speed * 10) / 10,
      framesSeen: T.hits,
    };
  }

  // Size class relative to the typical vehicle at the same row: perspective-free, so it needs no calibration.
  private classify(D: Detection): VehicleClass {
    if (!this.persp.ready) return 'unknown';
    const typical = this.persp.size(D.y);
    const ratio = D.area / (typical * typical);
    if (ratio >= this.options.heavyAreaRatio) return 'heavy';
    if (ratio <= this.options.twoWheelerAreaRatio && D.bh > D.bw) return 'two-wheeler';
    return 'car';
  }
}

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

/**
 * Frames within this share of the first frame's shape (width / height) are the same view at another size: a
 * camera switched between its streams or resolutions. Another shape may be a crop or a stretch.
 */
const SAME_SHAPE = 0.02;

/** A camera whose frames changed size, as the daemon logs it (once per change). */
export interface FrameSizeChange {
  /** How many changes so far (1 for the first). */
  readonly count: number;
  readonly message: string;
  /**
   * The frames have another shape than those the ROI and lines were drawn on, which were kept as drawn: they
   * may not fit the view any more, which lasts until they are redrawn (a health warning, not only a log line).
   */
  readonly misfit: boolean;
}

/**
 * One camera's analyzer: ROI crop → background → foreground → blobs → tracks → line crossings (see
 * ScaledAnalyzer). The frame-size options a camera leaves unset (working resolution, smallest vehicle part,
 * line margin: FRAME_SIZE_KEYS) follow its first decoded frame. The ROI and lines are in pixels of the frame
 * the camera's `drawnOn` gives, or else of its first analysed frame. Frames of another size start the analyzer
 * again at that size (held crossings counted, totals kept, the background learnt again): frames of the same
 * shape are the same view, and the ROI and lines are scaled to them; for another shape they are kept as drawn
 * (and a ROI that no longer fits is refused with every frame, naming the fix). Its config is checked at
 * construction, at the drawnOn size or else the 1280x720 defaults.
 */
export class CameraAnalyzer {
  private readonly camera: CameraConfig;
  private readonly path: string;
  private inner: ScaledAnalyzer;
  /** Whether the frame-size options were set from a frame (or needed no frame: all given). */
  private sized: boolean;
  /** Full-size frame the ROI and lines are drawn on (drawnOn's, or the first frame's), and the one analysed now. */
  private drawnOn?: FrameSize;
  private frameSize?: FrameSize;
  /** Counts of the analyzers that came before a change of frame size, per line. */
  private readonly carried = new Map<string, { in: number; out: number }>();
  /** stats() of the analyzers that came before a change of frame size, summed (totalMs: their time in all). */
  private readonly carriedStats = { frames: 0, tracks: 0, totalMs: 0 };
  /** The latest change of frame size, if any. */
  lastResize?: FrameSizeChange;

  /** `observer`: see BlobObserver (none in the daemon). */
  constructor(camera: CameraConfig, path = `cameras[${camera.id}]`, private readonly observer?: BlobObserver) {
    this.camera = camera;
    this.path = path;
    if (camera.drawnOn) this.drawnOn = { width: camera.drawnOn[0], height: camera.drawnOn[1], scale: 1 };
    this.inner = new ScaledAnalyzer(camera, path, resolveAnalyzerOptions(camera.analyzer, `${path}.analyzer`, this.drawnOn), observer);
    this.sized = FRAME_SIZE_KEYS.every((k) => Object.hasOwn(camera.analyzer ?? {}, k));
  }

  /** The options in use: before the first frame, the frame-size ones are those of a 1280x720 frame. */
  get options(): AnalyzerOptions {
    return this.inner.options;
  }

  /** Analyses one frame; returns the crossings it completed (during start-up, those of the buffered frames). */
  process(frame: AnalyzerFrame): CrossingEvent[] {
    const events: CrossingEvent[] = [];
    for (const batch of this.steps(frame)) events.push(...batch);
    return events;
  }

  /** See ScaledAnalyzer.steps: process() in steps of a few milliseconds, for a caller that shares its thread. */
  *steps(frame: AnalyzerFrame): Generator<CrossingEvent[], void, undefined> {
    const scale = frame.scale ?? 1;
    const size = { width: frame.width * scale, height: frame.height * scale, scale };
    // Another size than the last frame's, or (first frame) than the one the config says it was drawn on.
    const last = this.frameSize ?? this.drawnOn;
    if (last && !sameFrameSize(size, last)) {
      yield* this.resize(frame, size);
      return;
    }
    if (!this.sized) {
      const options = resolveAnalyzerOptions(this.camera.analyzer, `${this.path}.analyzer`, size);
      // A ROI too small for the fitted scale throws here, for every frame, as a frame too small for the ROI does.
      if (FRAME_SIZE_KEYS.some((k) => options[k] !== this.inner.options[k])) this.inner = new ScaledAnalyzer(this.camera, this.path, options, this.observer);
    }
    // Only a frame taken in (the ROI inside it, its data whole) sets the size the ROI and lines are drawn on, and
    // the frame-size options: fitted to a refused frame of another size (a 640x360 picture a 1280x720 camera sent
    // first), they were kept for every frame after it (1280x720 analysed with 640x360's minAreaPx).
    this.inner.checkFrame(frame);
    this.sized = true;
    this.drawnOn ??= size;
    this.frameSize ??= size;
    yield* this.inner.steps(frame);
  }

  /**
   * A frame of another size than the last (or, the first, than drawnOn's): count what the analyzer holds and
   * start again at the new size.
   */
  private *resize(frame: AnalyzerFrame, size: FrameSize): Generator<CrossingEvent[], void, undefined> {
    const from = this.drawnOn!;
    const fx = size.width / from.width, fy = size.height / from.height;
    const sameShape = Math.abs(fx / fy - 1) <= SAME_SHAPE;
    const camera = sameShape ? scaleCoordinates(this.camera, fx, fy) : this.camera;
    // Built and checked first: if the new size cannot be analysed (a ROI too small for it, a frame's data cut
    // short), this frame is refused and nothing is lost.
    const next = new ScaledAnalyzer(camera, this.path, resolveAnalyzerOptions(camera.analyzer, `${this.path}.analyzer`, size), this.observer);
    next.checkFrame(frame);
    const held = this.inner.flush();
    for (const c of this.inner.counts()) {
      const sum = this.carried.get(c.lineId) ?? { in: 0, out: 0 };
      this.carried.set(c.lineId, { in: sum.in + c.in, out: sum.out + c.out });
    }
    const s = this.inner.stats();
    this.carriedStats.frames += s.frames;
    this.carriedStats.tracks += s.tracks;
    this.carriedStats.totalMs += s.avgMs * s.frames;
    const px = (f: FrameSize): string => `${Math.round(f.width)}x${Math.round(f.height)}`;
    const factor = (f: number): string => String(Math.round(f * 1000) / 1000);
    const given = this.camera.drawnOn !== undefined;
    const drawn = `${px(from)} frames ${given ? `${this.path}.drawnOn says ` : ''}the ROI and lines were drawn on`;
    const coords = !sameShape
      ? `another shape than the ${drawn}, so they are kept as drawn: redraw them on a frame of this size${given ? ' and set drawnOn to it' : ''} (${this.path})`
      : fx === 1 && fy === 1
        ? 'the size the ROI and lines were drawn on'
        : `the same shape as the ${drawn}, so they are scaled by ${fx === fy ? factor(fx) : `${factor(fx)} x ${factor(fy)}`} to match`;
    this.lastResize = {
      count: (this.lastResize?.count ?? 0) + 1,
      message: this.frameSize
        ? `frames changed size from ${px(this.frameSize)} to ${px(size)}: ${coords}; the background is learnt again (start-up), counts so far are kept`
        : `frames are ${px(size)}: ${coords}`,
      misfit: !sameShape,
    };
    this.inner = next;
    this.frameSize = size;
    this.sized = true;
    if (held.length > 0) yield held;
    yield* next.steps(frame);
  }

  /** True while the start-up frames are being buffered (the background is not yet learnt). */
  get starting(): boolean {
    return this.inner.starting;
  }

  /** See ScaledAnalyzer.flush. */
  flush(): CrossingEvent[] {
    return this.inner.flush();
  }

  /** Per line, everything counted since construction (across changes of frame size). */
  counts(): { lineId: string; in: number; out: number }[] {
    return this.inner.counts().map((c) => {
      const before = this.carried.get(c.lineId);
      return before ? { lineId: c.lineId, in: c.in + before.in, out: c.out + before.out } : c;
    });
  }

  /** Frames analysed, tracks made and the mean ms a frame, since construction (across changes of frame size). */
  stats(): { frames: number; tracks: number; avgMs: number } {
    const s = this.inner.stats(), c = this.carriedStats;
    const frames = c.frames + s.frames;
    return { frames, tracks: c.tracks + s.tracks, avgMs: frames ? (c.totalMs + s.avgMs * s.frames) / frames : 0 };
  }

  /** See ScaledAnalyzer.lineReach. */
  lineReach(): LineReach[] {
    return this.inner.lineReach();
  }

  /** See ScaledAnalyzer.viewState (the analyzer of the current frame size: a new size learns its view again). */
  viewState(): ViewState | undefined {
    return this.inner.viewState();
  }

  /** See ScaledAnalyzer.lineReachWarnings. */
  lineReachWarnings(reach?: readonly LineReach[]): { lineId: string; message: string }[] {
    return this.inner.lineReachWarnings(reach);
  }

  /** Forgets what was learnt and counted (the working scale stays). */
  reset(): void {
    this.carried.clear();
    this.carriedStats.frames = this.carriedStats.tracks = this.carriedStats.totalMs = 0;
    this.inner.reset();
  }
}

interface FrameSize {
  readonly width: number;
  readonly height: number;
  /** Decode scale of the frame it was measured on: a frame decoded at 1/s is its full size rounded up to s px. */
  readonly scale: number;
}

/** The same full-size frame, whatever scale each was decoded at. */
function sameFrameSize(a: FrameSize, b: FrameSize): boolean {
  const tol = Math.max(a.scale, b.scale);
  return Math.abs(a.width - b.width) < tol && Math.abs(a.height - b.height) < tol;
}

/** The camera with its ROI and lines in pixels of a frame fx × fy the size of the one they were drawn on. */
function scaleCoordinates(camera: CameraConfig, fx: number, fy: number): CameraConfig {
  if (fx === 1 && fy === 1) return camera;
  const at = ([x, y]: Point): Point => [x * fx, y * fy];
  return { ...camera, roi: camera.roi.map(at), lines: camera.lines.map((l) => ({ ...l, from: at(l.from), to: at(l.to) })) };
}
