// The static part of the simulated view, rendered once per scene: asphalt with wear, lane markings,
// kerbs, pavements, verges, lamp posts, a tree line and sky, with haze toward the horizon.

import type { CameraModel } from './camera-model.js';
import { hash32, hashUnit } from './prng.js';
import { PolygonScratch, fillConvex } from './raster.js';
import { CARRIAGEWAY_EDGE_M, DASH_LENGTH_M, DASH_PERIOD_M, LANE_WIDTH_M, MEDIAN_HALF_M, PAVEMENT_M } from './road-layout.js';
import type { ScenarioParams } from './scenarios.js';

const TREE_LINE_Z = 650; // m: a wall of trees hides the ground beyond
const HAZE: readonly number[] = [178, 186, 196];

/** Smooth value noise in [-1, 1] on a lattice of the given cell size. */
function valueNoise(seed: number, x: number, z: number, cell: number): number {
  const gx = x / cell, gz = z / cell;
  const ix = Math.floor(gx), iz = Math.floor(gz);
  const fx = gx - ix, fz = gz - iz;
  const sx = fx * fx * (3 - 2 * fx), sz = fz * fz * (3 - 2 * fz);
  const a = hashUnit(seed, ix, iz), b = hashUnit(seed, ix + 1, iz);
  const c = hashUnit(seed, ix, iz + 1), d = hashUnit(seed, ix + 1, iz + 1);
  return (a + (b - a) * sx + (c - a) * sz + (a - b - c + d) * sx * sz) * 2 - 1;
}

function inBand(v: number, lo: number, hi: number): boolean {
  return v >= lo && v <= hi;
}

/** Ground colour at world (X, Z), before haze. Writes into rgb. */
function groundColour(seed: number, X: number, Z: number, params: ScenarioParams, rgb: Float64Array): void {
  const ax = Math.abs(X);
  const fine = (hashUnit(seed, Math.floor(X * 12), Math.floor(Z * 12)) - 0.5) * 10;
  let r: number, g: number, b: number;
  if (ax <= CARRIAGEWAY_EDGE_M) {
    // Asphalt: repair patches, darker wheel tracks in each lane, fine grain.
    const patch = valueNoise(seed + 1, X, Z, 3.5) * 5 + valueNoise(seed + 2, X, Z, 17) * 4;
    const laneOffset = (ax - MEDIAN_HALF_M) % LANE_WIDTH_M;
    const track = inBand(laneOffset, 0.55, 1.05) || inBand(laneOffset, 2.45, 2.95) ? -6 : 0;
    const base = 94 + patch + track + fine;
    r = base; g = base; b = base + 3;
    // Markings: median double line, dashed lane divider, solid edge line (slightly worn).
    const wear = hashUnit(seed + 3, Math.floor(X * 4), Math.floor(Z * 2)) < 0.12 ? 0.6 : 1;
    const dividerAt = MEDIAN_HALF_M + LANE_WIDTH_M;
    let paint = false;
    if (inBand(ax, 0.28, 0.42)) paint = true;
    else if (inBand(ax, dividerAt - 0.07, dividerAt + 0.07) && ((Z % DASH_PERIOD_M) + DASH_PERIOD_M) % DASH_PERIOD_M < DASH_LENGTH_M) paint = true;
    else if (inBand(ax, CARRIAGEWAY_EDGE_M - 0.35, CARRIAGEWAY_EDGE_M - 0.2)) paint = true;
    // Stop lines of the traffic signals (dense scenario).
    const sig = X < 0 ? params.signals.in : params.signals.out;
    if (sig && ax > MEDIAN_HALF_M && inBand(Z, sig.stopZ - 0.3, sig.stopZ)) paint = true;
    if (paint) {
      const w = (200 + fine) * wear + base * (1 - wear);
      r = w; g = w; b = w - 4;
    }
  } else if (ax <= CARRIAGEWAY_EDGE_M + 0.25) {
    r = 168 + fine; g = 166 + fine; b = 160 + fine; // kerb
  } else if (ax <= CARRIAGEWAY_EDGE_M + PAVEMENT_M) {
    const joint = ((Z % 1.5) + 1.5) % 1.5 < 0.05 ? -18 : 0;
    const slab = valueNoise(seed + 4, X, Z, 1.5) * 6;
    r = 138 + joint + slab + fine; g = 135 + joint + slab + fine; b = 128 + joint + slab + fine;
  } else {
    const n = valueNoise(seed + 5, X, Z, 2.5) * 14 + valueNoise(seed + 6, X, Z, 9) * 10;
    r = 74 + n + fine; g = 100 + n + fine * 1.3; b = 56 + n * 0.6 + fine;
  }
  rgb[0] = r; rgb[1] = g; rgb[2] = b;
}

