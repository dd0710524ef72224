// Multi-vehicle tracker for 1-5 fps: predicts each track along its own velocity, or along the learned flow
// of the place it is in, gates by plausible speed and appearance; which tracks link is decided cheapest pair
// first, and those tracks then take the cheapest set of links (see cheapestLinks).

import { thumbDistance, type Detection } from './blob-filter.js';
import { STILL, type FlowEstimate, type FlowPrior } from './flow-prior.js';
import type { Accept, Kinship, LineCounter, LineCrossing, LineState } from './line-counter.js';
import type { PerspectiveModel } from './perspective-model.js';
import type { GroundPlane } from './ground-plane.js';
import { assignEveryRow } from './assignment.js';

export interface Track {
  readonly id: number;
  x: number;
  y: number;
  /** Velocity in ground coordinates (px/s as seen on the reference row); valid when hasVel. */
  vx: number;
  vy: number;
  /** Ground velocity over the last link alone (as vx, vy). */
  lastVx: number;
  lastVy: number;
  hasVel: boolean;
  /** Image speed over the last link, full px per second. */
  speed: number;
  det: Detection;
  /** Where the track began, for the overall-motion check of a crossing (moved on at a reversal, see update). */
  firstX: number;
  firstY: number;
  /** The sighting that got farthest from (firstX, firstY) so far. */
  farX: number;
  farY: number;
  lastT: number;
  hits: number;
  missed: number;
  lines: LineState;
  /**
   * While missed because its vehicle is inside a blob another track took: that track, where in it the vehicle
   * is, and the relative areas (see relArea) of that track's last blob before the merge and of this track's own.
   */
  hidden?: { readonly by: Track; x: number; y: number; readonly alone: number; readonly own: number };
  /**
   * Its latest sightings (at most KEPT), oldest first: frame time, blob, the frames it was missed in just
   * before, and the track whose merged blob hid it then, if any (see kinship).
   */
  trail: { t: number; d: Detection; missed: number; hiddenBy?: Track }[];
  /** Crossings of a link after AWAIT_GAP or more missed frames, held until its next link (see confirm). */
  awaiting?: TrackCrossing[];
}

/** Per track, before a frame's links: where it was, its velocity and its blob. */
type Before = Map<Track, readonly [number, number, number, number, Detection]>;

export interface TrackerParams {
  readonly maxSpeedSizesPerSec: number;
  readonly trackMaxMissedSec: number;
  readonly lineMarginFrac: number;
  readonly lineMinMarginPx: number;
  /** Full-resolution px per working px (see EDGE_WORKING_PX). */
  readonly downscale: number;
  /** 0: a crossing where no usual motion is known counts at once instead of being held (see withFlow). */
  readonly heldCrossingMaxSec: number;
}

export interface TrackCrossing extends LineCrossing {
  track: Track;
  det: Detection;
}

interface Candidate {
  t: number;
  d: number;
  cost: number;
  learn: boolean;
  /** Appearance similarity 0..1. */
  sim: number;
  /** Ground speed this link implies across and along the nearest line, sizes per second. */
  along: number;
  lateral: number;
}

/** One start-up frame's detections and time (see Tracker.steadyTriples). */
export interface SteadySighting {
  readonly dets: readonly Detection[];
  readonly tMs: number;
}

/** A vehicle seen in three frames in a row at a steady speed (see Tracker.steadyTriples). */
export interface SteadyTriple {
  d0: Detection;
  d1: Detection;
  d2: Detection;
  /** Speed along / across the road axis, vehicle sizes per second (as FlowPrior's). */
  along: number;
  lateral: number;
  /** Its blob's share of one vote (split among the triples that blob starts). */
  weight: number;
  /** Time of the middle sighting, s. */
  tSec: number;
}

// Appearance: a thumbnail distance of APPEARANCE_SCALE grey levels costs about as much as a positional
// error at the edge of the gate; beyond MAX_APPEARANCE × that it is another vehicle.
const APPEARANCE_SCALE = 30;
const MAX_APPEARANCE = 4;
const MAX_SIZE_RATIO = Math.log(3);
// A link is unambiguous when the runner-up costs at least 1/UNAMBIGUOUS times more.
const UNAMBIGUOUS = 0.6;
// A track this many of its sizes back from its farthest point has turned back (see update).
const REVERSAL = 2;
// Cost of arriving at a standstill instead of at the predicted place: braking happens, but at 1 fps the
// follower standing where the leader was is the commoner explanation, so it must cost more than a match.
const SPEED_CHANGE_COST = 0.8;
// Least fraction of its predicted step that a moving track missed in a frame went (see observeMissed).
const MISSED_STEP = 0.5;
// Established flow (sizes/s) against which a crossing is refused.
const AGAINST_FLOW = 0.25;
// Lateral distance, in vehicle sizes, beyond which two tracks merging into one blob are two vehicles abreast.
const ABREAST = 0.5;
// Relative difference of velocities within which two tracks merging into one blob travel together.
const SAME_VELOCITY = 0.5;
// A merged blob still holds a hidden vehicle while its relative area is at least that of its other vehicle's
// blob before the merge plus this share of the hidden one's (see holds).
const HOLD_SHARE = 0.5;
// Sightings compared to tell two vehicles from two parts of one (see kinship).
const TRAIL = 3;
// Sightings each track keeps: TRAIL, and one more to judge how long a vehicle that comes out of a merged blob was
// inside it (see observeUnseenEntry).
const KEPT = TRAIL + 1;
// A link after this many missed frames may have taken another vehicle; its crossings wait for the next link.
const AWAIT_GAP = 2;
// Its next link refutes them when it runs back towards the line by more than this share of the blob's size
// (the share allows for a blob's centre moving as its outline changes).
const AWAIT_BACK = 0.1;
// Two blobs seen in one frame are two vehicles when each is an uncut blob of at least WHOLE × the typical
// vehicle's size for its row, and their boxes overlap by less than OVERLAP × the smaller one's size.
const WHOLE = 0.7;
const OVERLAP = 0.25;
// A blob of MERGED × the typical vehicle's area or more may hold more than one vehicle (see leftMergedBlob): a
// pair is about 2. A lorry is as big; a part of it that comes apart as a blob of its own is left to the
// duplicate check.
const MERGED = 1.5;
// Parts of one blob move together, whether they are one vehicle or two abreast (vehicles meeting go at like
// speeds): the first link of a part's track that runs over PART_APART × as far as the other part's link (and over
// a vehicle size a second further) took another vehicle (see refutedCuts).
const PART_APART = 3;
// A vehicle first seen past a line was hidden one interval earlier in a merged blob whose box, widened by
// IN_BLOB_MARGIN × its own size (the step back is an estimate), held that place, when the blob's track did not
// travel with it (see SAME_VELOCITY and inMergedAgainst).
const IN_BLOB_MARGIN = 0.25;
// A blob whose box comes within this many working px of the ROI's bounds is cut by the edge of the view (8
// full-resolution px at 1280x720; in working px, it is the same share of the picture at any frame size).
const EDGE_WORKING_PX = 2;

export class Tracker {
  tracks: Track[] = [];
  created = 0;
  /** Tracks seen in a second frame (linked once at least); with `created`, for the line reach diagnostic. */
  linked = 0;
  /** Time of the first frame since the start, a reset or an outage: nothing before it was watched. */
  private watchedSinceMs = NaN;
  private nextId = 1;
  /** Tracks that ended in the last frame: a vehicle's first sighting may still be taken over (see earlierSighting). */
  private ended: Track[] = [];

  constructor(
    private readonly p: TrackerParams,
    private readonly lines: LineCounter,
    private readonly normals: readonly { nx: number; ny: number }[],
    private readonly flow: FlowPrior,
    private readonly persp: PerspectiveModel,
    private readonly ground: GroundPlane,
    private readonly yref: number,
    private readonly bounds: { x0: number; y0: number; x1: number; y1: number },
  ) {}

  reset(): void {
    this.tracks = [];
    this.ended = [];
    this.watchedSinceMs = NaN;
  }

  /**
   * Ends every track (camera outage, time jump): nothing links across the gap. Returns the crossings that
   * awaited a next link, passed on held as for any track that ends (see confirm).
   */
  endAll(): TrackCrossing[] {
    const released = this.release();
    this.reset();
    return released;
  }

