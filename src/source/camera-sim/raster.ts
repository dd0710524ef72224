// Scan conversion for the simulator: convex polygons clipped at the camera's near plane and filled
// into an RGBA frame or a coverage mask. Plain loops over typed arrays; no per-pixel allocation.

import { NEAR_PLANE_M, type CameraModel } from './camera-model.js';

const MAX_VERTS = 24;

/** Scratch space for one polygon: world/camera points in, image points out. */
export class PolygonScratch {
  readonly cam = new Float64Array(MAX_VERTS * 3);
  readonly clipped = new Float64Array(MAX_VERTS * 3);
  readonly img = new Float64Array(MAX_VERTS * 2);
  n = 0;

  /** Starts a new polygon. */
  reset(): void {
    this.n = 0;
  }

  /** Adds a world-space vertex (converted to camera space at once). */
  add(camera: CameraModel, X: number, Y: number, Z: number): void {
    camera.toCamera(X, Y, Z, this.cam, this.n * 3);
    this.n++;
  }

  /**
   * Clips the polygon at the near plane and projects it; returns the number of image vertices in `img`
   * (0 when the polygon is entirely behind the camera).
   */
  project(camera: CameraModel): number {
    const src = this.cam, dst = this.clipped, n = this.n;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      const zi = src[i * 3 + 2]!, zj = src[j * 3 + 2]!;
      const inI = zi >= NEAR_PLANE_M, inJ = zj >= NEAR_PLANE_M;
      if (inI) {
        dst[m * 3] = src[i * 3]!; dst[m * 3 + 1] = src[i * 3 + 1]!; dst[m * 3 + 2] = zi;
        m++;
      }
      if (inI !== inJ) {
        // The edge crosses the near plane: keep the crossing point.
        const k = (NEAR_PLANE_M - zi) / (zj - zi);
        dst[m * 3] = src[i * 3]! + k * (src[j * 3]! - src[i * 3]!);
        dst[m * 3 + 1] = src[i * 3 + 1]! + k * (src[j * 3 + 1]! - src[i * 3 + 1]!);
        dst[m * 3 + 2] = NEAR_PLANE_M;
        m++;
      }
    }
    for (let i = 0; i < m; i++) {
      const z = dst[i * 3 + 2]!;
      this.img[i * 2] = camera.u(dst[i * 3]!, z);
      this.img[i * 2 + 1] = camera.v(dst[i * 3 + 1]!, z);
    }
    return m;
  }
}

/**
 * Calls span(y, x0, x1) for every image row covered by the convex polygon pts[0..n), with x0..x1 the
 * inclusive pixel columns whose centres lie inside. Rows and columns are clipped to the frame.
 */
export function scanConvex(
  pts: Float64Array,
  n: number,
  width: number,
  height: number,
  span: (y: number, x0: number, x1: number) => void,
): void {
  if (n < 3) return;
  let minY = Infinity, maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    const y = pts[i * 2 + 1]!;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const y0 = Math.max(0, Math.ceil(minY - 0.5));
  const y1 = Math.min(height - 1, Math.floor(maxY - 0.5));
  for (let y = y0; y <= y1; y++) {
    const yc = y + 0.5;
    let xl = Infinity, xr = -Infinity;
    for (let i = 0; i < n; i++) {
      const j = i + 1 === n ? 0 : i + 1;
      const ay = pts[i * 2 + 1]!, by = pts[j * 2 + 1]!;
      if ((ay <= yc && by >= yc) || (by <= yc && ay >= yc)) {
        const ax = pts[i * 2]!, bx = pts[j * 2]!;
        const x = ay === by ? Math.min(ax, bx) : ax + ((yc - ay) / (by - ay)) * (bx - ax);
        const x2 = ay === by ? Math.max(ax, bx) : x;
        if (x < xl) xl = x;
        if (x2 > xr) xr = x2;
      }
    }
    if (xl > xr) continue;
    const c0 = Math.max(0, Math.ceil(xl - 0.5));
    const c1 = Math.min(width - 1, Math.floor(xr - 0.5));
    if (c0 <= c1) span(y, c0, c1);
  }
}

/** Fills a convex polygon with a flat colour into an RGBA frame. */
export function fillConvex(
  rgba: Uint8Array,
  width: number,
  height: number,
  pts: Float64Array,
  n: number,
  r: number,
  g: number,
  b: number,
): void {
  scanConvex(pts, n, width, height, (y, x0, x1) => {
    let p = (y * width + x0) * 4;
    for (let x = x0; x <= x1; x++, p += 4) {
      rgba[p] = r;
      rgba[p + 1] = g;
      rgba[p + 2] = b;
    }
  });
}

/** 2D convex hull (monotone chain) of n points in xy[0..2n); writes the hull into out and returns its size. */
export function convexHull(xy: Float64Array, n: number, out: Float64Array): number {
  const idx: number[] = [];
  for (let i = 0; i < n; i++) idx.push(i);
  idx.sort((a, b) => xy[a * 2]! - xy[b * 2]! || xy[a * 2 + 1]! - xy[b * 2 + 1]!);
  const hull: number[] = [];
  const cross = (o: number, a: number, b: number): number =>
    (xy[a * 2]! - xy[o * 2]!) * (xy[b * 2 + 1]! - xy[o * 2 + 1]!) - (xy[a * 2 + 1]! - xy[o * 2 + 1]!) * (xy[b * 2]! - xy[o * 2]!);
  for (const i of idx) {
    while (hull.length >= 2 && cross(hull[hull.length - 2]!, hull[hull.length - 1]!, i) <= 0) hull.pop();
    hull.push(i);
  }
  const lower = hull.length + 1;
  for (let k = idx.length - 2; k >= 0; k--) {
    const i = idx[k]!;
    while (hull.length >= lower && cross(hull[hull.length - 2]!, hull[hull.length - 1]!, i) <= 0) hull.pop();
    hull.push(i);
  }
  hull.pop();
  for (let k = 0; k < hull.length; k++) {
    out[k * 2] = xy[hull[k]! * 2]!;
    out[k * 2 + 1] = xy[hull[k]! * 2 + 1]!;
  }
  return hull.length;
}

/** Clips a convex polygon to the rectangle [0, w] x [0, h]; returns the new vertex count (written to out). */
export function clipToRect(pts: Float64Array, n: number, w: number, h: number, out: Float64Array): number {
  let cur = Array.from(pts.subarray(0, n * 2));
  const planes: [number, number, number][] = [
    [1, 0, 0], // x >= 0
    [-1, 0, w], // x <= w
    [0, 1, 0], // y >= 0
    [0, -1, h], // y <= h
  ];
  for (const [a, b, c] of planes) {
    const next: number[] = [];
    const m = cur.length / 2;
    for (let i = 0; i < m; i++) {
      const j = (i + 1) % m;
      const xi = cur[i * 2]!, yi = cur[i * 2 + 1]!, xj = cur[j * 2]!, yj = cur[j * 2 + 1]!;
      const di = a * xi + b * yi + c, dj = a * xj + b * yj + c;
      if (di >= 0) next.push(xi, yi);
      if ((di >= 0) !== (dj >= 0)) {
        const k = di / (di - dj);
        next.push(xi + k * (xj - xi), yi + k * (yj - yi));
      }
    }
    cur = next;
    if (cur.length === 0) break;
  }
  for (let i = 0; i < cur.length; i++) out[i] = cur[i]!;
  return cur.length / 2;
}
