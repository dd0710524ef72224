// Deterministic microscopic traffic simulation (Intelligent Driver Model, no lane changes) on the scene's
// four lanes, with exact ground-truth crossing times. State at step k depends only on steps < k, so any
// time can be reproduced by re-running from the start.

import type { CameraModel } from './camera-model.js';
import { crossingAt, type SimLine } from './counting-lines.js';
import { Rng } from './prng.js';
import { INBOUND_ENTRY_Z, LANES, OUTBOUND_EXIT_Z, type TravelDirection } from './road-layout.js';
import type { ScenarioParams, SignalParams } from './scenarios.js';
import { ArrivalStream, type Arrival } from './vehicle-schedule.js';
import { buildVehicleModel, type VehicleModel, type VehicleType } from './vehicle-model.js';
import { isOffFrame } from './vehicle-placement.js';

/** Simulation time step, s. Positions between steps are interpolated linearly (also for the truth). */
export const SIM_DT = 0.05;
/** The road is filled by simulating this long before t = 0 (warm start). */
export const WARMUP_SEC = 90;
/** At t = 0 vehicles this close (m) before their counting line are removed, so nothing crosses in the first seconds. */
const CLEAR_ZONE_M = 75;
/** Outbound arrivals before this time are dropped (they would cross in the first ~3.5 s). */
const OUTBOUND_QUIET_SEC = 2.5;
/** Common progress origin for outbound lanes (front-bumper Z), m: behind the camera. */
const OUTBOUND_ORIGIN_Z = -40;
/** Arrivals waiting for room at a lane entry; beyond this the new arrival is dropped (bounded queue). */
const MAX_PENDING_PER_LANE = 32;
/** Ended vehicles are kept this long (sim seconds) for rendering past frames. */
const RETAIN_SEC = 600;

export interface TruthEvent {
  /** Seconds since simulation start (t = 0). */
  readonly t: number;
  readonly lineId: string;
  readonly direction: 'in' | 'out';
  /** Column of the vehicle's body bounding-box centre at the crossing. */
  readonly x: number;
  readonly type: VehicleType;
  readonly vehicleId: number;
}

export interface SimVehicle {
  readonly id: number;
  readonly direction: TravelDirection;
  readonly laneIndex: number;
  /** Centre line X in the world, m. */
  readonly x: number;
  readonly model: VehicleModel;
  /** Progress of the front bumper along the lane (common origin per lane), m, at each step from bornStep. */
  readonly samples: number[];
  readonly bornStep: number;
  /** Last step at which the vehicle exists (Infinity while on the road). */
  diedStep: number;
  // IDM state and parameters
  s: number;
  v: number;
  readonly v0: number;
  readonly accel: number;
  readonly decel: number;
  readonly minGap: number;
  readonly headway: number;
  /** Progress at which the body's bounding-box centre crosses this carriageway's line (null: never). */
  readonly crossS: number | null;
  readonly crossU: number;
  readonly crossLine: SimLine | null;
  /** Progress beyond which the vehicle cannot be seen any more. */
  readonly exitS: number;
}

/** Front-bumper Z for a progress value. */
export function frontZOf(direction: TravelDirection, s: number): number {
  return direction === 'in' ? INBOUND_ENTRY_Z - s : OUTBOUND_ORIGIN_Z + s;
}

function progressOf(direction: TravelDirection, frontZ: number): number {
  return direction === 'in' ? INBOUND_ENTRY_Z - frontZ : frontZ - OUTBOUND_ORIGIN_Z;
}

interface Prepared {
  readonly model: VehicleModel;
  readonly x: number;
  readonly sStart: number;
  readonly crossS: number | null;
  readonly crossU: number;
  readonly crossLine: SimLine | null;
  readonly exitS: number;
}

interface PendingArrival {
  readonly arrival: Arrival;
  prepared?: Prepared;
}