  /**
   * Links detections of the frame at tMs to tracks, starts new tracks, and returns the line crossings.
   * With `learnOnly`, only the flow prior learns (start-up pass): no counting happens.
   */
  step(dets: readonly Detection[], tMs: number, dupWindowMs: number, learnOnly = false): TrackCrossing[] {
    if (Number.isNaN(this.watchedSinceMs)) this.watchedSinceMs = tMs;
    const tSec = tMs / 1000;
    const G = this.ground;
    G.refresh();
    // Ground speeds are divided by the typical size on the reference row: "vehicle sizes per second".
    const sizeRef = this.persp.ready ? this.persp.size(this.yref) : NaN;
    const cands: Candidate[] = [];
    for (let ti = 0; ti < this.tracks.length; ti++) {
      const T = this.tracks[ti]!;
      const dt = (tMs - T.lastT) / 1000;
      if (dt <= 0) continue;
      const n = this.nearestNormal(T.x, T.y);
      const prior = this.flow.at(T.x, T.y, tSec);
      const tgx = G.gx(T.x, T.y), tgy = G.gy(T.y);
      let qx = T.x, qy = T.y, R = 0, grow = 1, mode: 'vel' | 'prior' | 'free' = 'free';
      let gvx = 0, gvy = 0;
      if (T.hasVel) {
        mode = 'vel';
        gvx = T.vx; gvy = T.vy;
      } else if (prior) {
        mode = 'prior';
        [gvx, gvy] = this.usualVelocity(T.y, T.det.size, prior, sizeRef, n);
      }
      if (mode !== 'free') {
        [qx, qy] = G.moved(T.x, T.y, gvx * dt, gvy * dt);
        if (Number.isNaN(qy)) continue; // predicted beyond the horizon: it has left
        grow = this.persp.ready ? this.persp.size(qy) / this.persp.size(T.y) : 1;
        // The gate allows for the prediction's error over the part of the step that can be seen: a vehicle
        // predicted to leave the view (a long step near the camera, often far beyond the frame) is not looked
        // for out there, and the error of a step it cannot be seen on must not widen the gate over the whole
        // frame (at 1 fps a track leaving at the bottom took a car entering there in the other direction).
        const vis = Math.min(1, this.visibleFraction(T.x, T.y, qx - T.x, qy - T.y));
        const growVis = this.persp.ready ? this.persp.size(T.y + vis * (qy - T.y)) / this.persp.size(T.y) : 1;
        R = 0.6 * T.det.size * Math.max(1, growVis) + (mode === 'vel' ? 0.25 : 0.35) * vis * Math.hypot(qx - T.x, qy - T.y);
      }
      const first = cands.length;
      let simSum = 0;
      for (let di = 0; di < dets.length; di++) {
        const D = dets[di]!;
        let cost: number;
        // Speed of this link in ground coordinates across / along the line, sizes per second.
        const unit = dt * this.speedUnit(sizeRef, T.y, D.y, T.det.size, D.size);
        const [a, l] = groundToAlongLateral(G.gx(D.x, D.y) - tgx, G.gy(D.y) - tgy, n);
        const gAlong = a / unit, gLat = l / unit;
        if (mode !== 'free') {
          // A track missed in the last frame had not stopped where it was (it would have been seen there):
          // it went at least half as far as predicted. Otherwise a lingering track, already counted,
          // takes the next vehicle arriving at its place and that vehicle is never counted.
          const kMin = T.missed > 0 ? 0.5 : 0;
          // Vehicles brake and accelerate: anywhere from standing still to kMax of the step, with a small cost
          // for changing speed.
          const { k, e } = onStep(T.x, T.y, qx - T.x, qy - T.y, kMin, this.kMax(grow), D.x, D.y);
          if (e > R) continue;
          // Vehicles do not reverse between frames: a link running back against the track's own (or its
          // place's usual) motion by more than a vehicle length is another vehicle, e.g. one in the other lane.
          const expAlong = mode === 'vel' ? (gvx * n.nx + gvy * n.ny) / this.speedUnit(sizeRef, T.y, T.y, T.det.size, T.det.size) : prior!.along;
          if (Math.abs(expAlong) > 1 && gAlong * Math.sign(expAlong) < -1 / dt) continue;
          cost = e / R + SPEED_CHANGE_COST * Math.abs(1 - k);
          // A track's own velocity may come from one wrong link: disagreeing with the usual flow costs.
          if (mode === 'vel' && prior) cost += 0.3 * Math.min(2, Math.hypot(gAlong - prior.along, gLat - prior.lateral) / (0.5 * Math.abs(prior.along) + 1));
        } else {
          // No motion known: anything up to the plausible speed along the road axis (the line normal), in
          // ground units, so a jump from near to far is judged by the distance on the road, not in pixels;
          // appearance, not distance, must decide, since at 1 fps the nearest blob is often the follower.
          const { maxAlong, latMax } = this.freeBounds(dt, gAlong);
          if (Math.abs(gAlong) > maxAlong || Math.abs(gLat) > latMax) continue;
          cost = 0.3 + 0.2 * (Math.abs(gLat) / latMax) + 0.2 * (Math.abs(gAlong) / maxAlong);
        }
        // Size change is expected from perspective; before it is learned, only gross changes are refused.
        const like = this.alike(T.det, D);
        if (!like) continue;
        const { lr, app } = like;
        cost += 0.7 * app + (this.persp.ready ? 0.5 * lr : 0);
        // A cost that is not a number cannot be ranked: sorted, it lands anywhere and wins links at random
        // (NaN perspective sizes once did that). No such link is made, by the greedy pass or the assignment.
        if (!Number.isFinite(cost)) continue;
        const sim = Math.exp(-app * app);
        simSum += sim;
        cands.push({ t: ti, d: di, cost, learn: mode !== 'free', sim, along: gAlong, lateral: gLat });
      }
      // New tracks vote for every plausible link, weighted by appearance: the true motion is the one
      // many vehicles agree on, wrong links scatter.
      if (!T.hasVel) {
        const norm = Math.max(1, simSum);
        for (let k = first; k < cands.length; k++) {
          const c = cands[k]!;
          const D = dets[c.d]!;
          this.flow.vote(T.x, T.y, D.x, D.y, c.along, c.lateral, c.sim / norm, tSec);
        }
      }
    }

    // A free-mode link teaches the flow prior only when it clearly beat every alternative for both ends.
    const best1T = new Float64Array(this.tracks.length).fill(Infinity), best2T = new Float64Array(this.tracks.length).fill(Infinity);
    const best1D = new Float64Array(dets.length).fill(Infinity), best2D = new Float64Array(dets.length).fill(Infinity);
    for (const c of cands) {
      if (c.cost < best1T[c.t]!) { best2T[c.t] = best1T[c.t]!; best1T[c.t] = c.cost; } else if (c.cost < best2T[c.t]!) best2T[c.t] = c.cost;
      if (c.cost < best1D[c.d]!) { best2D[c.d] = best1D[c.d]!; best1D[c.d] = c.cost; } else if (c.cost < best2D[c.d]!) best2D[c.d] = c.cost;
    }

    cands.sort((a, b) => a.cost - b.cost);
    const cheapest = this.cheapestLinks(cands, dets.length);
    const refuted = this.refutedCuts(cheapest, dets, learnOnly);
    const links = refuted.size === 0 ? cheapest : cheapest.filter((c) => !refuted.has(this.tracks[c.t]!));
    // Where each track was, how fast it went, and its blob, before this frame's links (see hide, leftMergedBlob).
    const before: Before = new Map(this.tracks.map((T) => [T, [T.x, T.y, T.vx, T.vy, T.det] as const]));
    const trackUsed = new Uint8Array(this.tracks.length);
    const detUsed = new Uint8Array(dets.length);
    const crossings: TrackCrossing[] = [];
    const firstLinks: { T: Track; born: Detection; bornT: number }[] = [];
    for (const c of links) { // no two share a track or a blob (see cheapestLinks)
      trackUsed[c.t] = 1;
      detUsed[c.d] = 1;
      const T = this.tracks[c.t]!;
      const D = dets[c.d]!;
      const unambiguous = c.cost === best1T[c.t] && c.cost === best1D[c.d] && c.cost < UNAMBIGUOUS * best2T[c.t]! && c.cost < UNAMBIGUOUS * best2D[c.d]!;
      this.update(T, D, tMs, c.learn || unambiguous, c.along, c.lateral, crossings, dupWindowMs, learnOnly, firstLinks);
    }

    // A track that just got its first link may be the continuation of a track seen once, one interval
    // earlier, that found no link (at 1 fps a vehicle's first step can be too long, or run against the
    // usual motion where both directions' lanes meet): that sighting is taken over, and a line between the
    // two counts. Or of the first sighting of a track whose first link stood still there (see standingBirth):
    // that sighting is taken over from it the same way.
    // Refuted tracks (see refutedCuts) end as if taken over: nothing takes over their sighting either.
    const absorbed = new Set<Track>(refuted);
    if (!learnOnly) {
      for (const f of firstLinks) {
        const U = this.earlierSighting(f.T, f.born, f.bornT, tMs, trackUsed, absorbed);
        if (U) {
          absorbed.add(U);
          // (U was seen at U.lastT: a frame was watched then.)
          this.observeUnseenFrom(f.T, f.T.det, U.x, U.y, U.lastT, f.T.firstX, f.T.firstY, f.bornT, f.T.det.x, f.T.det.y, U.lastT, tMs, crossings, dupWindowMs);
          continue;
        }
        const S = this.standingBirth(f.T, f.born, f.bornT, tMs, absorbed);
        if (!S) continue;
        const b = S.trail[0]!;
        this.dropBirth(S);
        // The step taken over is a link confirmed by the next, and votes as one (before its crossing is judged, as a
        // confirmed link's does): where it was made, the usual motion had the standing link win (thin, or learnt
        // the wrong way: traffic moving away is first seen near the camera, where nothing confirmed has yet passed).
        const n = this.nearestNormal(b.d.x, b.d.y);
        const unit = ((f.bornT - b.t) / 1000) * this.speedUnit(sizeRef, b.d.y, f.born.y, b.d.size, f.born.size);
        const [a, l] = groundToAlongLateral(G.gx(f.born.x, f.born.y) - G.gx(b.d.x, b.d.y), G.gy(f.born.y) - G.gy(b.d.y), n);
        this.flow.vote(b.d.x, b.d.y, f.born.x, f.born.y, a / unit, l / unit, 1, tSec);
        this.observeUnseenFrom(f.T, f.T.det, b.d.x, b.d.y, b.t, f.T.firstX, f.T.firstY, f.bornT, f.T.det.x, f.T.det.y, b.t, tMs, crossings, dupWindowMs);
      }
    }

    // Age unmatched tracks; drop those gone too long or predicted out of the ROI.
    const kept: Track[] = [];
    for (let ti = 0; ti < this.tracks.length; ti++) {
      const T = this.tracks[ti]!;
      if (absorbed.has(T)) continue;
      if (!trackUsed[ti]) {
        T.missed++;
        const gone = (tMs - T.lastT) / 1000;
        const hidden = T.hasVel && T.hits >= 3 ? this.hide(T, gone, tMs, dets, detUsed, before) : false;
        if (hidden) {
          // No duplicate check (window 0): the other vehicle in the blob crosses at about the same time and place.
          if (!learnOnly) this.observe(T, T.hidden!.x, T.hidden!.y, tMs, crossings, 0);
        } else if (T.hasVel && (T.missed === 1 || T.hits >= 3) && !learnOnly) {
          // Each further miss carries it on; but only a motion confirmed by a second link is carried over several
          // frames (one link may be a wrong one, and would walk a phantom across a line).
          this.observeMissed(T, gone, tMs, crossings, dupWindowMs);
        } else if (!T.hasVel && T.hits === 1 && T.missed === 1 && !learnOnly) {
          // Seen once and gone: out of the view already, if the usual motion took it there (see observeSeenOnce).
          if (this.observeSeenOnce(T, gone, tMs, crossings, dupWindowMs)) continue;
        }
        // A vehicle hidden in a merged blob is not gone while the blob still holds it: two vehicles abreast
        // can stay one blob for longer than trackMaxMissedSec (light traffic at 2 fps: 3 s and more).
        const held = hidden && this.holds(T.hidden!);
        if (gone > this.p.trackMaxMissedSec && T.missed >= 2 && !held) continue;
        // A track seen once, with no motion of its own nor a usual motion where it is, has nothing to predict
        // with: after a missed frame any link would be a guess across the whole speed gate (at 1 fps, the
        // next vehicle of either direction), so it ends; its vehicle, if real, starts a new track.
        if (!T.hasVel && !this.flow.at(T.x, T.y, tMs / 1000)) continue;
        // (A held track is where its blob is, not where its last motion, long ago, would have taken it.)
        if (T.hasVel && !held) {
          const [px, py] = this.ground.moved(T.x, T.y, T.vx * gone, T.vy * gone);
          if (Number.isNaN(py) || this.outside(px, py, T.det.size)) continue;
        }
      }
      kept.push(T);
    }
    this.ended = [];
    // A track that ends with crossings awaiting its next link: nothing refuted them.
    if (kept.length < this.tracks.length) {
      const keep = new Set(kept);
      for (const T of this.tracks) if (T.awaiting && !keep.has(T)) crossings.push(...T.awaiting);
      this.ended = this.tracks.filter((T) => !keep.has(T) && !absorbed.has(T));
    }
    this.tracks = kept;

    for (let di = 0; di < dets.length; di++) {
      if (detUsed[di]) continue;
      const D = dets[di]!;
      const T: Track = {
        id: this.nextId++, x: D.x, y: D.y, vx: 0, vy: 0, lastVx: 0, lastVy: 0, hasVel: false, speed: 0, det: D,
        firstX: D.x, firstY: D.y, farX: D.x, farY: D.y, lastT: tMs, hits: 1, missed: 0, lines: this.lines.newState(),
        trail: [{ t: tMs, d: D, missed: 0 }],
      };
      this.describe(T);
      this.created++;
      this.tracks.push(T);
      if (learnOnly) continue;
      // A vehicle that has just come out of a merged blob was inside it one frame earlier: a line between there
      // and here it crossed unseen as a vehicle of its own (followers at 1 fps, one blob until past the line,
      // are seen apart only beyond it), so it starts there. Its crossing is one more unless the duplicate
      // check finds it a fragment of the blob's other vehicle (see kinship).
      const from = this.leftMergedBlob(D, tMs, before);
      if (from && this.lines.separates(from.x, from.y, D.x, D.y, this.lineRules(D, tMs).margin)) {
        T.firstX = from.x;
        T.firstY = from.y;
        this.observe(T, from.x, from.y, from.t, crossings, dupWindowMs);
      }
      this.observe(T, D.x, D.y, tMs, crossings, dupWindowMs);
    }
    return crossings;
  }