function treeHeight(seed: number, X: number): number {
  if (Math.abs(X) < CARRIAGEWAY_EDGE_M + 12) return 0; // the road runs through the tree line
  return 9 + 7 * valueNoise(seed + 7, X, 0, 25) + 3 * valueNoise(seed + 8, X, 0, 6);
}

/** Renders the empty scene (no vehicles, nominal lighting, no noise) as RGBA. */
export function renderBackground(camera: CameraModel, params: ScenarioParams, seed: number): Uint8Array {
  const { width, height } = camera;
  const rgba = new Uint8Array(width * height * 4);
  const hit = new Float64Array(3);
  const dir = new Float64Array(3);
  const rgb = new Float64Array(3);
  const s = hash32(seed, 991);
  const camH = camera.pose.height, camX = camera.pose.x;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x + 0.5, v = y + 0.5;
      let r: number, g: number, b: number, dist: number;
      const onGround = camera.groundAt(u, v, hit) && hit[1]! < TREE_LINE_Z;
      if (onGround) {
        groundColour(s, hit[0]!, hit[1]!, params, rgb);
        r = rgb[0]!; g = rgb[1]!; b = rgb[2]!;
        dist = hit[2]!;
      } else {
        camera.rayDir(u, v, dir);
        const t = dir[2]! > 0 ? TREE_LINE_Z / dir[2]! : Infinity;
        const wallY = camH + t * dir[1]!;
        const wallX = camX + t * dir[0]!;
        if (t < Infinity && wallY < treeHeight(s, wallX)) {
          const n = (hashUnit(s, Math.floor(wallX * 3), Math.floor(wallY * 3)) - 0.5) * 16;
          r = 48 + n; g = 66 + n; b = 44 + n;
          dist = TREE_LINE_Z;
        } else {
          // Sky: brighter and paler toward the horizon.
          const k = Math.min(1, Math.max(0, y / (height * 0.3)));
          r = 140 + 60 * k; g = 172 + 40 * k; b = 214 + 12 * k;
          dist = 0;
        }
      }
      // Atmospheric haze grows with distance.
      const h = dist > 0 ? 1 - Math.exp(-dist / 900) : 0;
      const p = (y * width + x) * 4;
      rgba[p] = r + (HAZE[0]! - r) * h;
      rgba[p + 1] = g + (HAZE[1]! - g) * h;
      rgba[p + 2] = b + (HAZE[2]! - b) * h;
      rgba[p + 3] = 255;
    }
  }
  drawLampPosts(camera, rgba);
  return rgba;
}

/** Lamp posts on the far (left) pavement: every vehicle passes in front of them, so drawing them first is right. */
function drawLampPosts(camera: CameraModel, rgba: Uint8Array): void {
  const poly = new PolygonScratch();
  const X = -(CARRIAGEWAY_EDGE_M + PAVEMENT_M - 0.6);
  for (let Z = 18; Z < 420; Z += 38) {
    const quad = (pts: [number, number, number][], shade: number): void => {
      poly.reset();
      for (const [px, py, pz] of pts) poly.add(camera, px, py, pz);
      const n = poly.project(camera);
      fillConvex(rgba, camera.width, camera.height, poly.img, n, 96 * shade, 100 * shade, 104 * shade);
    };
    const w = 0.12, top = 9;
    // Side facing the camera, front face, then the arm reaching over the kerb.
    quad([[X + w, 0, Z - w], [X + w, 0, Z + w], [X + w, top, Z + w], [X + w, top, Z - w]], 1.0);
    quad([[X - w, 0, Z - w], [X + w, 0, Z - w], [X + w, top, Z - w], [X - w, top, Z - w]], 0.8);
    quad([[X, top - 0.15, Z], [X + 2.2, top - 0.35, Z], [X + 2.2, top - 0.2, Z], [X, top, Z]], 0.9);
  }
}
