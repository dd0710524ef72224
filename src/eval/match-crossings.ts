// Pairs counted crossings with hand-counted (or simulated) true ones in time, per line and direction: unlike the
// net |counted − true|, a phantom cannot hide a missed vehicle.

/** One crossing, automatic or true: its line and direction (`key`, "line/direction") and time, s. */
export interface TimedCrossing {
  key: string;
  t: number;
}

/**
 * Pairs automatic crossings with true ones of the same line and direction within `windowSec` of each other, as
 * many pairs as possible (two pointers over both lists sorted by time: for points on a line with a window, that
 * is a maximum matching). What is left is `missed` (true, not counted) and `extra` (counted, not true): unlike
 * the net |counted − true|, a phantom cannot hide a missed vehicle.
 */
export function matchCrossings(truth: readonly TimedCrossing[], auto: readonly TimedCrossing[], windowSec: number): { missed: number; extra: number } {
  const { missed, extra } = judgeCrossings(truth, auto, windowSec, Infinity);
  return { missed, extra };
}

/**
 * As matchCrossings, judging only what happened up to `until` s: the true crossings up to it, each counted
 * crossing paired with one of them (its own time may fall just after `until`: a crossing's time is interpolated
 * between frames), and the unpaired counted ones up to it. A counted crossing paired with a true one after
 * `until` is left out with it. Also, per line and direction ("line/direction"), the counted and true crossings
 * so judged, and how many of them were missed and extra; and which crossings those were (`unpaired`).
 */
export function judgeCrossings<C extends TimedCrossing, A extends TimedCrossing>(
  truth: readonly C[], auto: readonly A[], windowSec: number, until: number,
): {
  missed: number; extra: number; counts: Map<string, { auto: number; truth: number; missed: number; extra: number }>;
  unpaired: { truth: C[]; auto: A[] };
} {
  const keys = new Set([...truth, ...auto].map((c) => c.key));
  const counts = new Map<string, { auto: number; truth: number; missed: number; extra: number }>();
  const unpaired: { truth: C[]; auto: A[] } = { truth: [], auto: [] };
  let missed = 0, extra = 0;
  const byTime = (a: TimedCrossing, b: TimedCrossing): number => a.t - b.t;
  for (const key of keys) {
    const tr = truth.filter((c) => c.key === key).sort(byTime);
    const au = auto.filter((c) => c.key === key).sort(byTime);
    const n = { auto: 0, truth: 0, missed: 0, extra: 0 };
    const unpairedAuto = (c: A): void => { if (c.t <= until) { extra++; n.auto++; n.extra++; unpaired.auto.push(c); } };
    const unpairedTruth = (c: C): void => { if (c.t <= until) { missed++; n.truth++; n.missed++; unpaired.truth.push(c); } };
    let i = 0, j = 0;
    while (i < tr.length && j < au.length) {
      if (au[j]!.t < tr[i]!.t - windowSec) unpairedAuto(au[j++]!);
      else if (au[j]!.t > tr[i]!.t + windowSec) unpairedTruth(tr[i++]!);
      else {
        if (tr[i]!.t <= until) { n.auto++; n.truth++; }
        i++; j++;
      }
    }
    while (i < tr.length) unpairedTruth(tr[i++]!);
    while (j < au.length) unpairedAuto(au[j++]!);
    counts.set(key, n);
  }
  return { missed, extra, counts, unpaired };
}

/** How far (s) a crossing's time may be off: interpolated between frames 1/fps apart, and a blob's centre is not the vehicle's. */
export function matchWindowSec(fps: number): number {
  return 1.2 / fps + 0.5;
}

/** Per line and direction ("line/direction"), the crossings paired, missed (true, not counted) and extra (counted, not true). */
export function pairCrossings(
  truth: readonly TimedCrossing[], auto: readonly TimedCrossing[], windowSec: number,
): Map<string, { paired: number; missed: number; extra: number }> {
  const { counts } = judgeCrossings(truth, auto, windowSec, Infinity);
  return new Map([...counts].map(([key, n]) => [key, { paired: n.truth - n.missed, missed: n.missed, extra: n.extra }]));
}
