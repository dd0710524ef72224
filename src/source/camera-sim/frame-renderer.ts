// Draws one simulated frame: the static background, cast shadows, vehicles as shaded boxes with windows,
// lights and wheels, then global illumination and sensor noise. Buffers are allocated once per renderer.

import type { CameraModel } from './camera-model.js';
import { Rng, hash32 } from './prng.js';
import { PolygonScratch, convexHull, fillConvex, scanConvex } from './raster.js';
import type { ScenarioParams } from './scenarios.js';
import type { FaceName, VehicleBox, VehicleModel } from './vehicle-model.js';
import { placeBox, type PlacedBox } from './vehicle-placement.js';
import type { TravelDirection } from './road-layout.js';

/** One vehicle to draw. */
export interface DrawVehicle {
  readonly model: VehicleModel;
  readonly direction: TravelDirection;
  /** Centre line X, m. */
  readonly x: number;
  /** Front bumper Z, m. */
  readonly frontZ: number;
}

const EMPTY = new Uint8Array(0); // coverage() draws into its owner map, not into pixels

const NOISE_BITS = 20; // a table larger than one 1280x720 frame, so noise never repeats within a frame
const NOISE_MASK = (1 << NOISE_BITS) - 1;

export class FrameRenderer {
  private readonly camera: CameraModel;
  private readonly background: Uint8Array;
  private readonly params: ScenarioParams;
  private readonly seed: number;
  private readonly noise: Int8Array;
  private readonly mask: Uint8Array;
  private readonly rowMin: Int32Array;
  private readonly rowMax: Int32Array;
  private readonly lut = new Float32Array(256);
  private readonly poly = new PolygonScratch();
  private readonly placed: PlacedBox = { X0: 0, X1: 0, Y0: 0, Y1: 0, Zf: 0, Zr: 0 };
  private readonly ground = new Float64Array(32);
  private readonly hull = new Float64Array(32);
  private readonly bodyOrder: VehicleBox[] = [];
  private readonly orderIdx: number[] = [];
  private readonly placedList: PlacedBox[] = Array.from({ length: 16 }, () => ({ X0: 0, X1: 0, Y0: 0, Y1: 0, Zf: 0, Zr: 0 }));
  // Face brightness from the sun direction: top, ±X sides, ±Z ends.
  private readonly shadeTop: number;
  private readonly shadeLeft: number;
  private readonly shadeRight: number;
  private readonly shadeNear: number;
  private readonly shadeFar: number;
  private readonly shadowDX: number;
  private readonly shadowDZ: number;
  /** While coverage() runs: which vehicle last drew each pixel, the one drawing now, and each one's pixels. */
  private cover: { readonly owner: Int32Array; id: number; readonly drawn: number[] } | null = null;
  private owner: Int32Array | null = null;

  constructor(camera: CameraModel, background: Uint8Array, params: ScenarioParams, seed: number) {
    this.camera = camera;
    this.background = background;
    this.params = params;
    this.seed = seed;
    const n = camera.width * camera.height;
    this.mask = new Uint8Array(n);
    this.rowMin = new Int32Array(camera.height).fill(camera.width);
    this.rowMax = new Int32Array(camera.height).fill(-1);
    this.noise = new Int8Array(1 << NOISE_BITS);
    const rng = new Rng(hash32(seed, 4242));
    for (let i = 0; i < this.noise.length; i++) {
      this.noise[i] = Math.max(-127, Math.min(127, Math.round(rng.normal() * params.noiseSigma)));
    }
    const e = (params.sunElevationDeg * Math.PI) / 180;
    const az = (params.shadowAzimuthDeg * Math.PI) / 180;
    // Shadows fall along (sx, sz) on the ground; the sun is the opposite way, up at elevation e.
    const sx = -Math.sin(az), sz = Math.cos(az);
    const lx = -sx * Math.cos(e), ly = Math.sin(e), lz = -sz * Math.cos(e);
    const lit = (d: number): number => 0.45 + 0.55 * Math.max(0, d);
    this.shadeTop = Math.min(1.05, 0.6 + 0.55 * ly);
    this.shadeLeft = lit(-lx);
    this.shadeRight = lit(lx);
    this.shadeNear = lit(-lz);
    this.shadeFar = lit(lz);
    const len = 1 / Math.tan(e);
    this.shadowDX = sx * len;
    this.shadowDZ = sz * len;
  }

