// Where a vehicle's boxes are in the world for a given front-bumper position, and the image bounding box
// of its body (the reference for ground-truth crossings).

import { NEAR_PLANE_M, type CameraModel } from './camera-model.js';
import type { TravelDirection } from './road-layout.js';
import type { VehicleBox, VehicleModel } from './vehicle-model.js';

export interface PlacedBox {
  X0: number;
  X1: number;
  Y0: number;
  Y1: number;
  /** Z of the front face and of the rear face (front < rear for inbound vehicles, which face the camera). */
  Zf: number;
  Zr: number;
}

/** World extent of one box of a vehicle whose front bumper is at frontZ, centred on X = x. */
export function placeBox(box: VehicleBox, direction: TravelDirection, x: number, frontZ: number, out: PlacedBox): PlacedBox {
  out.X0 = x + box.x0;
  out.X1 = x + box.x1;
  out.Y0 = box.y0;
  out.Y1 = box.y1;
  // Inbound vehicles face -Z (toward the camera); outbound face +Z.
  if (direction === 'in') {
    out.Zf = frontZ + box.l0;
    out.Zr = frontZ + box.l1;
  } else {
    out.Zf = frontZ - box.l0;
    out.Zr = frontZ - box.l1;
  }
  return out;
}

/**
 * 'behind': every corner is behind the camera; 'in-front': every corner is in front (the box is exact);
 * 'partial': some corners are behind, the box covers only those in front.
 */
export type BBoxVisibility = 'behind' | 'in-front' | 'partial';

const tmp3 = new Float64Array(3);
const placed: PlacedBox = { X0: 0, X1: 0, Y0: 0, Y1: 0, Zf: 0, Zr: 0 };

/**
 * Image bounding box [minU, minV, maxU, maxV] of the vehicle's body: every corner of every box, not clipped
 * to the frame and ignoring occlusion by other vehicles; shadows are not part of the body.
 */
export function vehicleBBox(
  camera: CameraModel,
  model: VehicleModel,
  direction: TravelDirection,
  x: number,
  frontZ: number,
  out: Float64Array,
): BBoxVisibility {
  let minU = Infinity, minV = Infinity, maxU = -Infinity, maxV = -Infinity;
  let front = 0, behind = 0;
  for (const box of model.boxes) {
    const p = placeBox(box, direction, x, frontZ, placed);
    for (let c = 0; c < 8; c++) {
      const X = c & 1 ? p.X1 : p.X0;
      const Y = c & 2 ? p.Y1 : p.Y0;
      const Z = c & 4 ? p.Zr : p.Zf;
      camera.toCamera(X, Y, Z, tmp3, 0);
      const zc = tmp3[2]!;
      if (zc < NEAR_PLANE_M) {
        behind++;
        continue;
      }
      front++;
      const u = camera.u(tmp3[0]!, zc), v = camera.v(tmp3[1]!, zc);
      if (u < minU) minU = u;
      if (u > maxU) maxU = u;
      if (v < minV) minV = v;
      if (v > maxV) maxV = v;
    }
  }
  out[0] = minU; out[1] = minV; out[2] = maxU; out[3] = maxV;
  if (front === 0) return 'behind';
  return behind === 0 ? 'in-front' : 'partial';
}

/** True when no part of the vehicle can appear in the frame. */
export function isOffFrame(camera: CameraModel, model: VehicleModel, direction: TravelDirection, x: number, frontZ: number, bbox: Float64Array): boolean {
  const vis = vehicleBBox(camera, model, direction, x, frontZ, bbox);
  if (vis === 'behind') return true;
  if (vis === 'partial') return false; // conservative: partly behind the pole may still show
  return bbox[2]! < -1 || bbox[0]! > camera.width + 1 || bbox[3]! < -1 || bbox[1]! > camera.height + 1;
}
