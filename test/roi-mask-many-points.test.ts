// The ROI mask is built once per camera on the daemon's thread: a config with a finely traced ROI (tens of
// thousands of points) must not hold the event loop for minutes, and the mask must stay exactly the same.
import { expect, it } from 'vitest';
import { buildRoiGeometry } from '../dist/src/analyze/roi-mask.js';

type Point = [number, number];

/** The even-odd rule at each working pixel's centre, point by point: the reference. */
function bruteMask(roi: Point[], scale: number, x0: number, y0: number, width: number, height: number): Uint8Array {
  const mask = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const px = x0 + (x + 0.5) * scale, py = y0 + (y + 0.5) * scale;
      let inside = false;
      for (let i = 0, j = roi.length - 1; i < roi.length; j = i++) {
        const [xi, yi] = roi[i]!, [xj, yj] = roi[j]!;
        if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
      }
      if (inside) mask[y * width + x] = 1;
    }
  }
  return mask;
}

it('gives the same mask as the point-by-point rule, for concave, self-crossing and axis-aligned ROIs', () => {
  const rois: Point[][] = [
    [[0, 329], [762, 148], [1077, 154], [1142, 719], [0, 719]],
    [[100, 100], [600, 100], [600, 500], [350, 200], [100, 500]], // concave
    [[0, 200], [1200, 600], [1200, 200], [300, 700]], // self-crossing
    [[8, 8], [400, 8], [400, 400], [8, 400]], // edges on working-pixel boundaries
    [[10.5, 3.25], [200.75, 90], [33, 180.5]],
  ];
  for (const roi of rois) {
    for (const scale of [1, 3, 4]) {
      const g = buildRoiGeometry(roi, scale);
      const ref = bruteMask(roi, scale, g.x0, g.y0, g.width, g.height);
      expect(Buffer.from(g.mask).equals(Buffer.from(ref))).toBe(true);
      expect(g.maskCount).toBe(ref.reduce((s, v) => s + v, 0));
    }
  }
});

it('builds the mask of a 200,000-point ROI in seconds, not minutes', () => {
  const n = 200_000;
  const roi: Point[] = Array.from({ length: n }, (_, i) => [640 + 500 * Math.cos((i / n) * 2 * Math.PI), 360 + 300 * Math.sin((i / n) * 2 * Math.PI)]);
  const t0 = performance.now();
  const g = buildRoiGeometry(roi, 4);
  const ms = performance.now() - t0;
  expect(g.maskCount).toBeGreaterThan(0.7 * Math.PI * 125 * 75);
  expect(ms).toBeLessThan(5_000); // point by point it took over a minute here
});
