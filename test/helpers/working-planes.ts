// Colour planes at the analyzer's working resolution for foreground tests: a small textured grey road (64x48,
// so noise statistics are not degenerate) with patches drawn over it.

import { allocPlanes, type Planes } from '../../dist/src/analyze/background-model.js';

export const PW = 64;
export const PH = 48;
export const PN = PW * PH;

export interface Patch {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** The patch's colour from the road's under it. */
  f: (r: number, g: number, b: number) => [number, number, number];
}

/**
 * The road, grey levels from `base` up (plus 120 right of x = 40 with `marking`, a bright marking area), times
 * `gain` (clipped), with `patches` drawn over it in order, and camera `noise` added to every channel if given.
 */
export function roadPlanes(
  { gain = 1, patches = [], base = 80, marking = false, noise }: { gain?: number; patches?: readonly Patch[]; base?: number; marking?: boolean; noise?: () => number } = {},
): Planes {
  const p = allocPlanes(PN);
  for (let y = 0; y < PH; y++) {
    for (let x = 0; x < PW; x++) {
      const i = y * PW + x;
      const v = base + ((x * 7 + y * 13) % 23) + (marking && x > 40 ? 120 : 0);
      let r = Math.min(255, v * gain), g = Math.min(255, v * gain), b = Math.min(255, (v + 10) * gain);
      for (const q of patches) if (x >= q.x0 && x < q.x1 && y >= q.y0 && y < q.y1) [r, g, b] = q.f(r, g, b);
      if (noise) [r, g, b] = [Math.max(0, r + noise()), Math.max(0, g + noise()), Math.max(0, b + noise())];
      p.r[i] = r; p.g[i] = g; p.b[i] = b;
    }
  }
  return p;
}
