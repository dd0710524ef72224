// The retry delay after failures doubles from backoffInitialMs, is capped at backoffMaxMs, carries equal
// jitter (within [d/2, d]) and starts over after a success.
import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay } from '../dist/src/source/backoff.js';

describe('backoff', () => {
  it('doubles per failure and stops growing at the cap', () => {
    const high = new Backoff({ initialMs: 100, maxMs: 1_000, random: () => 0.999999 });
    const delays = Array.from({ length: 8 }, () => high.next());
    expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000, 1_000]);
    expect(high.failures).toBe(8);
  });

  it('keeps jittered delays between half and all of the nominal delay', () => {
    const low = new Backoff({ initialMs: 100, maxMs: 1_000, random: () => 0 });
    expect(Array.from({ length: 6 }, () => low.next())).toEqual([50, 100, 200, 400, 500, 500]);
    for (let n = 1; n <= 20; n++) {
      for (const r of [0, 0.25, 0.5, 0.75, 0.9999]) {
        const nominal = Math.min(60_000, 1_000 * 2 ** (n - 1));
        const d = backoffDelay(n, 1_000, 60_000, r);
        expect(d).toBeGreaterThanOrEqual(nominal / 2);
        expect(d).toBeLessThanOrEqual(nominal);
      }
    }
  });

  it('starts from the initial delay again after reset, and survives a very long outage', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1_000, random: () => 0.999999 });
    for (let i = 0; i < 5_000; i++) b.next();
    expect(b.next()).toBe(1_000);
    b.reset();
    expect(b.failures).toBe(0);
    expect(b.next()).toBe(100);
  });

  it('refuses a cap below the initial delay, naming both options', () => {
    expect(() => new Backoff({ initialMs: 500, maxMs: 100 })).toThrow(/backoffMaxMs.*backoffInitialMs/);
    expect(() => new Backoff({ initialMs: 0, maxMs: 100 })).toThrow(/backoffInitialMs/);
  });
});
