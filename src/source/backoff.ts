// Retry delays after failures: exponential growth from an initial delay, capped, with "equal jitter"
// (the delay is drawn uniformly from [d/2, d]) so many cameras failing together do not retry in lockstep.

import { ConfigError } from '../errors.js';

export interface BackoffOptions {
  /** Nominal delay after the first failure (ms). */
  readonly initialMs: number;
  /** Cap for the nominal delay (ms). */
  readonly maxMs: number;
  /** Uniform random number in [0, 1); injectable for tests. */
  readonly random?: () => number;
}

/**
 * The delay before retry number `failures` (1 = after the first failure).
 * Nominal d = min(maxMs, initialMs·2^(failures−1)); returned delay = d/2 + random·d/2, so it lies in [d/2, d]
 * and never exceeds maxMs. Equal jitter keeps a guaranteed minimum wait, unlike "full jitter" (0…d).
 */
export function backoffDelay(failures: number, initialMs: number, maxMs: number, random: number): number {
  const n = Math.max(1, Math.floor(failures));
  // Clamp the exponent before Math.pow so a camera down for days does not overflow to Infinity.
  const nominal = Math.min(maxMs, initialMs * 2 ** Math.min(n - 1, 52));
  const r = Math.min(Math.max(random, 0), 1);
  return Math.round(nominal / 2 + (r * nominal) / 2);
}

/** Stateful wrapper: counts consecutive failures, hands out the next delay, resets on success. */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #random: () => number;
  #failures = 0;

  constructor(opts: BackoffOptions) {
    if (!(opts.initialMs > 0) || !Number.isFinite(opts.initialMs)) {
      throw new ConfigError(`backoffInitialMs must be a positive number of milliseconds, got ${opts.initialMs}`);
    }
    if (!(opts.maxMs >= opts.initialMs) || !Number.isFinite(opts.maxMs)) {
      throw new ConfigError(`backoffMaxMs must be at least backoffInitialMs (${opts.initialMs}), got ${opts.maxMs}`);
    }
    this.#initialMs = opts.initialMs;
    this.#maxMs = opts.maxMs;
    this.#random = opts.random ?? Math.random;
  }

  /** Consecutive failures recorded since the last reset. */
  get failures(): number {
    return this.#failures;
  }

  /** Records one more failure and returns how long to wait before the next attempt (ms). */
  next(): number {
    this.#failures++;
    return backoffDelay(this.#failures, this.#initialMs, this.#maxMs, this.#random());
  }

  /** A success: the next failure starts again from initialMs. */
  reset(): void {
    this.#failures = 0;
  }
}