function idmAccel(veh: SimVehicle, gap: number, leaderV: number): number {
  const v = veh.v;
  const dv = v - leaderV;
  const sStar = veh.minGap + Math.max(0, v * veh.headway + (v * dv) / (2 * Math.sqrt(veh.accel * veh.decel)));
  const g = Math.max(gap, 0.1);
  return veh.accel * (1 - (v / veh.v0) ** 4 - (sStar / g) ** 2);
}

function isRed(sig: SignalParams, t: number): boolean {
  const cycle = sig.greenSec + sig.redSec;
  const phase = (((t + sig.offsetSec) % cycle) + cycle) % cycle;
  return phase >= sig.greenSec;
}

export class TrafficSimulation {
  private readonly seed: number;
  private readonly params: ScenarioParams;
  private readonly camera: CameraModel;
  private readonly lines: readonly SimLine[];
  private readonly lineRow: number;
  private streams!: Record<TravelDirection, ArrivalStream>;
  /** Vehicles on each lane, leader (furthest progress) first. */
  private lanes!: SimVehicle[][];
  private pending!: PendingArrival[][];
  /** Every vehicle still retained, in birth order (for rendering). */
  private vehicles!: SimVehicle[];
  private events!: TruthEvent[];
  /** Last simulated step (positions known up to and including it). */
  private step!: number;
  /** Earliest step whose vehicles are all still retained. */
  private retainedFrom!: number;
  private readonly bbox = new Float64Array(4);
  /** Arrivals dropped because a lane entry queue was full. */
  droppedArrivals = 0;

  constructor(seed: number, params: ScenarioParams, camera: CameraModel, lines: readonly SimLine[], lineRow: number) {
    this.seed = seed;
    this.params = params;
    this.camera = camera;
    this.lines = lines;
    this.lineRow = lineRow;
    this.reset();
  }

  private reset(): void {
    this.streams = {
      in: new ArrivalStream(this.seed, this.params, 'in', -WARMUP_SEC),
      out: new ArrivalStream(this.seed, this.params, 'out', -WARMUP_SEC),
    };
    this.lanes = LANES.map(() => []);
    this.pending = LANES.map(() => []);
    this.vehicles = [];
    this.events = [];
    this.step = Math.round(-WARMUP_SEC / SIM_DT);
    this.retainedFrom = this.step;
    this.droppedArrivals = 0;
  }

  /**
   * Simulates up to time tSec (inclusive). With forRendering, re-runs from the start when tSec is before
   * the retained vehicle history (events are always kept, so truth queries never need that).
   */
  advanceTo(tSec: number, forRendering = false): void {
    const target = Math.ceil(tSec / SIM_DT - 1e-9) + 1;
    if (forRendering && Math.floor(tSec / SIM_DT) < this.retainedFrom) this.reset();
    while (this.step < target) this.advance();
  }

  /** Vehicles on the road at time tSec with their front-bumper Z (call advanceTo first). */
  vehiclesAt(tSec: number, cb: (veh: SimVehicle, frontZ: number) => void): void {
    const k = Math.floor(tSec / SIM_DT + 1e-9);
    const frac = tSec / SIM_DT - k;
    for (const veh of this.vehicles) {
      if (k < veh.bornStep || k > veh.diedStep) continue;
      const i = k - veh.bornStep;
      const s0 = veh.samples[i]!;
      const s1 = i + 1 < veh.samples.length ? veh.samples[i + 1]! : s0;
      const s = k + 1 > veh.diedStep ? s0 : s0 + (s1 - s0) * Math.max(0, frac);
      cb(veh, frontZOf(veh.direction, s));
    }
  }