  /** Links T to D; a track's first link is also added to `firstLinks`, with its first sighting. */
  private update(
    T: Track, D: Detection, tMs: number, learn: boolean, along: number, lateral: number, out: TrackCrossing[], dupWindowMs: number, learnOnly: boolean,
    firstLinks: { T: Track; born: Detection; bornT: number }[],
  ): void {
    const dt = (tMs - T.lastT) / 1000;
    const G = this.ground;
    const vx = (G.gx(D.x, D.y) - G.gx(T.x, T.y)) / dt, vy = (G.gy(D.y) - G.gy(T.y)) / dt;
    const confirmed = T.hasVel;
    const gap = T.missed, px = T.x, py = T.y;
    const bornT = T.lastT, born = T.det, firstLink = !confirmed && T.hits === 1;
    if (firstLink) firstLinks.push({ T, born, bornT });
    if (T.hasVel) {
      T.vx = 0.5 * T.vx + 0.5 * vx;
      T.vy = 0.5 * T.vy + 0.5 * vy;
    } else {
      T.vx = vx;
      T.vy = vy;
      T.hasVel = true;
    }
    T.lastVx = vx;
    T.lastVy = vy;
    const moving = Math.hypot(D.x - T.x, D.y - T.y) > 0.3 * D.size * dt;
    // A link that extends a track with a known velocity confirms the motion seen there.
    if (confirmed) this.flow.vote(T.x, T.y, D.x, D.y, along, lateral, 1, tMs / 1000);
    // Perspective learns from whole blobs of tracks that travelled more than their own size: real
    // vehicles, not jittering noise, and not parts produced by splitting with the model itself.
    const travelled = Math.hypot(D.x - T.firstX, D.y - T.firstY) > D.size;
    if ((confirmed || learn) && moving && travelled && D.whole) this.persp.add(D.y, D.size, D.bw, D.bh);
    T.speed = Math.hypot(D.x - T.x, D.y - T.y) / dt;
    // Vehicles do not turn back on the road: a track now REVERSAL sizes back from the farthest it got from its
    // start (measured along start → farthest point) follows another vehicle (a switch where small, far
    // vehicles of both directions meet). So does one that went REVERSAL sizes from its start and is now as far
    // from its farthest point, on the way back: a wrong first link ran up the image, say, and the track then
    // took a vehicle of the other direction crossing the image at a slant, mostly sideways to that first link
    // (6 m pole at 2 fps, seed 9 at 9.5-16 s). From the turn on it is judged as that vehicle: its start moves to
    // the turning point, else the old start, beyond a line the new vehicle crosses, vetoes that crossing.
    // Lines already counted stay counted; one where its crossing was refused as a wrong link, counted for no
    // vehicle, is open to the new one. Its velocity, too, is the new vehicle's alone: averaged with the
    // old one's (at 1 fps, an inbound car leaving the view and an outbound one entering there) it predicts
    // neither, and the new vehicle's next sighting, often just past a line, starts a track of its own.
    const dFar = Math.hypot(T.farX - T.firstX, T.farY - T.firstY);
    const pNow = dFar > 0 ? ((D.x - T.firstX) * (T.farX - T.firstX) + (D.y - T.firstY) * (T.farY - T.firstY)) / dFar : 0;
    const turn = REVERSAL * D.size;
    if (pNow >= dFar) {
      T.farX = D.x;
      T.farY = D.y;
    } else if (dFar - pNow > turn || (dFar > turn && Math.hypot(D.x - T.farX, D.y - T.farY) > turn)) {
      T.firstX = T.farX;
      T.firstY = T.farY;
      T.farX = D.x;
      T.farY = D.y;
      T.vx = vx;
      T.vy = vy;
      this.lines.reopenWrongLinks(T.lines);
    }
    T.x = D.x;
    T.y = D.y;
    T.det = D;
    this.describe(T);
    T.trail.push({ t: tMs, d: D, missed: T.missed, hiddenBy: T.hidden?.by });
    if (T.trail.length > KEPT) T.trail.shift();
    T.hidden = undefined;
    T.lastT = tMs;
    T.hits++;
    if (T.hits === 2) this.linked++;
    T.missed = 0;
    if (!learnOnly) {
      if (T.awaiting) this.confirm(T, px, py, out);
      if (gap >= AWAIT_GAP) {
        const held: TrackCrossing[] = [];
        this.observe(T, D.x, D.y, tMs, held, dupWindowMs, true);
        if (held.length > 0) T.awaiting = held;
      } else this.observe(T, D.x, D.y, tMs, out, dupWindowMs);
      if (firstLink) this.observeUnseenEntry(T, born, D, bornT, tMs, out, dupWindowMs);
    }
  }

