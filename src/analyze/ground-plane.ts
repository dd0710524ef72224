// Maps image positions to road-plane coordinates (up to scale) using the horizon learned from vehicle
// widths, so a vehicle at constant speed moves linearly even when 1 fps makes it jump from far to near.

import type { PerspectiveModel } from './perspective-model.js';

/**
 * Ground coordinates are scaled to equal image px on the reference row (the ROI's middle) and grow
 * without bound towards the horizon. With a pinhole camera, (x − xc)/(y − yh) and 1/(y − yh) are affine in
 * road-plane X and Z for any xc, so straight constant-speed motion is straight and constant-speed here.
 */
export class GroundPlane {
  private yh = NaN;
  private zref = 1;
  active = false;

  constructor(
    private readonly persp: PerspectiveModel,
    private readonly xc: number,
    private readonly yref: number,
    private readonly top: number,
  ) {}

  /**
   * Refreshes the horizon from the perspective model; keeps the identity map while there is none (widths do
   * not grow down the image, or too few samples yet).
   */
  refresh(): void {
    const yh = this.persp.ready ? this.persp.horizon() : NaN;
    // The horizon must lie above the ROI, with room: a fit nearer than that (few samples, at 1 fps) is held
    // at the nearest row allowed. That is still much nearer the fit than the identity map, which stands for
    // a horizon infinitely far above, and it keeps the map from switching off and on as samples come in.
    // Held above the ROI's top, the horizon is above the reference row (the ROI's middle): zref > 0.
    this.active = Number.isFinite(yh);
    if (this.active) {
      this.yh = Math.min(yh, this.top - 0.1 * (this.yref - this.top) - 1);
      this.zref = this.yref - this.yh;
    }
  }

  gx(x: number, y: number): number {
    return this.active ? this.xc + (this.zref * (x - this.xc)) / Math.max(1, y - this.yh) : x;
  }

  gy(y: number): number {
    return this.active ? this.yref - this.zref * (this.zref / Math.max(1, y - this.yh) - 1) : y;
  }

  /** Image row of ground coordinate gy (NaN beyond the horizon). */
  y(gy: number): number {
    if (!this.active) return gy;
    const den = this.zref - gy + this.yref;
    return den > 0 ? this.yh + (this.zref * this.zref) / den : NaN;
  }

  /** Image column of ground coordinate gx at image row y. */
  x(gx: number, y: number): number {
    return this.active ? this.xc + ((gx - this.xc) * (y - this.yh)) / this.zref : gx;
  }

  /** Image point (x, y) moved by (dgx, dgy) on the ground; [NaN, NaN] when that is beyond the horizon. */
  moved(x: number, y: number, dgx: number, dgy: number): [number, number] {
    const y2 = this.y(this.gy(y) + dgy);
    return Number.isNaN(y2) ? [NaN, NaN] : [this.x(this.gx(x, y) + dgx, y2), y2];
  }
}