  /** Crossing events with fromSec < t <= untilSec, in time order (call advanceTo(untilSec) first). */
  eventsBetween(fromSec: number, untilSec: number): TruthEvent[] {
    const ev = this.events;
    let lo = 0, hi = ev.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ev[mid]!.t <= fromSec) lo = mid + 1;
      else hi = mid;
    }
    const out: TruthEvent[] = [];
    for (let i = lo; i < ev.length && ev[i]!.t <= untilSec; i++) out.push(ev[i]!);
    return out;
  }

  /** Geometry of an arrival's vehicle, worked out once while it waits at the lane entry. */
  private prepare(a: Arrival): Prepared {
    const lane = LANES[a.laneIndex]!;
    const model = buildVehicleModel(a.type, new Rng(a.appearanceSeed));
    const x = lane.x + a.lateralOffset;
    // Outbound vehicles start hidden under the camera; inbound far up the road.
    let sStart = 0;
    if (a.direction === 'out') {
      let z = 20;
      while (z > -30 && !isOffFrame(this.camera, model, 'out', x, z, this.bbox)) z -= 0.5;
      sStart = progressOf('out', z);
    }
    const line = this.lines.find((l) => l.direction === a.direction) ?? null;
    const c = line ? crossingAt(this.camera, model, a.direction, x, this.lineRow) : null;
    const inRange = c && line ? c.u >= Math.min(line.from[0], line.to[0]) && c.u <= Math.max(line.from[0], line.to[0]) : false;
    // Leaves when nothing of it can be seen any more.
    let exitS: number;
    if (a.direction === 'in') {
      let z = c ? c.frontZ : 30;
      while (z > -40 && !isOffFrame(this.camera, model, 'in', x, z, this.bbox)) z -= 0.5;
      exitS = progressOf('in', z);
    } else {
      exitS = progressOf('out', OUTBOUND_EXIT_Z);
    }
    return {
      model,
      x,
      sStart,
      crossS: c && inRange ? progressOf(a.direction, c.frontZ) : null,
      crossU: c ? c.u : NaN,
      crossLine: c && inRange ? line : null,
      exitS,
    };
  }

  private spawn(p: PendingArrival, step: number): boolean {
    const a = p.arrival;
    p.prepared ??= this.prepare(a);
    const { model, x, sStart, crossS, crossU, crossLine, exitS } = p.prepared;
    const laneVehicles = this.lanes[a.laneIndex]!;
    const tail = laneVehicles[laneVehicles.length - 1];
    let v = a.desiredSpeed;
    if (tail) {
      const gap = tail.s - tail.model.length - sStart;
      if (gap < 4) return false; // no room yet: wait in the entry queue
      v = Math.min(v, tail.v + Math.sqrt(2 * 1.5 * Math.max(0, gap - 3)));
    }
    const heavy = a.type === 'heavy';
    const veh: SimVehicle = {
      id: a.id,
      direction: a.direction,
      laneIndex: a.laneIndex,
      x,
      model,
      samples: [sStart],
      bornStep: step,
      diedStep: Infinity,
      s: sStart,
      v,
      v0: a.desiredSpeed,
      accel: heavy ? 0.9 : a.type === 'two-wheeler' ? 2.0 : 1.4,
      decel: 2.0,
      minGap: a.type === 'two-wheeler' ? 1.5 : 2.0,
      headway: heavy ? 1.4 : 1.1,
      crossS,
      crossU,
      crossLine,
      exitS,
    };
    laneVehicles.push(veh);
    this.vehicles.push(veh);
    return true;
  }

  private advance(): void {
    const k = this.step; // positions at step k are known; compute step k + 1
    const t = k * SIM_DT;
    // 1. Arrivals due by now join their lane's entry queue; the queue head enters when there is room.
    for (const dir of ['in', 'out'] as const) {
      const stream = this.streams[dir];
      for (let a = stream.peek(); a && a.t <= t; a = stream.peek()) {
        stream.shift();
        if (dir === 'out' && t >= 0 && t < OUTBOUND_QUIET_SEC) continue;
        const q = this.pending[a.laneIndex]!;
        if (q.length >= MAX_PENDING_PER_LANE) this.droppedArrivals++;
        else q.push({ arrival: a });
      }
    }
    for (let li = 0; li < LANES.length; li++) {
      const q = this.pending[li]!;
      if (q.length > 0 && this.spawn(q[0]!, k)) q.shift();
    }
    // 2. Car following: leaders first, so each follower sees its leader's new position.
    const stepEvents: TruthEvent[] = [];
    for (let li = 0; li < LANES.length; li++) {
      const lane = this.lanes[li]!;
      const signal = this.params.signals[LANES[li]!.direction];
      const stopS = signal ? progressOf(LANES[li]!.direction, signal.stopZ) : Infinity;
      const red = signal ? isRed(signal, t) : false;
      let signalHandled = false;
      for (let i = 0; i < lane.length; i++) {
        const veh = lane[i]!;
        if (veh.bornStep > k) continue;
        const leader = i > 0 ? lane[i - 1]! : null;
        let acc = leader ? idmAccel(veh, leader.s - leader.model.length - veh.s, leader.v) : idmAccel(veh, Infinity, veh.v);
        if (red && !signalHandled && veh.s < stopS) {
          const gap = stopS - veh.s - 0.5;
          // Stop for red only if that needs less than 4 m/s^2; otherwise drive through (amber runner)
          // and let the next vehicle decide.
          if (gap > 0 && (veh.v * veh.v) / (2 * gap) < 4) {
            acc = Math.min(acc, idmAccel(veh, gap, 0));
            signalHandled = true;
          }
        }
        acc = Math.max(acc, -9);
        let v1 = Math.max(0, veh.v + acc * SIM_DT);
        let s1 = veh.s + ((veh.v + v1) / 2) * SIM_DT;
        if (leader) {
          // Never overlap the leader, whatever the integration error.
          const limit = leader.s - leader.model.length - 0.5;
          if (s1 > limit) {
            s1 = Math.max(veh.s, limit);
            v1 = Math.min(v1, leader.v);
          }
        }
        if (veh.crossS !== null && veh.s < veh.crossS && s1 >= veh.crossS && veh.crossLine) {
          const tc = t + (SIM_DT * (veh.crossS - veh.s)) / (s1 - veh.s);
          if (tc > 0) {
            stepEvents.push({
              t: tc,
              lineId: veh.crossLine.id,
              direction: veh.direction,
              x: veh.crossU,
              type: veh.model.type,
              vehicleId: veh.id,
            });
          }
        }
        veh.s = s1;
        veh.v = v1;
        veh.samples.push(s1);
      }
    }
    this.step = k + 1;
    stepEvents.sort((a, b) => a.t - b.t || a.vehicleId - b.vehicleId);
    for (const e of stepEvents) this.events.push(e);
    // 3. Vehicles that can no longer be seen leave the road.
    for (const lane of this.lanes) {
      while (lane.length > 0 && lane[0]!.s >= lane[0]!.exitS) {
        lane.shift()!.diedStep = this.step;
      }
    }
    if (this.step === 0) this.clearStartZone();
    this.prune();
  }

  /** At t = 0: remove vehicles about to cross a line, so a counter can learn the background first. */
  private clearStartZone(): void {
    for (const lane of this.lanes) {
      for (let i = lane.length - 1; i >= 0; i--) {
        const veh = lane[i]!;
        const approaching = veh.crossS !== null ? veh.s < veh.crossS && veh.s >= veh.crossS - CLEAR_ZONE_M : false;
        if (approaching || (veh.direction === 'out' && veh.crossS !== null && veh.s < veh.crossS)) {
          veh.diedStep = -1; // never visible at t >= 0
          lane.splice(i, 1);
        }
      }
    }
    for (const li of [2, 3]) this.pending[li]!.length = 0;
  }

  private prune(): void {
    const keepFrom = this.step - Math.round(RETAIN_SEC / SIM_DT);
    if (this.vehicles.length === 0 || this.vehicles[0]!.diedStep >= keepFrom) return;
    const kept = this.vehicles.filter((v) => v.diedStep >= keepFrom);
    // Everything born before the first kept vehicle is gone; history before that step needs a re-run.
    this.vehicles = kept;
    this.retainedFrom = Math.max(this.retainedFrom, keepFrom);
  }
}