  /**
   * A vehicle first seen already past a line, whose first link puts it outside the ROI one interval earlier,
   * on the line's other side, crossed the line out of sight: at 1 fps a vehicle can pass the whole stretch
   * of ROI before a line between two frames. It was not seen there because it could not have been; nor when
   * that place was inside a merged blob of vehicles moving unlike it (see inMergedAgainst). Then it was inside
   * that blob for as long as its link's speed, run further back, keeps it in the blob's box (over the blob's
   * kept sightings), and the earliest such place is where it is judged from: a car passing a standing bus comes
   * out of the bus's blob past the line, where one interval back may still be within the line's margin (the
   * reversed boulevard clip at 2.5 fps, 22.1 s) though it was inside the blob before the line. Only for a vehicle
   * first seen out of the blob's box (a piece of the blob's own vehicle, first seen inside it, may have a wild first
   * link), not when the blob holds a vehicle hidden in it (see hide: this one may be that one, leaving it), and only
   * over places where no other track saw a blob then (there it was not hidden, but this vehicle's own earlier track,
   * already counted, that switched to another blob).
   */
  private observeUnseenEntry(T: Track, born: Detection, D: Detection, bornT: number, tMs: number, out: TrackCrossing[], dupWindowMs: number): void {
    const interval = tMs - bornT;
    let [bx, by] = this.backFrom(born, D, 1);
    if (Number.isNaN(bx)) return;
    let before = bornT - interval;
    if (!this.outside(bx, by, 0)) {
      const P = this.inMergedAgainst(T, bx, by, before, interval, born.size);
      if (!P) return;
      // Seen at (x, y) at time t by another track than T and P: not hidden there.
      const seen = (x: number, y: number, t: number): boolean =>
        [...this.tracks, ...this.ended].some((U) => U !== T && U !== P && sightedAt(U, t, interval, x, y));
      const apart = !sightedAt(P, bornT, interval, born.x, born.y);
      const hidesOne = this.tracks.some((U) => U !== T && U.hidden?.by === P);
      if (apart && !hidesOne && !seen(bx, by, before)) {
        for (let j = 2; j < KEPT; j++) {
          const [x, y] = this.backFrom(born, D, j);
          const t = bornT - j * interval;
          if (t < this.watchedSinceMs || Number.isNaN(x) || this.outside(x, y, 0) || !this.inBlobOf(P, x, y, t, interval, born.size) || seen(x, y, t)) break;
          [bx, by, before] = [x, y, t];
        }
      }
    }
    // Not seen there because it could not have been (or was hidden).
    this.observeUnseenFrom(T, D, bx, by, before, T.firstX, T.firstY, bornT, D.x, D.y, before, tMs, out, dupWindowMs);
  }

  /**
   * Where a vehicle first seen as `born` and one interval later as D was j intervals before `born`, at the link's
   * speed, on the road plane that the two sightings imply (a vehicle's size shrinks in proportion to its distance
   * below the horizon): they measure this vehicle directly, while the learnt horizon, fitted from few vehicles
   * early on, can be far off. Where their sizes imply no horizon above them, on the learnt road plane (NaN beyond
   * its horizon). Nearer than the road the camera sees: below the frame, on the link's line extended.
   */
  private backFrom(born: Detection, D: Detection, j: number): [number, number] {
    const yh = (D.size * born.y - born.size * D.y) / (D.size - born.size);
    if (Number.isFinite(yh) && yh < Math.min(born.y, D.y) - Math.min(born.size, D.size)) {
      // Road X is proportional to x / (y − yh), road Z to 1 / (y − yh): both change linearly at constant speed.
      const u = (j + 1) / (born.y - yh) - j / (D.y - yh);
      if (u <= 0) {
        const by = this.bounds.y1 + born.size;
        return [born.x + ((born.x - D.x) * (by - born.y)) / (born.y - D.y), by];
      }
      return [((j + 1) * born.x / (born.y - yh) - j * D.x / (D.y - yh)) / u, yh + 1 / u];
    }
    return this.stepBack(born, D, j);
  }

  /**
   * Crossings of T, at (bx, by) at bt (out of sight, or seen there by a track it takes over) and then seen at
   * (fx, fy) at ft and at (x, y) (see LineCounter.observeUnseen), judged by the rules of its blob D; only if a
   * frame was watched at `watchedMs` (else it may have crossed before the start, or during an outage).
   */
  private observeUnseenFrom(
    T: Track, D: Detection, bx: number, by: number, bt: number, fx: number, fy: number, ft: number, x: number, y: number,
    watchedMs: number, tMs: number, out: TrackCrossing[], dupWindowMs: number,
  ): void {
    if (watchedMs < this.watchedSinceMs) return;
    const { margin, accept } = this.lineRules(D, tMs);
    for (const c of this.lines.observeUnseen(T.lines, bx, by, bt, fx, fy, ft, x, y, margin, D.size, dupWindowMs, accept, this.kinship)) {
      out.push({ ...c, track: T, det: D });
    }
  }

  /**
   * A moving track missed in this frame had not stopped where it was (it would have been seen there): since
   * its last sighting `gone` s ago it went at least MISSED_STEP of the way predicted. At 1 fps a vehicle last
   * seen near a line, inside the margin, is often next seen so far on (or not at all, leaving the ROI, or
   * hidden) that no link is made: it crossed. One gone from a blob cut by the ROI's edge crossed a line its
   * last sighting was past (see LineCounter.observeExit).
   */
  private observeMissed(T: Track, gone: number, tMs: number, out: TrackCrossing[], dupWindowMs: number): void {
    // A vehicle that was slowing down is judged at its latest speed.
    const [vx, vy] = Math.hypot(T.lastVx, T.lastVy) < Math.hypot(T.vx, T.vy) ? [T.lastVx, T.lastVy] : [T.vx, T.vy];
    const [px, py] = this.ground.moved(T.x, T.y, MISSED_STEP * vx * gone, MISSED_STEP * vy * gone);
    if (!Number.isNaN(py)) this.observe(T, px, py, tMs, out, dupWindowMs);
    // Gone at once from a blob cut by the ROI's edge, it left the view there: a line its blob's centroid had
    // got past counts, though not beyond the margin (the part still in view stops short of the vehicle's
    // centre; a lorry leaving a low camera's view sideways at 2 fps).
    if (T.missed === 1 && this.atEdge(T.det)) {
      const D = T.det;
      const { accept } = this.lineRules(D, tMs);
      for (const c of this.lines.observeExit(T.lines, T.x, T.y, T.lastT, D.size, T.firstX, T.firstY, dupWindowMs, accept, this.kinship)) out.push({ ...c, track: T, det: D });
    }
  }

  /**
   * A vehicle seen once, missed in the next frame: where the usual motion of its place is known and one interval
   * of it runs out of the ROI, it could not be seen, and it left the view there; a line between its sighting and
   * where it left counts. Likewise, where one interval of that motion back from its sighting lies outside the
   * ROI, it came into view unseen (when a frame was watched then): a line between there and its sighting counts.
   * At 1 fps a vehicle near the camera can be in the ROI for one frame only (default traffic at 1 fps, seed 9,
   * 38 s: a van seen once just before the line, gone through the frame's left edge, which the usual motion of its
   * place reaches in under half a second). Only for a blob of a whole vehicle's size (a piece of one, or noise,
   * may be anything). Returns whether it left the view (its track ends).
   */
  private observeSeenOnce(T: Track, gone: number, tMs: number, out: TrackCrossing[], dupWindowMs: number): boolean {
    const D = T.det;
    if (this.relArea(D) < WHOLE * WHOLE) return false;
    const prior = this.flow.at(T.x, T.y, tMs / 1000);
    if (!prior) return false;
    const sizeRef = this.persp.ready ? this.persp.size(this.yref) : NaN;
    const [gvx, gvy] = this.usualVelocity(T.y, T.det.size, prior, sizeRef, this.nearestNormal(T.x, T.y));
    const [fx, fy] = this.ground.moved(T.x, T.y, gvx * gone, gvy * gone);
    const fVis = Number.isNaN(fy) ? 1 : this.visibleFraction(T.x, T.y, fx - T.x, fy - T.y);
    const left = fVis < 1;
    if (left) {
      this.observe(T, T.x + fVis * (fx - T.x), T.y + fVis * (fy - T.y), T.lastT + fVis * gone * 1000, out, dupWindowMs);
    }
    const [bx, by] = this.ground.moved(T.x, T.y, -gvx * gone, -gvy * gone);
    const bVis = Number.isNaN(by) ? 1 : this.visibleFraction(T.x, T.y, bx - T.x, by - T.y);
    if (bVis < 1) {
      const ex = T.x + bVis * (bx - T.x), ey = T.y + bVis * (by - T.y);
      // Its sighting, and a point on from it the way it moved, as its first two sightings.
      this.observeUnseenFrom(T, D, ex, ey, T.lastT - bVis * gone * 1000, T.x, T.y, T.lastT, 2 * T.x - ex, 2 * T.y - ey, T.lastT - gone * 1000, tMs, out, dupWindowMs);
    }
    return left;
  }

