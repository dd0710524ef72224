// Synthetic frames for analyzer unit tests: a textured grey road and rectangular "vehicles", plus a camera
// config with a full-frame ROI and one horizontal line drawn left to right (in = moving down).

import { validateConfig } from '../../dist/src/config/validate-config.js';
import type { CameraConfig } from '../../dist/src/config/config-types.js';

export const W = 640;
export const H = 360;
export const LINE_Y = 180;

export interface Box {
  /** Centre and size in px. */
  x: number;
  y: number;
  w: number;
  h: number;
  rgb?: [number, number, number];
}

/**
 * A camera over the synthetic road. Its start-up is the 8 s of bootstrapSec alone (at least 5 frames):
 * these scenes script a single vehicle after an empty road, so there is nothing to learn from more frames.
 * The frame-size options are pinned to the values these scenes' vehicles were drawn for (1/4, 80 px², 4 px),
 * not fitted to the 640x360 frame (test/analyzer-frame-size.test.ts tests the fitting).
 */
export const ROAD_SCALE = { downscale: 4, minAreaPx: 80, lineMinMarginPx: 4 } as const;

export function roadCamera(analyzer: Record<string, number | boolean> = {}): CameraConfig {
  return validateConfig(
    {
      cameras: [{
        id: 'test', roi: [[0, 0], [W, 0], [W, H], [0, H]], lines: [{ id: 'main', from: [0, LINE_Y], to: [W, LINE_Y] }],
        analyzer: { ...ROAD_SCALE, bootstrapMinFrames: 5, ...analyzer },
      }],
    },
    { requireUrl: false },
  ).cameras[0]!;
}

/** A deterministic textured road (so noise statistics are not degenerate), times `gain`, clipped. */
export function roadFrame(boxes: readonly Box[] = [], gain = 1): Uint8Array {
  const data = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const v = 90 + ((x * 7 + y * 13) % 11) + (((x >> 5) + (y >> 5)) % 2) * 20;
      const o = (y * W + x) * 4;
      data[o] = Math.min(255, v * gain);
      data[o + 1] = Math.min(255, v * gain);
      data[o + 2] = Math.min(255, (v + 8) * gain);
      data[o + 3] = 255;
    }
  }
  for (const b of boxes) {
    const [r, g, bl] = b.rgb ?? [200, 40, 40];
    for (let y = Math.max(0, Math.round(b.y - b.h / 2)); y < Math.min(H, Math.round(b.y + b.h / 2)); y++) {
      for (let x = Math.max(0, Math.round(b.x - b.w / 2)); x < Math.min(W, Math.round(b.x + b.w / 2)); x++) {
        const o = (y * W + x) * 4;
        data[o] = Math.min(255, r * gain);
        data[o + 1] = Math.min(255, g * gain);
        data[o + 2] = Math.min(255, bl * gain);
      }
    }
  }
  return data;
}

export const T0 = Date.UTC(2024, 0, 1);

/** The scenes' car: 48 × 36 px, centred on row y and column x (320: the middle of the road). */
export const car = (y: number, x = 320): Box => ({ x, y, w: 48, h: 36 });

/**
 * A car crawling up across the line at 10 px/s, one frame a second: a quarter of its size per second, too slow
 * to teach the place a usual motion, so its crossing is held (see heldCrossingMaxSec).
 */
export const CRAWL: readonly Box[] = [3, -7, -17, -27, -37].map((d) => car(LINE_Y + d));