  /** Renders the frame at one instant into out (RGBA). gain = global illumination, frameKey seeds the noise. */
  render(vehicles: readonly DrawVehicle[], gain: number, frameKey: number, out: Uint8Array): Uint8Array {
    out.set(this.background);
    if (vehicles.length > 0) {
      this.drawShadows(vehicles, out);
      for (const i of this.paintersOrder(vehicles)) this.drawVehicle(vehicles[i]!, out);
    }
    this.finish(gain, frameKey, out);
    return out;
  }

  /**
   * For each vehicle (index-aligned with `vehicles`), the pixels of its body in the frame, and how many of them no
   * nearer vehicle covers (drawn in render's painter's order) and lie where `region` is non-zero (every pixel when
   * it is not given): what of each vehicle a camera shows.
   */
  coverage(vehicles: readonly DrawVehicle[], region?: Uint8Array): { drawn: number[]; visible: number[] } {
    const n = this.camera.width * this.camera.height;
    const owner = (this.owner ??= new Int32Array(n));
    owner.fill(-1);
    const drawn = vehicles.map(() => 0);
    const cover = (this.cover = { owner, id: -1, drawn });
    try {
      for (const i of this.paintersOrder(vehicles)) {
        cover.id = i;
        this.drawVehicle(vehicles[i]!, EMPTY);
      }
    } finally {
      this.cover = null;
    }
    const visible = vehicles.map(() => 0);
    for (let p = 0; p < n; p++) {
      const id = owner[p]!;
      if (id >= 0 && (!region || region[p] !== 0)) visible[id]!++;
    }
    return { drawn, visible };
  }

  /** Indices of `vehicles` in painter's order: farthest from the camera first (a stable sort). */
  private paintersOrder(vehicles: readonly DrawVehicle[]): number[] {
    const camX = this.camera.pose.x;
    return vehicles.map((_, i) => i).sort((a, b) => distance(vehicles[b]!, camX) - distance(vehicles[a]!, camX));
  }

  private drawShadows(vehicles: readonly DrawVehicle[], out: Uint8Array): void {
    const { width, height } = this.camera;
    const mask = this.mask, rowMin = this.rowMin, rowMax = this.rowMax;
    let y0 = height, y1 = -1;
    const mark = (value: number) => (y: number, a: number, b: number): void => {
      const base = y * width;
      for (let x = a; x <= b; x++) if (mask[base + x]! < value) mask[base + x] = value;
      if (a < rowMin[y]!) rowMin[y] = a;
      if (b > rowMax[y]!) rowMax[y] = b;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    };
    const cast = mark(1), contact = mark(2);
    for (const v of vehicles) {
      for (const box of v.model.boxes) {
        if (box.wheelSide !== 0) continue;
        const p = placeBox(box, v.direction, v.x, v.frontZ, this.placed);
        // Cast shadow: the hull of the box's corners projected along the sun onto the road.
        let k = 0;
        for (let c = 0; c < 8; c++) {
          const X = c & 1 ? p.X1 : p.X0, Y = c & 2 ? p.Y1 : p.Y0, Z = c & 4 ? p.Zr : p.Zf;
          this.ground[k++] = X + Y * this.shadowDX;
          this.ground[k++] = Z + Y * this.shadowDZ;
        }
        this.fillGround(this.convexGround(8), cast);
        // Contact shadow: the road right under the body gets little light from any direction.
        if (box.y0 < 0.6) {
          const zlo = Math.min(p.Zf, p.Zr) - 0.15, zhi = Math.max(p.Zf, p.Zr) + 0.15;
          const g = this.hull;
          g[0] = p.X0 - 0.12; g[1] = zlo; g[2] = p.X1 + 0.12; g[3] = zlo;
          g[4] = p.X1 + 0.12; g[5] = zhi; g[6] = p.X0 - 0.12; g[7] = zhi;
          this.fillGround(4, contact);
        }
      }
    }
    const cast8 = Math.round(this.params.shadowFactor * 256);
    const contact8 = Math.round(Math.min(this.params.shadowFactor, 0.5) * 0.85 * 256);
    for (let y = Math.max(0, y0); y <= y1; y++) {
      const base = y * width;
      for (let x = rowMin[y]!; x <= rowMax[y]!; x++) {
        const m = mask[base + x]!;
        if (m === 0) continue;
        const f = m === 2 ? contact8 : cast8;
        const p = (base + x) * 4;
        out[p] = (out[p]! * f) >> 8;
        out[p + 1] = (out[p + 1]! * f) >> 8;
        out[p + 2] = (out[p + 2]! * f) >> 8;
        mask[base + x] = 0;
      }
      rowMin[y] = width;
      rowMax[y] = -1;
    }
  }