  /** Whether D's box reaches the ROI's bounds (within EDGE_WORKING_PX): a vehicle cut by the edge of the view. */
  private atEdge(D: Detection): boolean {
    const b = this.bounds, e = EDGE_WORKING_PX * this.p.downscale;
    return D.bx <= b.x0 + e || D.by <= b.y0 + e || D.bx + D.bw >= b.x1 - e || D.by + D.bh >= b.y1 - e;
  }

  /**
   * Whether missed T's vehicle is inside a blob another track took this frame (two vehicles merged into one
   * blob), and where: first where T is predicted (kept inside the blob's box), then moved with that blob.
   * The blob is the one over T's predicted place, or one whose track's last blob was, like T's, a part of one
   * blob cut across the lanes: the cut found two vehicles side by side there, and one blob again is both of
   * them, wherever T's velocity, which the cuts may have jolted, predicts it (default traffic at 1 fps, seed 5,
   * 9-10 s: a car beside a van).
   */
  private hide(T: Track, gone: number, tMs: number, dets: readonly Detection[], detUsed: Uint8Array, before: Before): boolean {
    const h = T.hidden;
    // Only a track that goes missing as it meets the blob: not one lost earlier that a blob happens to pass.
    if (!h && T.missed !== 1) return false;
    if (h) {
      const prev = before.get(h.by);
      const D = h.by.det;
      // Past trackMaxMissedSec, only while the blob still holds it (see holds): a blob back to one vehicle's
      // size has let it go (it left unseen, or was a part of the other vehicle all along).
      if (!prev || h.by.lastT !== tMs || (gone > this.p.trackMaxMissedSec && !this.holds(h))) {
        T.hidden = undefined;
        return false;
      }
      // Moved with the blob, but only along its own motion, and never back: a merged blob's centroid also
      // shifts as its vehicles' share of it changes.
      const vx = h.x - T.x, vy = h.y - T.y;
      const len = Math.hypot(vx, vy);
      if (len === 0) return true;
      const k = Math.max(0, ((h.by.x - prev[0]) * vx + (h.by.y - prev[1]) * vy) / len);
      [h.x, h.y] = clampToBox(D, h.x + (k * vx) / len, h.y + (k * vy) / len);
      return true;
    }
    const [px, py] = this.ground.moved(T.x, T.y, T.vx * gone, T.vy * gone);
    if (Number.isNaN(py)) return false;
    // The track that took blob E in this frame.
    const taken = (E: Detection): Track | undefined => this.tracks.find((B) => B !== T && B.det === E && B.missed === 0);
    const D = dets.find((E, i) => detUsed[i] && inBox(E, px, py)) ?? dets.find((E, i) => detUsed[i] && cutApart(T, taken(E)));
    if (!D) return false;
    const by = taken(D);
    const prev = by && before.get(by);
    if (!by || !prev || !by.hasVel) return false;
    // Vehicles that stay merged travel together: at about the same velocity (before the merged link, which
    // jumps to the blob's centroid). A blob passing by a slow track does not carry it along.
    const [, , bvx, bvy] = prev;
    if (velocitiesDiffer(T.vx, T.vy, bvx, bvy)) return false;
    // Beside it, not ahead or behind: a vehicle in the next lane. Two tracks one behind the other in a lane,
    // now one blob, are more likely the parts of one long vehicle, seen whole at last.
    const mx = px - T.x, my = py - T.y;
    const lateral = Math.abs((prev[0] - T.x) * my - (prev[1] - T.y) * mx) / Math.max(1e-9, Math.hypot(mx, my));
    if (lateral < ABREAST * T.det.size) return false;
    const [hx, hy] = clampToBox(D, px, py);
    T.hidden = { by, x: hx, y: hy, alone: this.relArea(prev[4]), own: this.relArea(T.det) };
    return true;
  }

  /**
   * Where and when unlinked D's vehicle was at the previous frame if it has just come out of a merged blob:
   * the blob of a track P linked in this frame was MERGED × the typical vehicle's area or more before it, and
   * is now smaller by at least HOLD_SHARE of D's (P's vehicle went on alone, D's left the blob), and D, moved
   * back by the blob's motion (P's before this frame), lies inside that blob's box. Undefined otherwise, and
   * for D smaller than a whole vehicle (a fragment of the one in P's blob).
   */
  private leftMergedBlob(D: Detection, tMs: number, before: Before): { x: number; y: number; t: number } | undefined {
    const rD = this.relArea(D);
    if (!(rD >= WHOLE * WHOLE)) return undefined;
    for (const P of this.tracks) {
      // Linked in this frame, with a motion of its own before it (as for hide).
      if (P.lastT !== tMs || P.hits < 3) continue;
      const [, , vx, vy, was] = before.get(P)!;
      const r0 = this.relArea(was);
      if (!(r0 >= MERGED) || this.relArea(P.det) + HOLD_SHARE * rD > r0) continue;
      const lastT = P.trail[P.trail.length - 2]!.t;
      const dt = (tMs - lastT) / 1000;
      const [x, y] = this.ground.moved(D.x, D.y, -vx * dt, -vy * dt);
      if (Number.isNaN(y)) continue;
      if (!inBox(was, x, y)) continue;
      return { x, y, t: lastT };
    }
    return undefined;
  }

  /**
   * Whether (x, y) at time t lay in a merged blob (MERGED × the typical vehicle or more) of another track that
   * moved unlike T: T's vehicle was hidden there, in a blob of vehicles going elsewhere (both directions'
   * lanes, where they meet), so it was not seen there as a vehicle of its own. Returns that track.
   */
  private inMergedAgainst(T: Track, x: number, y: number, t: number, interval: number, size: number): Track | undefined {
    for (const P of [...this.tracks, ...this.ended]) {
      if (P === T || !P.hasVel || !this.inBlobOf(P, x, y, t, interval, size)) continue;
      if (velocitiesDiffer(T.lastVx, T.lastVy, P.vx, P.vy)) return P;
    }
    return undefined;
  }

  /** Whether (x, y) at time t lay in P's blob then, a merged blob (MERGED × the typical vehicle or more). */
  private inBlobOf(P: Track, x: number, y: number, t: number, interval: number, size: number): boolean {
    const e = P.trail.find((s) => Math.abs(s.t - t) <= 0.25 * interval);
    return !!e && this.relArea(e.d) >= MERGED && inBox(e.d, x, y, IN_BLOB_MARGIN * size);
  }

  /**
   * This frame's links, cheapest first. Which tracks get a link is decided cheapest pair first: a track left
   * without one is an explanation of its own (hidden in a merged blob, or missed for a frame), and forcing it
   * to its second choice would take another vehicle's blob (see docs/accuracy.md). Which blob each of those
   * tracks takes is then the cheapest set of links over all of them: at 1 fps a follower stands where its
   * leader was, and cheapest-first gave the leader's track the follower's blob (a standstill that costs less
   * than the leader's own step when that step or its blob's size is off), leaving the follower's track to take
   * whatever was left (the freeway clip at 1 fps, 11-12 s: two cars lost).
   */
  private cheapestLinks(sorted: readonly Candidate[], nDets: number): Candidate[] {
    const trackTaken = new Uint8Array(this.tracks.length), detTaken = new Uint8Array(nDets);
    const greedy: Candidate[] = [];
    for (const c of sorted) {
      if (trackTaken[c.t] || detTaken[c.d]) continue;
      trackTaken[c.t] = 1;
      detTaken[c.d] = 1;
      greedy.push(c);
    }
    if (greedy.length < 2) return greedy;
    const row = new Int32Array(this.tracks.length).fill(-1);
    greedy.forEach((c, i) => { row[c.t] = i; });
    const mine = sorted.filter((c) => row[c.t]! >= 0);
    const best = assignEveryRow(greedy.length, nDets, mine.map((c) => ({ r: row[c.t]!, c: c.d, cost: c.cost })));
    if (!best) return greedy;
    return best.sort((a, b) => a - b).map((k) => mine[k]!); // cheapest first, as sorted
  }

  /**
   * Tracks refuted by this frame's links: seen once, as a part of a blob cut apart (see Detection.splitOf) smaller
   * than a whole vehicle (WHOLE), and not linked now, while the track of another part of that blob links to an
   * uncut blob of less than MERGED × the typical vehicle's area. The cut took one vehicle for two, and that blob
   * is all of it: such a track ends, and no later track takes over its sighting (see earlierSighting). Vehicles
   * abreast that merge again make a blob of about twice a vehicle's area, and a part of a whole vehicle's size
   * is one; both tracks stay, as they do while no typical size is learnt.
   * Such a part's track that did link is refuted too (its link is dropped) when that link runs over PART_APART ×
   * as far as the other part's: a piece of the vehicle has no vehicle of its own to go to, and the leftover blob
   * it took was another vehicle, often far off and past a line (at 1 fps, a car entering at the bottom cut in two:
   * one part's track took the car, the other, with no usual motion known there, a car near the top, and counted
   * it). Not in the start-up's passes, which count nothing.
   */
  private refutedCuts(links: readonly Candidate[], dets: readonly Detection[], learnOnly: boolean): Set<Track> {
    const refuted = new Set<Track>();
    const linkOf = new Map(links.map((c) => [this.tracks[c.t]!, c]));
    for (const { t, d, along, lateral } of links) {
      const S = this.tracks[t]!, D = dets[d]!;
      if (S.det.splitOf === undefined || D.splitOf !== undefined || !(this.relArea(D) < MERGED)) continue;
      for (const T of this.tracks) {
        if (T.hits !== 1 || T === S || T.lastT !== S.lastT || !cutParts(T.det, S.det)) continue;
        const own = linkOf.get(T);
        if (own && (learnOnly || !farApart(own, along, lateral))) continue;
        if (this.relArea(T.det) < WHOLE * WHOLE) refuted.add(T);
      }
    }
    return refuted;
  }

