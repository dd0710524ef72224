// Which blob each linked track takes: the cheapest set of links, not the cheapest pair first.
import { expect, test } from 'vitest';
import { assignEveryRow, type AssignmentCandidate } from '../dist/src/analyze/assignment.js';

/** Least total cost over every way of giving each row its own column, by trying them all (small cases only). */
function bruteForce(rows: number, cols: number, cands: readonly AssignmentCandidate[]): number {
  const cost = new Map<string, number>();
  for (const c of cands) cost.set(`${c.r},${c.c}`, Math.min(cost.get(`${c.r},${c.c}`) ?? Infinity, c.cost));
  let best = Infinity;
  const taken = new Array<boolean>(cols).fill(false);
  const go = (r: number, sum: number): void => {
    if (r === rows) { best = Math.min(best, sum); return; }
    for (let c = 0; c < cols; c++) {
      const k = cost.get(`${r},${c}`);
      if (taken[c] || k === undefined) continue;
      taken[c] = true;
      go(r + 1, sum + k);
      taken[c] = false;
    }
  };
  go(0, 0);
  return best;
}

test("a leader and its follower: each track takes its own vehicle's blob, not the cheapest link first", () => {
  // Row 0, the leader's track, links cheapest to column 0: the follower, standing where the leader was (0.6);
  // its own blob, column 1, costs 0.9 (its step or size came out off). Row 1, the follower's track, fits
  // column 0 at 0.65, or some other blob, column 2, at 1.0. Cheapest-first links 0-0 then 1-2 (1.6 in all);
  // the cheapest set is 0-1 and 1-0 (1.55).
  const cands = [{ r: 0, c: 0, cost: 0.6 }, { r: 0, c: 1, cost: 0.9 }, { r: 1, c: 0, cost: 0.65 }, { r: 1, c: 2, cost: 1.0 }];
  expect(assignEveryRow(2, 3, cands)).toEqual([1, 2]);
  // With the other blob cheaper for the follower's track, keeping the leader's track on column 0 is cheaper.
  const near = [...cands.slice(0, 3), { r: 1, c: 2, cost: 0.8 }];
  expect(assignEveryRow(2, 3, near)).toEqual([0, 3]);
});

test('matches an exhaustive search on random sparse problems, and says when no assignment covers every row', () => {
  let seed = 12345;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  let covered = 0, uncovered = 0;
  for (let trial = 0; trial < 400; trial++) {
    const rows = 1 + Math.floor(rand() * 5), cols = rows + Math.floor(rand() * 3);
    const cands: AssignmentCandidate[] = [];
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (rand() < 0.55) cands.push({ r, c, cost: Math.round(rand() * 300) / 100 });
    const want = bruteForce(rows, cols, cands);
    const got = assignEveryRow(rows, cols, cands);
    if (want === Infinity) {
      expect(got).toBeUndefined();
      uncovered++;
      continue;
    }
    covered++;
    expect(got).toBeDefined();
    expect(new Set(got!.map((k) => cands[k]!.c)).size).toBe(rows); // a column each
    expect(got!.map((k) => cands[k]!.r)).toEqual([...Array(rows).keys()]); // in row order
    expect(got!.reduce((s, k) => s + cands[k]!.cost, 0)).toBeCloseTo(want, 9);
  }
  expect(covered).toBeGreaterThan(100);
  expect(uncovered).toBeGreaterThan(20);
  expect(assignEveryRow(3, 2, [{ r: 0, c: 0, cost: 1 }])).toBeUndefined();
  expect(assignEveryRow(0, 4, [])).toEqual([]);
});