  /** Hull of this.ground[0..2n) into this.hull; returns its size. */
  private convexGround(n: number): number {
    return convexHull(this.ground, n, this.hull);
  }

  /** Projects the ground polygon in this.hull (X, Z pairs) and scans it into the shadow mask. */
  private fillGround(n: number, span: (y: number, a: number, b: number) => void): void {
    const poly = this.poly;
    poly.reset();
    for (let i = 0; i < n; i++) poly.add(this.camera, this.hull[i * 2]!, 0, this.hull[i * 2 + 1]!);
    const m = poly.project(this.camera);
    scanConvex(poly.img, m, this.camera.width, this.camera.height, span);
  }

  private drawVehicle(v: DrawVehicle, out: Uint8Array): void {
    const camX = this.camera.pose.x;
    const nearSide = camX > v.x ? 1 : -1;
    const boxes = v.model.boxes;
    // Far-side wheels, then the body boxes far to near, then near-side wheels (they stick out of the body).
    for (const b of boxes) if (b.wheelSide === -nearSide) this.drawBox(b, placeBox(b, v.direction, v.x, v.frontZ, this.placed), v, out);
    const body = this.bodyOrder;
    body.length = 0;
    for (const b of boxes) if (b.wheelSide === 0) body.push(b);
    for (let i = 0; i < body.length; i++) placeBox(body[i]!, v.direction, v.x, v.frontZ, this.placedList[i]!);
    // Insertion sort with a painter's comparator (stable, so overlapping boxes keep the model's order).
    const idx = this.orderIdx;
    idx.length = 0;
    for (let i = 0; i < body.length; i++) {
      let j = idx.length;
      while (j > 0 && drawsBefore(this.placedList[i]!, this.placedList[idx[j - 1]!]!, camX)) j--;
      idx.splice(j, 0, i);
    }
    for (const i of idx) this.drawBox(body[i]!, this.placedList[i]!, v, out);
    for (const b of boxes) if (b.wheelSide === nearSide) this.drawBox(b, placeBox(b, v.direction, v.x, v.frontZ, this.placed), v, out);
  }

  private drawBox(box: VehicleBox, p: PlacedBox, v: DrawVehicle, out: Uint8Array): void {
    const cam = this.camera.pose;
    // The camera sees a face when it is on the face's outer side.
    const zNear = Math.min(p.Zf, p.Zr);
    const nearIsFront = p.Zf <= p.Zr;
    if (zNear > 0) this.drawFace(box, nearIsFront ? 'front' : 'rear', p, v, out);
    if (cam.x < p.X0) this.drawFace(box, 'left', p, v, out);
    if (cam.x > p.X1) this.drawFace(box, 'right', p, v, out);
    if (cam.height > p.Y1) this.drawFace(box, 'top', p, v, out);
  }

  /**
   * Fills a face and its decals. Face corners are given as (u, v) → world by bilinear interpolation
   * between c00, c10, c11, c01 (exact for planar quads).
   */
  private drawFace(box: VehicleBox, face: FaceName, p: PlacedBox, v: DrawVehicle, out: Uint8Array): void {
    const c = faceCorners(face, p);
    let shade: number;
    switch (face) {
      case 'top': shade = this.shadeTop; break;
      case 'left': shade = this.shadeLeft; break;
      case 'right': shade = this.shadeRight; break;
      default: shade = (face === 'front') === (v.direction === 'in') ? this.shadeNear : this.shadeFar;
    }
    this.fillFaceQuad(c, 0, 1, 0, 1, box.rgb, shade, out);
    for (const d of box.decals) {
      if (d.face === face) this.fillFaceQuad(c, d.u0, d.u1, d.v0, d.v1, d.rgb, shade, out);
    }
  }