  /** Area of D over that of the typical vehicle at its row; NaN while the perspective is unknown. */
  private relArea(D: Detection): number {
    return this.persp.ready ? (D.size / this.persp.size(D.y)) ** 2 : NaN;
  }

  /**
   * Whether a merged blob still holds the hidden vehicle: its relative area is at least that of the other
   * vehicle's blob before the merge plus HOLD_SHARE of the hidden one's (two vehicles: about the sum). Parts
   * of one vehicle tracked apart and seen whole again do not add up so; neither does a blob that is back to
   * one vehicle after the other left it unseen.
   */
  private holds(h: NonNullable<Track['hidden']>): boolean {
    return this.relArea(h.by.det) >= h.alone + HOLD_SHARE * h.own;
  }

  /**
   * The unlinked track seen once, one interval before T's first sighting `born`, that lies where T's first
   * link, run back one interval, puts it (from standing still there to a growing vehicle's longer step, as
   * for a prediction), with a size and look that fit; undefined if none.
   */
  private earlierSighting(T: Track, born: Detection, bornT: number, tMs: number, trackUsed: Uint8Array, taken: Set<Track>): Track | undefined {
    const interval = tMs - bornT;
    const back = this.linkBack(born, T);
    if (!back) return undefined;
    let best: Track | undefined, bestCost = Infinity;
    // Tracks not linked in this frame, and those that ended in the last: a track seen once with no usual motion
    // where it is ends in the frame it is missed (see step), which at 1 fps is the frame its vehicle's next
    // sighting starts a track of its own, whose first link comes one frame later.
    const pool = [...this.tracks.filter((_, ui) => !trackUsed[ui]), ...this.ended];
    for (const U of pool) {
      if (U === T || taken.has(U) || U.hasVel || U.hits !== 1) continue;
      if (Math.abs(U.lastT - (bornT - interval)) > 0.5 * interval) continue;
      const cost = this.backCost(born, back, U.det, false);
      if (cost < bestCost) { bestCost = cost; best = U; }
    }
    return best;
  }

  /**
   * The track whose first sighting, one interval before T's first sighting `born`, lies where T's first link run
   * back one interval puts it (as for earlierSighting), and whose own first link, to the frame T was born in,
   * stood still there: at 1 fps a platoon whose gaps are one interval's travel looks parked, each vehicle's follower
   * arriving where it was, and where the usual motion is thin or wrong a vehicle's first sighting links to its
   * follower. That sighting was T's vehicle; the standing track is the follower's. Undefined if none.
   */
  private standingBirth(T: Track, born: Detection, bornT: number, tMs: number, taken: Set<Track>): Track | undefined {
    const interval = tMs - bornT;
    // Three frames in a row: T's first link missed none (its sighting records the frames missed before it; T.missed
    // is already 0), nor does the standing track's, below.
    if (T.trail[T.trail.length - 1]!.missed > 0) return undefined;
    const back = this.linkBack(born, T);
    if (!back) return undefined;
    let best: Track | undefined, bestCost = Infinity;
    for (const S of this.tracks) {
      // (Seen TRAIL times at most, its first sighting still in its trail.)
      if (S === T || taken.has(S) || S.hits < 2 || S.hits > TRAIL || S.trail.length !== S.hits) continue;
      const s0 = S.trail[0]!, s1 = S.trail[1]!;
      if (Math.abs(s0.t - (bornT - interval)) > 0.5 * interval || s1.missed > 0 || Math.abs(s1.t - bornT) > 0.5 * interval) continue;
      // Its first link stood still (moved less than STILL of its size a second), and it has counted nothing.
      if (Math.hypot(s1.d.x - s0.d.x, s1.d.y - s0.d.y) > STILL * s0.d.size * ((s1.t - s0.t) / 1000)) continue;
      if (S.lines.counted.some((c) => c !== 0)) continue;
      const U = s0.d;
      // A follower stands where the vehicle was only if the vehicle went on by a vehicle's length at least.
      if (Math.hypot(born.x - U.x, born.y - U.y) < 0.5 * (born.size + U.size)) continue;
      // The step back may reach far beyond the frame (near the camera): the gate allows for the error of the part
      // of it taken, not of all of it (with all of it, a car of the lane beside was taken over: backward freeway).
      const cost = this.backCost(born, back, U, true);
      if (cost < bestCost) { bestCost = cost; best = S; }
    }
    return best;
  }

  /** T's first link from `born`, run back one interval (see stepBack), as a step from `born`; undefined if none. */
  private linkBack(born: Detection, T: Track): { mx: number; my: number; m2: number } | undefined {
    const [bx, by] = this.stepBack(born, T);
    if (Number.isNaN(by)) return undefined;
    const mx = bx - born.x, my = by - born.y;
    const m2 = mx * mx + my * my;
    return m2 === 0 ? undefined : { mx, my, m2 };
  }

  /**
   * How well blob U fits as the sighting one interval before `born` along the step `back` (from standing still there
   * to a growing vehicle's longer step, as for a prediction), with a size and look that fit; Infinity if it does
   * not. The gate allows for the error of all of the step or, with `partGate`, of the part of it up to U.
   */
  private backCost(born: Detection, back: { mx: number; my: number; m2: number }, U: Detection, partGate: boolean): number {
    const grow = this.persp.ready ? this.persp.size(U.y) / this.persp.size(born.y) : 1;
    const { k, e } = onStep(born.x, born.y, back.mx, back.my, 0, this.kMax(grow), U.x, U.y);
    const R = 0.6 * born.size * Math.max(1, grow) + 0.25 * (partGate ? k : 1) * Math.sqrt(back.m2);
    if (e > R) return Infinity;
    const like = likeness(born, U, grow);
    if (!like) return Infinity;
    return e / R + SPEED_CHANGE_COST * Math.abs(1 - k) + 0.7 * like.app + 0.5 * like.lr;
  }

  /** S starts again from its second sighting: its first was another vehicle's (see standingBirth). */
  private dropBirth(S: Track): void {
    S.trail.shift();
    S.hits--;
    const f = S.trail[0]!.d;
    S.firstX = f.x;
    S.firstY = f.y;
    S.farX = S.x;
    S.farY = S.y;
    // Seen once now: no motion of its own, and not yet a linked track (see linked).
    if (S.hits === 1) {
      this.linked--;
      S.hasVel = false;
      S.vx = S.vy = S.lastVx = S.lastVy = 0;
    }
  }

  /**
   * Feeds T's position (x, y) at tMs, where it was seen or is judged to be, to the line counter, with the margin
   * and rules of its latest sighting; its crossings go to `out`.
   */
  private observe(T: Track, x: number, y: number, tMs: number, out: TrackCrossing[], dupWindowMs: number, awaitNext = false): void {
    const D = T.det;
    const rules = this.lineRules(D, tMs);
    const accept: Accept = awaitNext ? (...a) => rules.accept(...a) && 'later' : rules.accept;
    for (const c of this.lines.observe(T.lines, x, y, tMs, rules.margin, D.size, T.firstX, T.firstY, dupWindowMs, accept, this.kinship)) {
      out.push({ ...c, track: T, det: D });
    }
  }

  /**
   * Settles T's awaiting crossings by its link from (px, py) to where it is now: a vehicle that has just
   * crossed a line goes on; a link back across it by more than AWAIT_BACK × its size shows that the link
   * before took another vehicle (at 1 fps, a track missed for seconds takes a car entering the view in the
   * other direction), and the crossing is refused as a wrong link. Those passed go out held (provisional), so
   * the usual motion still judges them.
   */
  private confirm(T: Track, px: number, py: number, out: TrackCrossing[]): void {
    for (const c of T.awaiting!) {
      const back = (this.lines.side(c.line, T.x, T.y) - this.lines.side(c.line, px, py)) * (c.direction === 'in' ? 1 : -1);
      if (back < -AWAIT_BACK * T.det.size) this.lines.settle(c, false);
      else out.push(c);
    }
    T.awaiting = undefined;
  }

  /** Crossings still awaiting a next link, passed on held (see confirm): when every track ends, and when counting stops. */
  release(): TrackCrossing[] {
    const out: TrackCrossing[] = [];
    for (const T of this.tracks) {
      if (T.awaiting) out.push(...T.awaiting);
      T.awaiting = undefined;
    }
    return out;
  }

