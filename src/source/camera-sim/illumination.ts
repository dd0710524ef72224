// Global brightness of the simulated scene over time: a slow drift (clouds, sun angle) and, in some
// scenarios, sudden steps (a cloud edge or an auto-exposure jump). A pure function of (seed, scenario, t).

import { Rng, hash32, hashString } from './prng.js';
import type { ScenarioParams } from './scenarios.js';

export class Illumination {
  private readonly amplitude: number;
  private readonly phase1: number;
  private readonly phase2: number;
  private readonly steps: boolean;
  private readonly rng: Rng;
  /** Step i ramps from levels[i] to levels[i + 1] during [times[i], times[i] + ramps[i]]. */
  private readonly times: number[] = [];
  private readonly ramps: number[] = [];
  private readonly levels: number[] = [1];

  constructor(seed: number, params: ScenarioParams) {
    const rng = new Rng(hash32(seed, hashString(params.name), 77));
    this.amplitude = params.driftAmplitude;
    this.phase1 = rng.uniform(0, 2 * Math.PI);
    this.phase2 = rng.uniform(0, 2 * Math.PI);
    this.steps = params.illuminationSteps;
    this.rng = new Rng(hash32(seed, hashString(params.name), 78));
  }

  /** Multiplier applied to every pixel at time t (1 = nominal exposure). */
  gain(t: number): number {
    // Drift: ±amplitude over minutes, a slow and a faster component.
    const drift = 1 + this.amplitude * (0.75 * Math.sin((2 * Math.PI * t) / 240 + this.phase1) + 0.25 * Math.sin((2 * Math.PI * t) / 67 + this.phase2));
    return this.steps ? drift * this.stepLevel(t) : drift;
  }

  private extendTo(t: number): void {
    while (this.times.length === 0 || this.times[this.times.length - 1]! <= t) {
      const last = this.times.length === 0 ? 0 : this.times[this.times.length - 1]!;
      // A few steps per minute; the first after the counter has had time to learn the background.
      this.times.push(last + (this.times.length === 0 ? this.rng.uniform(8, 16) : this.rng.uniform(10, 24)));
      this.ramps.push(this.rng.uniform(0.05, 0.6));
      const cur = this.levels[this.levels.length - 1]!;
      let next: number;
      if (cur === 1) next = this.rng.chance(0.5) ? this.rng.uniform(0.6, 0.7) : this.rng.uniform(1.3, 1.4);
      else if (this.rng.chance(0.7)) next = 1;
      else next = cur < 1 ? this.rng.uniform(1.3, 1.4) : this.rng.uniform(0.6, 0.7);
      this.levels.push(next);
    }
  }

  private stepLevel(t: number): number {
    this.extendTo(t);
    // Binary search for the last step starting at or before t.
    let lo = 0, hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    const i = lo - 1;
    if (i < 0) return this.levels[0]!;
    const from = this.levels[i]!, to = this.levels[i + 1]!;
    const k = Math.min(1, (t - this.times[i]!) / this.ramps[i]!);
    return from + (to - from) * k;
  }
}