  private fillFaceQuad(c: number[], u0: number, u1: number, v0: number, v1: number, rgb: readonly number[], shade: number, out: Uint8Array): void {
    const poly = this.poly;
    poly.reset();
    const at = (u: number, w: number): void => {
      const k00 = (1 - u) * (1 - w), k10 = u * (1 - w), k11 = u * w, k01 = (1 - u) * w;
      poly.add(
        this.camera,
        k00 * c[0]! + k10 * c[3]! + k11 * c[6]! + k01 * c[9]!,
        k00 * c[1]! + k10 * c[4]! + k11 * c[7]! + k01 * c[10]!,
        k00 * c[2]! + k10 * c[5]! + k11 * c[8]! + k01 * c[11]!,
      );
    };
    at(u0, v0); at(u1, v0); at(u1, v1); at(u0, v1);
    const n = poly.project(this.camera);
    const cover = this.cover;
    if (cover) {
      const { owner, id, drawn } = cover, width = this.camera.width;
      scanConvex(poly.img, n, width, this.camera.height, (y, x0, x1) => {
        for (let p = y * width + x0, end = y * width + x1; p <= end; p++) {
          if (owner[p] !== id) { owner[p] = id; drawn[id]!++; }
        }
      });
      return;
    }
    const s = (x: number): number => Math.min(255, Math.round(x * shade));
    fillConvex(out, this.camera.width, this.camera.height, poly.img, n, s(rgb[0]!), s(rgb[1]!), s(rgb[2]!));
  }

  /** Global illumination and sensor noise, in place; Uint8ClampedArray does the rounding and clamping. */
  private finish(gain: number, frameKey: number, out: Uint8Array): void {
    const lut = this.lut;
    for (let i = 0; i < 256; i++) lut[i] = i * gain;
    const clamped = new Uint8ClampedArray(out.buffer, out.byteOffset, out.length);
    const T = this.noise;
    const h = hash32(this.seed, frameKey, 17);
    const oR = h & NOISE_MASK, oG = hash32(h, 1) & NOISE_MASK, oB = hash32(h, 2) & NOISE_MASK;
    const n = out.length;
    for (let p = 0, i = 0; p < n; p += 4, i++) {
      clamped[p] = lut[out[p]!]! + T[(oR + i) & NOISE_MASK]!;
      clamped[p + 1] = lut[out[p + 1]!]! + T[(oG + i) & NOISE_MASK]!;
      clamped[p + 2] = lut[out[p + 2]!]! + T[(oB + i) & NOISE_MASK]!;
    }
  }
}

/**
 * True when box a must be drawn before box b (b may hide a). Disjoint boxes are separated along some axis:
 * the lower one first (the camera is above every vehicle), else the one farther along the road, else the
 * one farther across the road. Boxes that interpenetrate keep the model's order.
 */
function drawsBefore(a: PlacedBox, b: PlacedBox, camX: number): boolean {
  if (a.Y1 <= b.Y0) return true;
  if (b.Y1 <= a.Y0) return false;
  const aZ0 = Math.min(a.Zf, a.Zr), aZ1 = Math.max(a.Zf, a.Zr);
  const bZ0 = Math.min(b.Zf, b.Zr), bZ1 = Math.max(b.Zf, b.Zr);
  if (aZ1 <= bZ0) return false; // a is nearer along the road (the camera is at Z = 0): b first
  if (bZ1 <= aZ0) return true;
  if (a.X1 <= b.X0) return camX >= b.X0; // a left of b: farther from a camera on the right
  if (b.X1 <= a.X0) return camX < a.X0;
  return false;
}

function distance(v: DrawVehicle, camX: number): number {
  const dz = v.frontZ + (v.direction === 'in' ? v.model.length / 2 : -v.model.length / 2);
  const dx = v.x - camX;
  return dx * dx + dz * dz;
}

/** World corners (u, v) = (0,0), (1,0), (1,1), (0,1) of a face, as 12 numbers. */
function faceCorners(face: FaceName, p: PlacedBox): number[] {
  switch (face) {
    case 'front': return [p.X0, p.Y0, p.Zf, p.X1, p.Y0, p.Zf, p.X1, p.Y1, p.Zf, p.X0, p.Y1, p.Zf];
    case 'rear': return [p.X0, p.Y0, p.Zr, p.X1, p.Y0, p.Zr, p.X1, p.Y1, p.Zr, p.X0, p.Y1, p.Zr];
    case 'left': return [p.X0, p.Y0, p.Zf, p.X0, p.Y0, p.Zr, p.X0, p.Y1, p.Zr, p.X0, p.Y1, p.Zf];
    case 'right': return [p.X1, p.Y0, p.Zf, p.X1, p.Y0, p.Zr, p.X1, p.Y1, p.Zr, p.X1, p.Y1, p.Zf];
    case 'top': return [p.X0, p.Y1, p.Zf, p.X1, p.Y1, p.Zf, p.X1, p.Y1, p.Zr, p.X0, p.Y1, p.Zr];
  }
}