  /**
   * What the tracks owning line states `mine` (T, the one crossing now) and `other` (U, whose crossing came
   * first) were seen to be (see seenApart, partsOfOne). Bound once: the line counter calls it only for a
   * crossing close to another in time and along the line.
   */
  private readonly kinship: Kinship = (mine, other) => {
    const T = this.tracks.find((V) => V.lines === mine);
    const U = this.tracks.find((V) => V.lines === other);
    if (!T || !U || U === T) return undefined;
    if (this.seenApart(T, U)) return 'two';
    if (partsOfOne(T, U)) return 'one';
    // One's vehicle was hidden in the other's merged blob, beside the other's vehicle (see hide), until its
    // latest link: two vehicles, as for its crossings while hidden, which skip the duplicate check. Unless they
    // were parts of one cut blob in every frame both were seen in (above): then that blob was one vehicle, cut
    // or not (a lorry at 5 fps).
    if (T.trail[T.trail.length - 1]!.hiddenBy === U || U.trail[U.trail.length - 1]!.hiddenBy === T) return 'two';
    return undefined;
  };

  /**
   * Whether T and U follow two vehicles, not parts of one: in a frame both were seen in (of the last TRAIL
   * sightings of each), their blobs were two whole vehicles (see wholeVehicle) whose boxes overlap by less
   * than OVERLAP × the smaller one's size. Such a pair was seen as two vehicles, so it is not one vehicle's
   * fragments when their crossings fall close together (at 1 fps the crossing times are interpolated between
   * frames a second apart: two cars 0.6 s apart in a lane fall within the duplicate window). Parts of a split
   * blob, or blobs smaller than a vehicle, may be fragments, and stay judged by the window; so does a crossing
   * T made over missed frames, or by a link after some (at 1 fps a track missed for seconds can jump to
   * another vehicle far off).
   */
  private seenApart(T: Track, U: Track): boolean {
    // Only a crossing seen from one frame to the next: a link after missed frames may be a wrong one.
    if (T.missed > 0 || T.trail[T.trail.length - 1]!.missed > 0) return false;
    const theirs = U.trail.slice(-TRAIL);
    for (const { t, d: a } of T.trail.slice(-TRAIL)) {
      if (!this.wholeVehicle(a)) continue;
      for (const { t: u, d: b } of theirs) {
        if (t !== u || a === b || !this.wholeVehicle(b)) continue;
        const gap = Math.max(b.bx - (a.bx + a.bw), a.bx - (b.bx + b.bw), b.by - (a.by + a.bh), a.by - (b.by + b.bh));
        if (gap > -OVERLAP * Math.min(a.size, b.size)) return true;
      }
    }
    return false;
  }

  /** Tells the line counter's duplicate check what T's latest blob is (see LineState.reach). */
  private describe(T: Track): void {
    const D = T.det;
    T.lines.reach = D.splitSize ?? D.size;
    T.lines.fragment = D.splitOf === undefined && !this.wholeVehicle(D);
  }

  /** Whether D is an uncut blob of at least WHOLE × the typical vehicle's size at its row (see relArea). */
  private wholeVehicle(D: Detection): boolean {
    return D.whole && this.relArea(D) >= WHOLE * WHOLE;
  }

  /**
   * What every crossing of detection D at tMs is judged by: the hysteresis margin for its size, and withFlow
   * (held for later where it cannot tell yet, unless heldCrossingMaxSec is 0).
   */
  private lineRules(D: Detection, tMs: number): { margin: number; accept: Accept } {
    return {
      margin: Math.max(this.p.lineMinMarginPx, this.p.lineMarginFrac * D.size),
      accept: (_line, direction, cx, cy) => this.withFlow(direction, cx, cy, tMs) ?? (this.p.heldCrossingMaxSec > 0 ? 'later' : true),
    };
  }

  /**
   * Bounds of a link with no motion known (a new track's first), sizes per second, `dt` s long and running `along`
   * the road axis: along it up to the plausible speed, sideways up to 1.5 times its speed along (roads may cross a
   * line up to ~56° off square), each with half a vehicle of centroid jitter as slack.
   */
  private freeBounds(dt: number, along: number): { maxAlong: number; latMax: number } {
    const slack = 0.5 / dt;
    return { maxAlong: this.p.maxSpeedSizesPerSec + slack, latMax: 1.2 * slack + 1.5 * Math.abs(along) };
  }

  /** How unlike b is to a (see likeness), with the size change perspective expects between their rows once learnt. */
  private alike(a: Detection, b: Detection): { lr: number; app: number } | undefined {
    return likeness(a, b, this.persp.ready ? this.persp.size(b.y) / this.persp.size(a.y) : 1);
  }

  /**
   * Adds to `out` the vehicles seen steadily in the three consecutive frames A, B, C (start-up frames, see
   * CameraAnalyzer.relearnFromSteady). At 1 fps two sightings cannot tell a vehicle's own step from the step to its
   * follower (traffic moving up the image 2 sizes a second, 4 sizes apart, looks the same as traffic moving down
   * 2 sizes a second), and which one the first links of a start-up settle on is chance. A third sighting where the
   * same speed takes it decides: a wrong pairing is only continued where three vehicles happen to follow at equal
   * gaps. Each blob of A weighs 1 in all, shared among the triples it starts (by likeness).
   */
  steadyTriples(A: SteadySighting, B: SteadySighting, C: SteadySighting, out: SteadyTriple[]): void {
    const dt1 = (B.tMs - A.tMs) / 1000, dt2 = (C.tMs - B.tMs) / 1000;
    if (!(dt1 > 0 && dt2 > 0) || dt1 > this.p.trackMaxMissedSec || dt2 > this.p.trackMaxMissedSec) return;
    const G = this.ground;
    G.refresh();
    const P = this.persp;
    const sizeRef = P.ready ? P.size(this.yref) : NaN;
    for (const D0 of A.dets) {
      const n = this.nearestNormal(D0.x, D0.y);
      const first = out.length;
      for (const D1 of B.dets) {
        const gvx = (G.gx(D1.x, D1.y) - G.gx(D0.x, D0.y)) / dt1, gvy = (G.gy(D1.y) - G.gy(D0.y)) / dt1;
        const unit = this.speedUnit(sizeRef, D0.y, D1.y, D0.size, D1.size);
        const [a, l] = groundToAlongLateral(gvx, gvy, n);
        const along = a / unit, lateral = l / unit;
        // A link a new track could make (see step): moving, at a plausible speed, mostly along the road axis.
        const { maxAlong, latMax } = this.freeBounds(dt1, along);
        if (Math.hypot(along, lateral) < STILL || Math.abs(along) > maxAlong || Math.abs(lateral) > latMax) continue;
        const l01 = this.alike(D0, D1);
        if (!l01) continue;
        const [px, py] = G.moved(D1.x, D1.y, gvx * dt2, gvy * dt2);
        if (Number.isNaN(py)) continue;
        // Within half a typical vehicle of where the same speed takes it: speed changes little in a second.
        const R = 0.5 * (P.ready ? P.size(py) : D1.size);
        for (const D2 of C.dets) {
          if (Math.hypot(D2.x - px, D2.y - py) > R) continue;
          const l12 = this.alike(D1, D2);
          if (!l12) continue;
          out.push({ d0: D0, d1: D1, d2: D2, along, lateral, weight: Math.exp(-l01.app * l01.app - l12.app * l12.app), tSec: B.tMs / 1000 });
        }
      }
      let sum = 0;
      for (let k = first; k < out.length; k++) sum += out[k]!.weight;
      if (sum > 1) for (let k = first; k < out.length; k++) out[k]!.weight /= sum;
    }
  }

  /**
   * Whether a crossing at (cx, cy) runs with the established flow of its own lane: one against it is a wrong
   * link (at 1 fps: a follower taken for the leader), not a wrong-way vehicle. Undefined where no usual motion
   * is known there at tMs: early on, before the place has learnt it (its first vehicles' links vote for every
   * plausible motion, and can leave a place's usual motion unclear for a while), or where both directions mix.
   */
  withFlow(direction: 'in' | 'out', cx: number, cy: number, tMs: number): boolean | undefined {
    const prior = this.flow.at(cx, cy, tMs / 1000);
    return prior ? prior.along * (direction === 'in' ? 1 : -1) > -AGAINST_FLOW : undefined;
  }

  /**
   * Image direction (full px, any length) of the usual motion at (x, y), from the flow prior through the
   * ground plane; undefined where no usual motion is known.
   */
  imageDirection(x: number, y: number, tSec: number): [number, number] | undefined {
    const prior = this.flow.at(x, y, tSec);
    if (!prior || (prior.along === 0 && prior.lateral === 0)) return undefined;
    const n = this.nearestNormal(x, y);
    const G = this.ground;
    G.refresh();
    // A long step (1000 ground px; less for a usual motion under one size per second) along the usual motion,
    // mapped back to the image. For vehicles coming nearer it often passes the camera: no direction then, and
    // the blob is split by image columns. (A local step is exact for the learnt road plane, but where the plane
    // is poor, as at 1 fps on a short clip, its cuts were worse than columns: freeway clip at 1 fps 12 of 24
    // instead of 21.)
    const eps = 1e-3 * Math.max(1, Math.hypot(prior.along, prior.lateral));
    const [gvx, gvy] = alongLateralToGround(prior.along / eps, prior.lateral / eps, n);
    const [x2, y2] = G.moved(x, y, gvx, gvy);
    if (Number.isNaN(y2)) return undefined;
    return x2 === x && y2 === y ? undefined : [x2 - x, y2 - y];
  }

