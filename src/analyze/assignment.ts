// Minimum-cost assignment of rows (tracks) to columns (detections): the Hungarian method, O(rows² × columns).

/** A possible pair: row r may take column c at this cost. */
export interface AssignmentCandidate {
  readonly r: number;
  readonly c: number;
  readonly cost: number;
}

/**
 * Gives every one of the `rows` rows a column of its own (of `cols`), from the listed candidates only, at the
 * least total cost. Returns, per row, the index into `cands` of its pair, or undefined when no assignment
 * gives every row a column. Where a row and column are listed twice, the cheaper one counts.
 */
export function assignEveryRow(rows: number, cols: number, cands: readonly AssignmentCandidate[]): number[] | undefined {
  if (rows === 0) return [];
  if (rows > cols) return undefined;
  // Pairs not listed cost FORBIDDEN; any assignment that uses one is no assignment. Scaled this way the
  // listed costs (a few units at most) keep their precision beside it.
  const FORBIDDEN = 1e9;
  const N = cols + 1;
  const a = new Float64Array((rows + 1) * N).fill(FORBIDDEN);
  const pick = new Int32Array((rows + 1) * N).fill(-1);
  for (let k = 0; k < cands.length; k++) {
    const { r, c, cost } = cands[k]!;
    if (!Number.isFinite(cost)) continue; // no pair
    const i = (r + 1) * N + (c + 1);
    if (pick[i]! >= 0 && a[i]! <= cost) continue;
    a[i] = cost;
    pick[i] = k;
  }
  // Potentials u (rows) and v (columns); p[j] is the row holding column j (0: none), way[] the augmenting path.
  const u = new Float64Array(rows + 1), v = new Float64Array(N);
  const p = new Int32Array(N), way = new Int32Array(N);
  const minv = new Float64Array(N);
  const used = new Uint8Array(N);
  for (let i = 1; i <= rows; i++) {
    p[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity, j1 = 0;
      for (let j = 1; j <= cols; j++) {
        if (used[j]) continue;
        const cur = a[i0 * N + j]! - u[i0]! - v[j]!;
        if (cur < minv[j]!) { minv[j] = cur; way[j] = j0; }
        if (minv[j]! < delta) { delta = minv[j]!; j1 = j; }
      }
      for (let j = 0; j <= cols; j++) {
        if (used[j]) { u[p[j]!]! += delta; v[j]! -= delta; } else minv[j]! -= delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do { const j1 = way[j0]!; p[j0] = p[j1]!; j0 = j1; } while (j0);
  }
  const out = new Array<number>(rows);
  for (let j = 1; j <= cols; j++) {
    const i = p[j]!;
    if (i === 0) continue;
    const k = pick[i * N + j]!;
    if (k < 0) return undefined;
    out[i - 1] = k;
  }
  return out;
}
