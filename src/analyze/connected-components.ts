// 8-connected component labelling (two passes, union-find with path halving) with per-component stats:
// area, bounding box, centroid and mean colour, all at working resolution.

import type { Planes } from './background-model.js';

export interface Component {
  label: number;
  area: number;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  sumX: number;
  sumY: number;
  sumR: number;
  sumG: number;
  sumB: number;
}

export class ComponentLabeler {
  /** Final label per pixel (0 = background), valid after label(). */
  readonly labels: Int32Array;
  private parent: Int32Array;

  constructor(n: number) {
    this.labels = new Int32Array(n);
    this.parent = new Int32Array(Math.max(16, (n >> 1) + 2));
  }

  private find(a: number): number {
    const p = this.parent;
    while (p[a] !== a) {
      p[a] = p[p[a]!]!;
      a = p[a]!;
    }
    return a;
  }

  private union(a: number, b: number): number {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return ra;
    if (ra < rb) {
      this.parent[rb] = ra;
      return ra;
    }
    this.parent[ra] = rb;
    return rb;
  }

  /** Labels `fg` (w×h, 0/1) and returns one Component per 8-connected region, colour taken from `cur`. */
  label(fg: Uint8Array, w: number, h: number, cur: Planes): Component[] {
    const L = this.labels;
    let next = 1;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        if (!fg[i]) {
          L[i] = 0;
          continue;
        }
        // Neighbours already visited: W, NW, N, NE.
        let l = 0;
        if (x > 0 && L[i - 1]) l = L[i - 1]!;
        if (y > 0) {
          const up = i - w;
          if (x > 0 && L[up - 1]) l = l ? this.union(l, L[up - 1]!) : L[up - 1]!;
          if (L[up]) l = l ? this.union(l, L[up]!) : L[up]!;
          if (x + 1 < w && L[up + 1]) l = l ? this.union(l, L[up + 1]!) : L[up + 1]!;
        }
        if (!l) {
          if (next >= this.parent.length) {
            const grown = new Int32Array(this.parent.length * 2);
            grown.set(this.parent);
            this.parent = grown;
          }
          this.parent[next] = next;
          l = next++;
        }
        L[i] = l;
      }
    }
    // Resolve to roots and compact to 1..k.
    const compact = new Int32Array(next);
    const comps: Component[] = [];
    for (let l = 1; l < next; l++) {
      const root = this.find(l);
      if (compact[root] === 0) {
        comps.push({ label: comps.length + 1, area: 0, minX: w, minY: h, maxX: -1, maxY: -1, sumX: 0, sumY: 0, sumR: 0, sumG: 0, sumB: 0 });
        compact[root] = comps.length;
      }
      compact[l] = compact[root]!;
    }
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        if (!L[i]) continue;
        const k = compact[L[i]!]!;
        L[i] = k;
        const c = comps[k - 1]!;
        c.area++;
        c.sumX += x;
        c.sumY += y;
        c.sumR += cur.r[i]!;
        c.sumG += cur.g[i]!;
        c.sumB += cur.b[i]!;
        if (x < c.minX) c.minX = x;
        if (x > c.maxX) c.maxX = x;
        if (y < c.minY) c.minY = y;
        if (y > c.maxY) c.maxY = y;
      }
    }
    return comps;
  }
}