  /**
   * Where a vehicle at (x, y), moving at the usual motion of its place, is `sec` seconds later (f) and was `sec`
   * earlier (b), in full px; undefined where no usual motion is known there at tSec, where it stands (under
   * STILL), or beyond the learnt road plane's horizon. For the line reach diagnostic: it reads
   * the flow prior without decaying it, so asking changes no count.
   */
  usualStep(x: number, y: number, tSec: number, sec: number): { fx: number; fy: number; bx: number; by: number } | undefined {
    const prior = this.flow.at(x, y, tSec, true);
    if (!prior || Math.hypot(prior.along, prior.lateral) < STILL || !this.persp.ready) return undefined;
    const [gvx, gvy] = this.usualVelocity(y, this.persp.size(y), prior, this.persp.size(this.yref), this.nearestNormal(x, y));
    const [fx, fy] = this.ground.moved(x, y, gvx * sec, gvy * sec);
    const [bx, by] = this.ground.moved(x, y, -gvx * sec, -gvy * sec);
    if ([fx, fy, bx, by].some((v) => !Number.isFinite(v))) return undefined;
    return { fx, fy, bx, by };
  }

  /**
   * Ground velocity (px/s, see Track.vx) of a vehicle of blob size `size` at row y moving at `prior`, the usual
   * motion where it is.
   */
  private usualVelocity(y: number, size: number, prior: FlowEstimate, sizeRef: number, n: { nx: number; ny: number }): [number, number] {
    const unit = this.speedUnit(sizeRef, y, y, size, size);
    return alongLateralToGround(prior.along * unit, prior.lateral * unit, n);
  }

  /**
   * Length (px) that turns a displacement into "vehicle sizes": on the ground plane the reference row's
   * typical size; without it, the typical size where the link is, or the blobs' own sizes.
   */
  private speedUnit(sizeRef: number, y1: number, y2: number, s1: number, s2: number): number {
    if (this.ground.active && !Number.isNaN(sizeRef)) return sizeRef;
    if (this.persp.ready) return Math.sqrt(this.persp.size(y1) * this.persp.size(y2));
    return Math.sqrt(s1 * s2);
  }

  /**
   * Where a vehicle seen at `from` and one interval later at `to` was j intervals (one unless given) before `from`,
   * at the same speed on the learnt road plane; NaN beyond the horizon.
   */
  private stepBack(from: { x: number; y: number }, to: { x: number; y: number }, j = 1): [number, number] {
    const G = this.ground;
    const y = G.y((j + 1) * G.gy(from.y) - j * G.gy(to.y));
    return [Number.isNaN(y) ? NaN : G.x((j + 1) * G.gx(from.x, from.y) - j * G.gx(to.x, to.y), y), y];
  }

  /**
   * How far beyond a predicted step a vehicle may land, as a fraction of it. Without a ground plane the
   * prediction is a straight image step, but a vehicle coming nearer speeds up in the image: its image speed
   * grows as the square of its size (both ∝ 1/distance, speed as its square); `grow` is the size ratio.
   */
  private kMax(grow: number): number {
    return this.ground.active ? 1.35 : 1.35 * Math.max(1, grow * grow);
  }

  private nearestNormal(x: number, y: number): { nx: number; ny: number } {
    let best = 0, bestD = Infinity;
    for (let i = 0; i < this.normals.length; i++) {
      const d = Math.abs(this.lines.side(i, x, y));
      if (d < bestD) { bestD = d; best = i; }
    }
    return this.normals[best]!;
  }

  /** Fraction of the step (mx, my) from (x, y) that stays inside the ROI's bounds (Infinity for no step). */
  private visibleFraction(x: number, y: number, mx: number, my: number): number {
    const b = this.bounds;
    const kx = mx > 0 ? (b.x1 - x) / mx : mx < 0 ? (b.x0 - x) / mx : Infinity;
    const ky = my > 0 ? (b.y1 - y) / my : my < 0 ? (b.y0 - y) / my : Infinity;
    return Math.max(0, Math.min(kx, ky));
  }

  private outside(x: number, y: number, size: number): boolean {
    const b = this.bounds;
    return x < b.x0 - size || x > b.x1 + size || y < b.y0 - size || y > b.y1 + size;
  }
}

/**
 * Where a detection at (x, y) lands on a step (mx, my) predicted from (x0, y0): k, the fraction of the step
 * (clamped to [kMin, kMax]: vehicles brake and accelerate), and e, its distance from that point.
 */
function onStep(x0: number, y0: number, mx: number, my: number, kMin: number, kMax: number, x: number, y: number): { k: number; e: number } {
  const m2 = mx * mx + my * my;
  const k = m2 > 0 ? Math.min(kMax, Math.max(kMin, ((x - x0) * mx + (y - y0) * my) / m2)) : 0;
  return { k, e: Math.hypot(x - (x0 + k * mx), y - (y0 + k * my)) };
}

/**
 * Whether T and U followed two parts of one blob cut apart (see Detection.splitOf) in every frame both were
 * seen in, of their last TRAIL sightings, and in two such frames at least (the one crossing now may be linked
 * before the other is, in this frame): never two blobs, so never seen as two vehicles. Such parts may still
 * be two vehicles abreast; the line counter tells them by where they cross (see LineCounter.isDuplicate).
 */
function partsOfOne(T: Track, U: Track): boolean {
  let frames = 0;
  const theirs = U.trail.slice(-TRAIL);
  for (const { t, d: a } of T.trail.slice(-TRAIL)) {
    const b = theirs.find((o) => o.t === t)?.d;
    if (!b) continue;
    if (a === b || !cutParts(a, b)) return false;
    frames++;
  }
  return frames >= 2;
}

/**
 * Whether T's last blob and B's last one before its link in this frame were parts of one blob cut apart (see
 * Detection.splitOf), in the same frame.
 */
function cutApart(T: Track, B: Track | undefined): boolean {
  const last = B?.trail[B.trail.length - 2];
  return last !== undefined && cutParts(T.det, last.d) && last.t === T.lastT;
}

/**
 * Whether link c runs over PART_APART × as far as the other part's link (along, lateral), and over a vehicle size a
 * second further (speeds in sizes per second, see Candidate).
 */
function farApart(c: Candidate, along: number, lateral: number): boolean {
  const other = Math.hypot(along, lateral);
  return Math.hypot(c.along, c.lateral) > PART_APART * other && Math.hypot(c.along - along, c.lateral - lateral) > 1;
}

/** Whether blobs a and b (of one frame) carry the label of one blob cut apart (see Detection.splitOf). */
function cutParts(a: Detection, b: Detection): boolean {
  return a.splitOf !== undefined && a.splitOf === b.splitOf;
}

/** Whether U's blob held (x, y) in a sighting within a quarter of `interval` of time t. */
function sightedAt(U: Track, t: number, interval: number, x: number, y: number): boolean {
  return U.trail.some((e) => Math.abs(e.t - t) <= 0.25 * interval && inBox(e.d, x, y));
}

/** (x, y) moved into D's box. */
function clampToBox(D: Detection, x: number, y: number): [number, number] {
  return [Math.min(D.bx + D.bw, Math.max(D.bx, x)), Math.min(D.by + D.bh, Math.max(D.by, y))];
}

/** Whether (x, y) lies in D's box widened by m px on every side, edges included. */
function inBox(D: Detection, x: number, y: number, m = 0): boolean {
  return !(x < D.bx - m || x > D.bx + D.bw + m || y < D.by - m || y > D.by + D.bh + m);
}

/** Whether two velocities differ by more than SAME_VELOCITY × the faster one's speed: not travelling together. */
function velocitiesDiffer(ax: number, ay: number, bx: number, by: number): boolean {
  return Math.hypot(ax - bx, ay - by) > SAME_VELOCITY * Math.max(Math.hypot(ax, ay), Math.hypot(bx, by));
}

/**
 * How unlike sighting a the sighting b is, where perspective makes b's size expRatio times a's: lr, the log of
 * the size ratio left over, and app, the thumbnail distance in APPEARANCE_SCALE units; undefined when b cannot
 * be the same vehicle.
 */
function likeness(a: Detection, b: Detection, expRatio: number): { lr: number; app: number } | undefined {
  const lr = Math.abs(Math.log(b.size / (a.size * expRatio)));
  if (lr > MAX_SIZE_RATIO) return undefined;
  const app = thumbDistance(a.thumb, b.thumb) / APPEARANCE_SCALE;
  return app > MAX_APPEARANCE ? undefined : { lr, app };
}

/** A ground x/y motion as its parts across (along the normal n) and along a line (see alongLateralToGround). */
function groundToAlongLateral(gx: number, gy: number, n: { readonly nx: number; readonly ny: number }): [number, number] {
  return [gx * n.nx + gy * n.ny, gx * n.ny - gy * n.nx];
}

/** A motion given across (along the normal n) and along a line, as ground x/y: (n.ny, −n.nx) runs along the line. */
function alongLateralToGround(along: number, lateral: number, n: { readonly nx: number; readonly ny: number }): [number, number] {
  return [along * n.nx + lateral * n.ny, along * n.ny - lateral * n.nx];
}
