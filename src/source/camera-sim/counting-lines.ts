// The simulated camera's counting lines and ROI, derived from its geometry: one horizontal line per
// carriageway in the lower-middle of the frame, and where on the road a vehicle crosses it.

import type { CameraModel } from './camera-model.js';
import { CARRIAGEWAY_EDGE_M, LANES, PAVEMENT_M, type TravelDirection } from './road-layout.js';
import { clipToRect, convexHull } from './raster.js';
import { buildVehicleModel, type VehicleModel, type VehicleType } from './vehicle-model.js';
import { vehicleBBox } from './vehicle-placement.js';
import { Rng } from './prng.js';

export interface SimLine {
  readonly id: 'inbound' | 'outbound';
  /** The traffic this line counts ('in' = toward the camera = down the image). */
  readonly direction: TravelDirection;
  readonly from: [number, number];
  readonly to: [number, number];
}

export interface Crossing {
  /** Front-bumper Z at which the body's bounding-box centre is on the line's row. */
  readonly frontZ: number;
  /** Bounding-box centre column at that moment. */
  readonly u: number;
}

/** Row of the counting lines as a fraction of the frame height. */
export const LINE_ROW_FRACTION = 0.62;

const bbox = new Float64Array(4);

function centreV(camera: CameraModel, model: VehicleModel, direction: TravelDirection, x: number, frontZ: number): number {
  const vis = vehicleBBox(camera, model, direction, x, frontZ, bbox);
  if (vis !== 'in-front') return Infinity; // partly under the camera: treat as below the frame
  return (bbox[1]! + bbox[3]!) / 2;
}

/**
 * Solves for the front-bumper Z at which the vehicle's body bounding-box centre is exactly on `row`.
 * The centre moves down the image monotonically as the vehicle approaches the camera, so a scan
 * followed by bisection finds the one solution. Returns null if the vehicle never reaches the row.
 */
export function crossingAt(camera: CameraModel, model: VehicleModel, direction: TravelDirection, x: number, row: number): Crossing | null {
  // Lines sit in the lower part of the frame, far nearer than 120 m; 300 m covers any other row.
  let far = 120;
  if (centreV(camera, model, direction, x, far) >= row) far = 300;
  if (centreV(camera, model, direction, x, far) >= row) return null;
  let near = far;
  while (near > -40) {
    near -= 2;
    if (centreV(camera, model, direction, x, near) >= row) break;
    far = near;
  }
  if (near <= -40) return null;
  for (let i = 0; i < 48; i++) {
    const mid = (far + near) / 2;
    if (centreV(camera, model, direction, x, mid) >= row) near = mid;
    else far = mid;
  }
  const frontZ = (far + near) / 2;
  vehicleBBox(camera, model, direction, x, frontZ, bbox);
  return { frontZ, u: (bbox[0]! + bbox[2]!) / 2 };
}

/** Lines and ROI for a camera; x-ranges cover where any vehicle type in any lane position crosses, with margin. */
export function designCountingLines(camera: CameraModel): { row: number; lines: SimLine[]; roi: [number, number][] } {
  const row = Math.round(camera.height * LINE_ROW_FRACTION);
  const types: VehicleType[] = ['car', 'van', 'heavy', 'two-wheeler'];
  const span = { in: [Infinity, -Infinity], out: [Infinity, -Infinity] };
  const rng = new Rng(12345);
  for (const lane of LANES) {
    for (const type of types) {
      for (let k = 0; k < 4; k++) {
        const model = buildVehicleModel(type, rng);
        for (const dx of [-1, 0, 1]) {
          const c = crossingAt(camera, model, lane.direction, lane.x + dx, row);
          if (!c) continue;
          const s = span[lane.direction];
          s[0] = Math.min(s[0]!, c.u);
          s[1] = Math.max(s[1]!, c.u);
        }
      }
    }
  }
  // Inbound traffic is on the left of the image, outbound on the right; split halfway between them.
  const split = (span.in[1]! + span.out[0]!) / 2;
  const margin = 0.05 * camera.width; // room for a counter whose blob centre is not the body's box centre
  const r = (v: number): number => Math.round(v);
  const lines: SimLine[] = [
    { id: 'inbound', direction: 'in', from: [r(Math.max(0, span.in[0]! - margin)), row], to: [r(split) - 2, row] },
    { id: 'outbound', direction: 'out', from: [r(split) + 2, row], to: [r(Math.min(camera.width - 1, span.out[1]! + margin)), row] },
  ];
  return { row, lines, roi: designRoi(camera, row) };
}

/** ROI: the road and pavements (and the space vehicles fill above them) from below the frame to well above the lines. */
function designRoi(camera: CameraModel, row: number): [number, number][] {
  // Far edge: where the road centre appears 32% of the frame height above the line row.
  let zFar = 20;
  const p = new Float64Array(3);
  while (zFar < 400) {
    camera.project(0, 0, zFar, p);
    if (p[1]! <= row - 0.32 * camera.height) break;
    zFar += 1;
  }
  const xl = -(CARRIAGEWAY_EDGE_M + PAVEMENT_M), xr = CARRIAGEWAY_EDGE_M + PAVEMENT_M;
  // The road box up to a lorry's height, so the whole body of every vehicle on the road stays inside.
  const world: [number, number, number][] = [];
  for (const Y of [0, 4.2]) for (const [X, Z] of [[xl, 4], [xr, 4], [xr, zFar], [xl, zFar]] as const) world.push([X, Y, Z]);
  const pts = new Float64Array(world.length * 2);
  let n = 0;
  for (const [X, Y, Z] of world) {
    if (!camera.project(X, Y, Z, p)) continue;
    pts[n * 2] = p[0]!;
    pts[n * 2 + 1] = p[1]!;
    n++;
  }
  const hull = new Float64Array(32);
  const m = convexHull(pts, n, hull);
  const clipped = new Float64Array(64);
  const k = clipToRect(hull, m, camera.width - 1, camera.height - 1, clipped);
  const roi: [number, number][] = [];
  for (let i = 0; i < k; i++) {
    const pt: [number, number] = [Math.round(clipped[i * 2]!), Math.round(clipped[i * 2 + 1]!)];
    const last = roi[roi.length - 1];
    if (!last || last[0] !== pt[0] || last[1] !== pt[1]) roi.push(pt);
  }
  return roi;
}
