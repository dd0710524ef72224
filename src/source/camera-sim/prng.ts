// Small seeded pseudo-random helpers for the camera simulator: everything the simulator draws at
// random comes from these, so a seed fully determines the scene (never Math.random).

/** mulberry32: a 32-bit state PRNG, fast and good enough for scene statistics. Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes integers into one well-spread 32-bit hash (used to derive independent streams and per-frame values). */
export function hash32(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p | 0), 0x01000193);
    h ^= h >>> 13;
    h = Math.imul(h, 0x5bd1e995);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

/** Hash of a string (scenario names), so each scenario gets its own random streams. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Hash of three integers mapped to [0, 1): the hot-path form (no rest-argument array per call). */
export function hashUnit(a: number, b: number, c: number): number {
  let h = Math.imul(0x811c9dc5 ^ (a | 0), 0x01000193);
  h = Math.imul(h ^ (b | 0), 0x5bd1e995);
  h ^= h >>> 15;
  h = Math.imul(h ^ (c | 0), 0x01000193);
  h ^= h >>> 13;
  h = Math.imul(h, 0x5bd1e995);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

/** Convenience draws on top of a uniform generator. */
export class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }
  int(lo: number, hiInclusive: number): number {
    return lo + Math.floor(this.next() * (hiInclusive - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Exponential with the given mean (Poisson inter-arrival times). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }
  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  /** Picks a key of `weights` with probability proportional to its weight. */
  pick<K extends string>(weights: Readonly<Record<K, number>>): K {
    const keys = Object.keys(weights) as K[];
    let total = 0;
    for (const k of keys) total += weights[k];
    let r = this.next() * total;
    for (const k of keys) {
      r -= weights[k];
      if (r < 0) return k;
    }
    return keys[keys.length - 1]!;
  }
}
