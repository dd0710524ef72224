// The vehicle schedule: when, in which lane, how fast and what kind of vehicle arrives on each carriageway.
// A pure function of (seed, scenario, direction): a sequential stream that can be extended lazily.

import { Rng, hash32, hashString } from './prng.js';
import { lanesOf, type TravelDirection } from './road-layout.js';
import type { ScenarioParams } from './scenarios.js';
import type { VehicleType } from './vehicle-model.js';

export interface Arrival {
  /** Stable id: unique across both directions of one scene. */
  readonly id: number;
  /** Time the vehicle wants to enter the simulated road, s (may be negative: warm-up). */
  readonly t: number;
  readonly direction: TravelDirection;
  readonly laneIndex: number;
  readonly type: VehicleType;
  /** Desired (free-flow) speed, m/s. */
  readonly desiredSpeed: number;
  /** Offset from the lane centre, m. */
  readonly lateralOffset: number;
  /** Seed of the vehicle's appearance stream. */
  readonly appearanceSeed: number;
}

export class ArrivalStream {
  readonly direction: TravelDirection;
  private readonly rng: Rng;
  private readonly params: ScenarioParams;
  private readonly seed: number;
  private readonly buffered: Arrival[] = [];
  private clock: number;
  private count = 0;

  constructor(seed: number, params: ScenarioParams, direction: TravelDirection, startSec: number) {
    this.direction = direction;
    this.params = params;
    this.seed = seed;
    this.rng = new Rng(hash32(seed, hashString(params.name), direction === 'in' ? 1 : 2));
    this.clock = startSec;
  }

  /** The next arrival without consuming it; null when the scenario has no traffic. */
  peek(): Arrival | null {
    if (this.params.arrivalsPerSec <= 0) return null;
    if (this.buffered.length === 0) this.generateGroup();
    return this.buffered[0]!;
  }

  /** Consumes the next arrival. */
  shift(): Arrival | null {
    const a = this.peek();
    if (a) this.buffered.shift();
    return a;
  }

  private nextId(): number {
    // Even ids inbound, odd ids outbound.
    return this.count++ * 2 + (this.direction === 'in' ? 0 : 1);
  }

  private vehicle(t: number, type: VehicleType, laneIndex: number, speed?: number): Arrival {
    const p = this.params, rng = this.rng;
    const [kerb] = lanesOf(this.direction);
    let v = speed ?? rng.uniform(p.speedKmh[0], p.speedKmh[1]) / 3.6;
    if (speed === undefined) {
      if (laneIndex !== kerb.index) v += 3 / 3.6; // the median lane is a little faster
      if (type === 'heavy') v = Math.min(v, rng.uniform(38, 50) / 3.6);
    }
    const lateral = type === 'two-wheeler' ? rng.uniform(-0.9, 0.9) : rng.uniform(-0.25, 0.25);
    return {
      id: this.nextId(),
      t,
      direction: this.direction,
      laneIndex,
      type,
      desiredSpeed: v,
      lateralOffset: lateral,
      appearanceSeed: hash32(this.seed, hashString(p.name), this.count, this.direction === 'in' ? 3 : 4),
    };
  }

  private generateGroup(): void {
    const p = this.params, rng = this.rng;
    const [kerb, median] = lanesOf(this.direction);
    this.clock += Math.max(p.minHeadwaySec, rng.exponential(1 / p.arrivalsPerSec));
    const t = this.clock;
    const type = rng.pick(p.typeMix);
    if (p.occlusion && type === 'heavy') {
      // A lorry in the lane nearer the camera with a car at nearly the same speed in the far lane:
      // for part of their passage the lorry hides the car. The camera is on the outbound side, so the
      // near lane is the kerb lane outbound and the median lane inbound.
      const near = this.direction === 'out' ? kerb : median;
      const far = near === kerb ? median : kerb;
      const lorry = this.vehicle(t, 'heavy', near.index);
      this.buffered.push(lorry);
      if (rng.chance(0.85)) {
        const lag = rng.uniform(-1.2, 1.2);
        const car = this.vehicle(t + Math.max(0, lag), rng.chance(0.85) ? 'car' : 'two-wheeler', far.index, lorry.desiredSpeed * rng.uniform(0.97, 1.04));
        this.buffered.push(car);
      }
      this.buffered.sort((a, b) => a.t - b.t);
      return;
    }
    let lane = kerb;
    if (type === 'heavy') lane = rng.chance(p.heavyKerbLane) ? kerb : median;
    else if (type === 'two-wheeler') lane = rng.chance(0.7) ? kerb : median;
    else lane = rng.chance(0.5) ? kerb : median;
    const first = this.vehicle(t, type, lane.index);
    this.buffered.push(first);
    if (rng.chance(p.abreastProb)) {
      // A second vehicle abreast in the other lane at a similar speed.
      const other = lane === kerb ? median : kerb;
      const type2 = rng.pick({ car: 0.85, van: 0.1, 'two-wheeler': 0.05 });
      this.buffered.push(this.vehicle(t + rng.uniform(0, 0.4), type2, other.index, first.desiredSpeed * rng.uniform(0.98, 1.03)));
    }
  }
}
