// Appearance and size of one simulated vehicle as a few coloured boxes (body, cabin, cargo, wheels, rider),
// with window, light and highlight patches on their faces. Sizes in metres, colours sRGB 0..255.

import { Rng } from './prng.js';

export type VehicleType = 'car' | 'van' | 'heavy' | 'two-wheeler';

export type FaceName = 'front' | 'rear' | 'left' | 'right' | 'top';

/** A patch on a face in face-local fractions: u across (X, or along the length for sides, 0 = front), v up (or along the length for the top). */
export interface Decal {
  readonly face: FaceName;
  readonly u0: number;
  readonly u1: number;
  readonly v0: number;
  readonly v1: number;
  readonly rgb: readonly [number, number, number];
}

export interface VehicleBox {
  /** Distance from the front bumper backwards, m. */
  readonly l0: number;
  readonly l1: number;
  /** Lateral extent relative to the vehicle centre line, m (world X). */
  readonly x0: number;
  readonly x1: number;
  /** Height above the road, m. */
  readonly y0: number;
  readonly y1: number;
  readonly rgb: readonly [number, number, number];
  readonly decals: readonly Decal[];
  /** Wheels on one side are drawn before (far side) or after (near side) the body; 0 for other boxes. */
  readonly wheelSide: -1 | 0 | 1;
}

export interface VehicleModel {
  readonly type: VehicleType;
  readonly length: number;
  readonly width: number;
  readonly height: number;
  readonly boxes: readonly VehicleBox[];
}

type Rgb = [number, number, number];

const GLASS: Rgb = [34, 40, 48];
const GLASS_SKY: Rgb = [70, 80, 92];
const TYRE: Rgb = [20, 20, 22];
const HEADLAMP: Rgb = [205, 205, 195];
const TAIL_LAMP: Rgb = [150, 22, 20];
const DARK_TRIM: Rgb = [32, 32, 34];

