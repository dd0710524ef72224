// Pinhole model of the simulated traffic camera: a pole at the right-hand verge looking along the road,
// tilted down. World axes: X across the road (right positive), Y up, Z along the road away from the pole.

export interface CameraPose {
  /** Camera position across the road, m (road centre line = 0). */
  readonly x: number;
  /** Mounting height, m. */
  readonly height: number;
  /** Heading, radians; negative turns the view toward -X (the road centre). */
  readonly yaw: number;
  /** Downward tilt, radians. */
  readonly pitch: number;
  /** Focal length as a fraction of the image width. */
  readonly focalPerWidth: number;
}

export const DEFAULT_POSE: CameraPose = {
  x: 9.2,
  height: 9,
  yaw: -0.33,
  pitch: 0.23,
  focalPerWidth: 0.95,
};

/** Points closer than this to the image plane are clipped (vehicles passing under the pole). */
export const NEAR_PLANE_M = 0.4;

export class CameraModel {
  readonly width: number;
  readonly height: number;
  readonly pose: CameraPose;
  readonly f: number;
  readonly cx: number;
  readonly cy: number;
  // Camera basis vectors in world coordinates.
  readonly rx: number; readonly ry: number; readonly rz: number;
  readonly ux: number; readonly uy: number; readonly uz: number;
  readonly fx: number; readonly fy: number; readonly fz: number;

  constructor(width: number, height: number, pose: CameraPose = DEFAULT_POSE) {
    this.width = width;
    this.height = height;
    this.pose = pose;
    this.f = pose.focalPerWidth * width;
    this.cx = width / 2;
    this.cy = height / 2;
    const sy = Math.sin(pose.yaw), cyw = Math.cos(pose.yaw);
    const sp = Math.sin(pose.pitch), cp = Math.cos(pose.pitch);
    // right = (cos yaw, 0, -sin yaw); forward = cos pitch * (sin yaw, 0, cos yaw) + sin pitch * (0, -1, 0)
    this.rx = cyw; this.ry = 0; this.rz = -sy;
    this.fx = cp * sy; this.fy = -sp; this.fz = cp * cyw;
    this.ux = sp * sy; this.uy = cp; this.uz = sp * cyw;
  }

  /** World → camera coordinates; writes [xc, yc, zc] into out at offset o. */
  toCamera(X: number, Y: number, Z: number, out: Float64Array, o: number): void {
    const dx = X - this.pose.x, dy = Y - this.pose.height, dz = Z;
    out[o] = dx * this.rx + dy * this.ry + dz * this.rz;
    out[o + 1] = dx * this.ux + dy * this.uy + dz * this.uz;
    out[o + 2] = dx * this.fx + dy * this.fy + dz * this.fz;
  }

  /** Image column of a camera-space point (zc must be > 0). */
  u(xc: number, zc: number): number {
    return this.cx + (this.f * xc) / zc;
  }

  /** Image row of a camera-space point (zc must be > 0). */
  v(yc: number, zc: number): number {
    return this.cy - (this.f * yc) / zc;
  }

  /** Projects a world point; returns false when it is behind the near plane. */
  project(X: number, Y: number, Z: number, out: Float64Array): boolean {
    this.toCamera(X, Y, Z, out, 0);
    const zc = out[2]!;
    if (zc < NEAR_PLANE_M) return false;
    const xc = out[0]!, yc = out[1]!;
    out[0] = this.u(xc, zc);
    out[1] = this.v(yc, zc);
    return true;
  }

  /**
   * Ray through pixel (u, v) → world ground point (Y = 0). Returns false above the horizon.
   * out receives [X, Z, distance along the ray].
   */
  groundAt(u: number, v: number, out: Float64Array): boolean {
    const a = (u - this.cx) / this.f, b = -(v - this.cy) / this.f;
    const dx = this.fx + a * this.rx + b * this.ux;
    const dy = this.fy + a * this.ry + b * this.uy;
    const dz = this.fz + a * this.rz + b * this.uz;
    if (dy >= -1e-9) return false;
    const t = -this.pose.height / dy;
    out[0] = this.pose.x + t * dx;
    out[1] = t * dz;
    out[2] = t * Math.sqrt(dx * dx + dy * dy + dz * dz);
    return true;
  }

  /** World direction of the ray through pixel (u, v) (not normalised): [dx, dy, dz]. */
  rayDir(u: number, v: number, out: Float64Array): void {
    const a = (u - this.cx) / this.f, b = -(v - this.cy) / this.f;
    out[0] = this.fx + a * this.rx + b * this.ux;
    out[1] = this.fy + a * this.ry + b * this.uy;
    out[2] = this.fz + a * this.rz + b * this.uz;
  }
}
