// ROI geometry: the crop box of the ROI polygon at working (downscaled) resolution, its pixel mask, and
// the box-filter downsampling of an RGBA frame into reusable per-channel working buffers.

import { ConfigError } from '../errors.js';
import type { Point } from '../config/config-types.js';

export interface RoiGeometry {
  /** Crop origin in full-resolution pixels (a multiple of `scale`). */
  readonly x0: number;
  readonly y0: number;
  /** Working resolution size of the crop. */
  readonly width: number;
  readonly height: number;
  /** Full-resolution pixels per working pixel. */
  readonly scale: number;
  /** 1 where the working pixel's centre lies inside the ROI polygon. */
  readonly mask: Uint8Array;
  /** Number of mask pixels. */
  readonly maskCount: number;
  /** The ROI polygon it was built from (full-resolution pixels), for checkFrameContainsRoi's message. */
  readonly roi: readonly Point[];
}

/** Builds the crop and mask; the crop is clipped to the frame only by the caller's size check. */
export function buildRoiGeometry(roi: readonly Point[], scale: number): RoiGeometry {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of roi) {
    minX = Math.min(minX, x); minY = Math.min(minY, y);
    maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
  }
  const x0 = Math.max(0, Math.floor(minX / scale) * scale);
  const y0 = Math.max(0, Math.floor(minY / scale) * scale);
  const width = Math.max(1, Math.floor((Math.ceil(maxX) - x0) / scale));
  const height = Math.max(1, Math.floor((Math.ceil(maxY) - y0) / scale));
  const mask = new Uint8Array(width * height);
  let maskCount = 0;
  // Even-odd rule at each working pixel's centre, one row at a time: the row's edge crossings once, then a walk
  // along them (a pixel is inside when an odd number lie to its right). Testing every edge at every pixel made a
  // finely traced ROI (tens of thousands of points) hold the daemon's thread for minutes.
  const xs: number[] = [];
  for (let y = 0; y < height; y++) {
    const py = y0 + (y + 0.5) * scale;
    xs.length = 0;
    for (let i = 0, j = roi.length - 1; i < roi.length; j = i++) {
      const [xi, yi] = roi[i]!;
      const [xj, yj] = roi[j]!;
      if (yi > py !== yj > py) xs.push(((xj - xi) * (py - yi)) / (yj - yi) + xi);
    }
    xs.sort((a, b) => a - b);
    let k = 0; // crossings at or left of the pixel centre
    for (let x = 0; x < width; x++) {
      const px = x0 + (x + 0.5) * scale;
      while (k < xs.length && xs[k]! <= px) k++;
      if ((xs.length - k) % 2 === 1) {
        mask[y * width + x] = 1;
        maskCount++;
      }
    }
  }
  return { x0, y0, width, height, scale, mask, maskCount, roi };
}

/**
 * Throws when a frame at `frameScale` (full-resolution pixels per frame pixel) cannot be sampled: the scale
 * must divide the working scale, and the frame must contain the whole crop. Config coordinates are
 * full-resolution pixels; frame pixel i covers full-resolution pixels [i·s, i·s + s).
 */
export function checkFrameContainsRoi(geom: RoiGeometry, frameWidth: number, frameHeight: number, frameScale: number, path: string): void {
  if (!Number.isInteger(frameScale) || frameScale < 1 || geom.scale % frameScale !== 0) {
    throw new ConfigError(
      `${path}: frame decoded at scale ${frameScale}, which does not divide analyzer.downscale ${geom.scale}; ` +
        'set decodeScale to a divisor of every camera\'s analyzer.downscale',
    );
  }
  const w = frameWidth * frameScale;
  const h = frameHeight * frameScale;
  const at = frameScale > 1 ? ` (decoded at scale ${frameScale} as ${frameWidth}x${frameHeight})` : '';
  const drawnOn =
    `, or, when they were drawn on a frame of the same shape at another size (a camera's other stream), set ${path}.drawnOn to that ` +
    `frame's [width, height]; they are then scaled to fit (README, "Frame size")`;
  // One rule for the four edges: every corner on the frame, (0, 0) to (width, height). A corner past the left or top
  // edge was clipped away without a word, while one past the right or bottom edge refused the frame.
  for (const [i, [x, y]] of geom.roi.entries()) {
    const edges = [x < 0 && 'left', y < 0 && 'top', x > w && 'right', y > h && 'bottom'].filter((e): e is string => e !== false);
    if (edges.length === 0) continue;
    const past = x > w || y > h;
    throw new ConfigError(
      `${path}.roi[${i}]: (${x}, ${y}) lies past the ${edges.join(' and ')} edge of the camera's ${w}x${h} frame${at}; ` +
        `ROI and line coordinates are pixels of the full-size frame, from (0, 0) at its top-left corner to (${w}, ${h}): ` +
        `move the point onto the frame, or redraw the ROI on a frame of this camera${past ? drawnOn : ''}`,
    );
  }
  // The crop never reaches further than the corners; this holds a ROI within the last pixels of the frame to it too.
  const needW = geom.x0 + geom.width * geom.scale;
  const needH = geom.y0 + geom.height * geom.scale;
  if (w < needW || h < needH) {
    throw new ConfigError(
      `${path}.roi: reaches (${needW}, ${needH}) at analyzer.downscale ${geom.scale}, past the camera's ${w}x${h} frame${at}; ` +
        `move the ROI away from the frame's right and bottom edges, or lower analyzer.downscale`,
    );
  }
}

/** A sample this bright in any channel may have been clipped by the camera. */
const CLIPPED = 254;

/**
 * Averages each working pixel's block of the crop into r/g/b (values 0-255). A working pixel is scale×scale
 * full-resolution pixels, i.e. (scale/frameScale)² pixels of a frame decoded at frameScale (the decoder has
 * averaged the rest). Only every other row and column of a block is read when it is 4 or more frame pixels
 * wide: it halves the cost and the box filter still suppresses JPEG noise. `clipped`, when given, receives the
 * share of the samples clipped at 255 in some channel (of a frame decoded at frameScale > 1, only pixels whose
 * whole block the decoder averaged were clipped).
 */
export function sampleRoi(
  data: Uint8Array, frameWidth: number, frameScale: number, geom: RoiGeometry, r: Float32Array, g: Float32Array, b: Float32Array,
  clipped?: Float32Array,
): void {
  const { width, height } = geom;
  const block = geom.scale / frameScale;
  const fx0 = geom.x0 / frameScale;
  const fy0 = geom.y0 / frameScale;
  const step = block >= 4 ? 2 : 1;
  const n = Math.ceil(block / step) ** 2;
  const inv = 1 / n;
  for (let y = 0; y < height; y++) {
    const fy = fy0 + y * block;
    for (let x = 0; x < width; x++) {
      const fx = fx0 + x * block;
      let sr = 0, sg = 0, sb = 0, sc = 0;
      for (let dy = 0; dy < block; dy += step) {
        let p = ((fy + dy) * frameWidth + fx) * 4;
        for (let dx = 0; dx < block; dx += step) {
          const vr = data[p]!, vg = data[p + 1]!, vb = data[p + 2]!;
          sr += vr; sg += vg; sb += vb;
          if (vr >= CLIPPED || vg >= CLIPPED || vb >= CLIPPED) sc++;
          p += 4 * step;
        }
      }
      const o = y * width + x;
      r[o] = sr * inv; g[o] = sg * inv; b[o] = sb * inv;
      if (clipped) clipped[o] = sc * inv;
    }
  }
}