function clamp255(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

function jitter(rng: Rng, base: Rgb, amount: number): Rgb {
  const k = 1 + rng.uniform(-amount, amount);
  return [clamp255(base[0] * k + rng.uniform(-4, 4)), clamp255(base[1] * k + rng.uniform(-4, 4)), clamp255(base[2] * k + rng.uniform(-4, 4))];
}

function scale(c: readonly number[], k: number): Rgb {
  return [clamp255(c[0]! * k), clamp255(c[1]! * k), clamp255(c[2]! * k)];
}

// Body colours weighted roughly like a European car park; 'road' and 'dark' give low-contrast vehicles.
const BODY_COLOURS = {
  white: 0.2,
  silver: 0.13,
  road: 0.15,
  dark: 0.2,
  blue: 0.1,
  red: 0.09,
  green: 0.04,
  beige: 0.04,
  brown: 0.05,
} as const;

function bodyColour(rng: Rng): Rgb {
  switch (rng.pick(BODY_COLOURS)) {
    case 'white': return jitter(rng, [222, 224, 226], 0.05);
    case 'silver': return jitter(rng, [160, 163, 168], 0.08);
    case 'road': return jitter(rng, [98, 98, 101], 0.08); // close to the asphalt: hard for a detector
    case 'dark': return jitter(rng, [28, 29, 32], 0.3);
    case 'blue': return jitter(rng, [34, 52, 104], 0.2);
    case 'red': return jitter(rng, [150, 28, 26], 0.15);
    case 'green': return jitter(rng, [40, 70, 48], 0.15);
    case 'beige': return jitter(rng, [180, 168, 140], 0.08);
    case 'brown': return jitter(rng, [88, 66, 50], 0.15);
  }
}

function wheels(len: number, halfW: number, axles: readonly number[], diameter: number): VehicleBox[] {
  const out: VehicleBox[] = [];
  for (const side of [-1, 1] as const) {
    for (const l of axles) {
      const inner = halfW - 0.24, outer = halfW + 0.02;
      out.push({
        l0: Math.max(0, l - diameter / 2),
        l1: Math.min(len, l + diameter / 2),
        x0: side < 0 ? -outer : inner,
        x1: side < 0 ? -inner : outer,
        y0: 0,
        y1: diameter,
        rgb: TYRE,
        decals: [],
        wheelSide: side,
      });
    }
  }
  return out;
}

function car(rng: Rng): VehicleModel {
  const length = rng.uniform(3.8, 4.8);
  const width = rng.uniform(1.7, 1.88);
  const height = rng.uniform(1.4, 1.55);
  const c = bodyColour(rng);
  const hw = width / 2;
  const beltline = 0.82;
  const cabinFront = rng.uniform(0.28, 0.34) * length;
  const cabinRear = rng.uniform(0.8, 0.9) * length;
  const ch = hw * 0.9;
  const boxes: VehicleBox[] = [
    {
      l0: 0, l1: length, x0: -hw, x1: hw, y0: 0.26, y1: beltline, rgb: c, wheelSide: 0,
      decals: [
        { face: 'front', u0: 0.3, u1: 0.7, v0: 0.2, v1: 0.5, rgb: DARK_TRIM },
        { face: 'front', u0: 0.05, u1: 0.22, v0: 0.55, v1: 0.8, rgb: HEADLAMP },
        { face: 'front', u0: 0.78, u1: 0.95, v0: 0.55, v1: 0.8, rgb: HEADLAMP },
        { face: 'rear', u0: 0.04, u1: 0.2, v0: 0.5, v1: 0.8, rgb: TAIL_LAMP },
        { face: 'rear', u0: 0.8, u1: 0.96, v0: 0.5, v1: 0.8, rgb: TAIL_LAMP },
        { face: 'rear', u0: 0.0, u1: 1.0, v0: 0.0, v1: 0.18, rgb: DARK_TRIM },
      ],
    },
    {
      l0: cabinFront, l1: cabinRear, x0: -ch, x1: ch, y0: beltline, y1: height, rgb: c, wheelSide: 0,
      decals: [
        { face: 'front', u0: 0.04, u1: 0.96, v0: 0.06, v1: 0.9, rgb: GLASS_SKY },
        { face: 'rear', u0: 0.08, u1: 0.92, v0: 0.12, v1: 0.85, rgb: GLASS },
        { face: 'left', u0: 0.05, u1: 0.95, v0: 0.12, v1: 0.88, rgb: GLASS },
        { face: 'right', u0: 0.05, u1: 0.95, v0: 0.12, v1: 0.88, rgb: GLASS },
        { face: 'top', u0: 0.22, u1: 0.78, v0: 0.2, v1: 0.75, rgb: scale(c, 1.18) }, // roof sheen
      ],
    },
    ...wheels(length, hw, [0.17 * length, 0.8 * length], 0.62),
  ];
  return { type: 'car', length, width, height, boxes };
}

function van(rng: Rng): VehicleModel {
  const length = rng.uniform(4.8, 6.0);
  const width = rng.uniform(1.9, 2.05);
  const height = rng.uniform(2.0, 2.6);
  const c = rng.chance(0.55) ? jitter(rng, [225, 226, 228], 0.05) : bodyColour(rng);
  const hw = width / 2;
  const boxes: VehicleBox[] = [
    {
      l0: 0, l1: length, x0: -hw, x1: hw, y0: 0.3, y1: height, rgb: c, wheelSide: 0,
      decals: [
        { face: 'front', u0: 0.06, u1: 0.94, v0: 0.55, v1: 0.9, rgb: GLASS_SKY },
        { face: 'front', u0: 0.05, u1: 0.2, v0: 0.2, v1: 0.32, rgb: HEADLAMP },
        { face: 'front', u0: 0.8, u1: 0.95, v0: 0.2, v1: 0.32, rgb: HEADLAMP },
        { face: 'front', u0: 0.3, u1: 0.7, v0: 0.08, v1: 0.3, rgb: DARK_TRIM },
        { face: 'rear', u0: 0.1, u1: 0.46, v0: 0.6, v1: 0.85, rgb: GLASS },
        { face: 'rear', u0: 0.54, u1: 0.9, v0: 0.6, v1: 0.85, rgb: GLASS },
        { face: 'rear', u0: 0.49, u1: 0.51, v0: 0.05, v1: 0.95, rgb: DARK_TRIM },
        { face: 'rear', u0: 0.02, u1: 0.12, v0: 0.22, v1: 0.45, rgb: TAIL_LAMP },
        { face: 'rear', u0: 0.88, u1: 0.98, v0: 0.22, v1: 0.45, rgb: TAIL_LAMP },
        { face: 'left', u0: 0.03, u1: 0.2, v0: 0.55, v1: 0.88, rgb: GLASS },
        { face: 'right', u0: 0.03, u1: 0.2, v0: 0.55, v1: 0.88, rgb: GLASS },
      ],
    },
    ...wheels(length, hw, [0.16 * length, 0.8 * length], 0.66),
  ];
  return { type: 'van', length, width, height, boxes };
}

const CARGO_COLOURS: Rgb[] = [[228, 228, 226], [200, 202, 204], [60, 90, 150], [160, 40, 36], [90, 110, 70], [150, 152, 150], [40, 44, 50]];

function heavy(rng: Rng): VehicleModel {
  const width = rng.uniform(2.45, 2.55);
  const hw = width / 2;
  if (rng.chance(0.3)) {
    // Bus: one long box with a band of windows.
    const length = rng.uniform(11, 12.5);
    const height = rng.uniform(3.0, 3.3);
    const c = jitter(rng, CARGO_COLOURS[rng.int(0, 3)]!, 0.06);
    const boxes: VehicleBox[] = [
      {
        l0: 0, l1: length, x0: -hw, x1: hw, y0: 0.35, y1: height, rgb: c, wheelSide: 0,
        decals: [
          { face: 'front', u0: 0.04, u1: 0.96, v0: 0.35, v1: 0.92, rgb: GLASS_SKY },
          { face: 'rear', u0: 0.1, u1: 0.9, v0: 0.62, v1: 0.9, rgb: GLASS },
          { face: 'rear', u0: 0.03, u1: 0.12, v0: 0.1, v1: 0.25, rgb: TAIL_LAMP },
          { face: 'rear', u0: 0.88, u1: 0.97, v0: 0.1, v1: 0.25, rgb: TAIL_LAMP },
          { face: 'left', u0: 0.04, u1: 0.97, v0: 0.5, v1: 0.88, rgb: GLASS },
          { face: 'right', u0: 0.04, u1: 0.97, v0: 0.5, v1: 0.88, rgb: GLASS },
          { face: 'top', u0: 0.1, u1: 0.9, v0: 0.1, v1: 0.9, rgb: scale(c, 0.9) },
        ],
      },
      ...wheels(length, hw, [0.2 * length, 0.78 * length], 1.0),
    ];
    return { type: 'heavy', length, width, height, boxes };
  }
  // Lorry: cab, chassis and cargo box.
  const length = rng.uniform(8, 12);
  const height = rng.uniform(3.4, 4.0);
  const cabColour = bodyColour(rng);
  const cargo = jitter(rng, CARGO_COLOURS[rng.int(0, CARGO_COLOURS.length - 1)]!, 0.06);
  const cabLen = 2.3;
  const boxes: VehicleBox[] = [
    { l0: cabLen, l1: length, x0: -hw * 0.9, x1: hw * 0.9, y0: 0.5, y1: 1.1, rgb: DARK_TRIM, decals: [], wheelSide: 0 },
    {
      l0: 0, l1: cabLen, x0: -hw, x1: hw, y0: 0.5, y1: Math.min(3.1, height - 0.3), rgb: cabColour, wheelSide: 0,
      decals: [
        { face: 'front', u0: 0.05, u1: 0.95, v0: 0.55, v1: 0.9, rgb: GLASS_SKY },
        { face: 'front', u0: 0.06, u1: 0.2, v0: 0.1, v1: 0.2, rgb: HEADLAMP },
        { face: 'front', u0: 0.8, u1: 0.94, v0: 0.1, v1: 0.2, rgb: HEADLAMP },
        { face: 'left', u0: 0.1, u1: 0.7, v0: 0.55, v1: 0.88, rgb: GLASS },
        { face: 'right', u0: 0.1, u1: 0.7, v0: 0.55, v1: 0.88, rgb: GLASS },
      ],
    },
    {
      l0: cabLen + 0.3, l1: length, x0: -hw, x1: hw, y0: 1.1, y1: height, rgb: cargo, wheelSide: 0,
      decals: [
        { face: 'rear', u0: 0.49, u1: 0.51, v0: 0.03, v1: 0.97, rgb: DARK_TRIM },
        { face: 'rear', u0: 0.0, u1: 1.0, v0: 0.0, v1: 0.05, rgb: DARK_TRIM },
        { face: 'top', u0: 0.05, u1: 0.95, v0: 0.05, v1: 0.95, rgb: scale(cargo, 0.92) },
      ],
    },
    ...wheels(length, hw, [1.3, length * 0.72, length * 0.72 + 1.3], 1.0),
  ];
  return { type: 'heavy', length, width, height, boxes };
}

function twoWheeler(rng: Rng): VehicleModel {
  const length = rng.uniform(1.8, 2.15);
  const height = rng.uniform(1.55, 1.75);
  const bike = bodyColour(rng);
  const jacket = rng.chance(0.6) ? jitter(rng, [30, 30, 34], 0.3) : bodyColour(rng);
  const helmet = rng.chance(0.5) ? jitter(rng, [230, 230, 230], 0.05) : jitter(rng, [25, 25, 28], 0.2);
  const boxes: VehicleBox[] = [
    { l0: 0.05, l1: 0.7, x0: -0.05, x1: 0.05, y0: 0, y1: 0.62, rgb: TYRE, decals: [], wheelSide: 0 },
    { l0: length - 0.7, l1: length - 0.05, x0: -0.05, x1: 0.05, y0: 0, y1: 0.62, rgb: TYRE, decals: [], wheelSide: 0 },
    {
      l0: 0.2, l1: length - 0.2, x0: -0.22, x1: 0.22, y0: 0.35, y1: 0.95, rgb: bike, wheelSide: 0,
      decals: [
        { face: 'front', u0: 0.3, u1: 0.7, v0: 0.6, v1: 0.85, rgb: HEADLAMP },
        { face: 'rear', u0: 0.3, u1: 0.7, v0: 0.6, v1: 0.8, rgb: TAIL_LAMP },
      ],
    },
    { l0: length * 0.38, l1: length * 0.72, x0: -0.26, x1: 0.26, y0: 0.95, y1: height - 0.27, rgb: jacket, decals: [], wheelSide: 0 },
    { l0: length * 0.42, l1: length * 0.6, x0: -0.14, x1: 0.14, y0: height - 0.27, y1: height, rgb: helmet, decals: [], wheelSide: 0 },
  ];
  return { type: 'two-wheeler', length, width: 0.7, height, boxes };
}

/** Builds the appearance of one vehicle of the given type from its own random stream. */
export function buildVehicleModel(type: VehicleType, rng: Rng): VehicleModel {
  switch (type) {
    case 'car': return car(rng);
    case 'van': return van(rng);
    case 'heavy': return heavy(rng);
    case 'two-wheeler': return twoWheeler(rng);
  }
}
