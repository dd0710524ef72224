// Decode scale: decoders can hand over a frame reduced by 1/2, 1/4 or 1/8, because the analyzer only ever
// works on a box-averaged, downscaled copy of the ROI (see analyzer.downscale). Frame pixel (x, y) at scale s
// covers full-resolution pixels [x·s, x·s + s) × [y·s, y·s + s), clipped at the right and bottom edges.

import type { DecodedImage } from './decode-jpeg.js';

/** The scales libjpeg can decode at directly (DCT scaling), and so the only ones offered. */
export const DECODE_SCALES = [1, 2, 4, 8] as const;

/** Full-resolution pixels per decoded pixel, per axis. */
export type DecodeScale = (typeof DECODE_SCALES)[number];

export function isDecodeScale(v: unknown): v is DecodeScale {
  return (DECODE_SCALES as readonly unknown[]).includes(v);
}

/**
 * Size of a width x height image decoded at `scale`: rounded up, like libjpeg's DCT scaling, so a partial
 * block at the right or bottom edge still gets a pixel (the average of what it has) and every decoder
 * gives the same size.
 */
export function scaledSize(width: number, height: number, scale: DecodeScale): { width: number; height: number } {
  return { width: Math.ceil(width / scale), height: Math.ceil(height / scale) };
}

/**
 * Box-averages each scale x scale block of an RGBA image (every pixel, rounded to nearest), for decoders
 * without DCT scaling. One pass over the source rows with per-column running sums, so it costs about one
 * read of the full frame.
 */
export function boxAverageRgba(img: DecodedImage, scale: DecodeScale): DecodedImage {
  if (scale === 1) return img;
  const { width: W, height: H, data: src } = img;
  const { width: w, height: h } = scaledSize(W, H, scale);
  const out = new Uint8Array(w * h * 4);
  const sums = new Uint32Array(w * 4);
  const shift = Math.log2(scale); // scales are powers of two: a shift finds the block column
  for (let y = 0; y < h; y++) {
    sums.fill(0);
    const rowEnd = Math.min(H, (y + 1) * scale);
    for (let sy = y * scale; sy < rowEnd; sy++) {
      let p = sy * W * 4;
      for (let sx = 0; sx < W; sx++, p += 4) {
        const q = (sx >> shift) * 4;
        sums[q] += src[p]!;
        sums[q + 1] += src[p + 1]!;
        sums[q + 2] += src[p + 2]!;
        sums[q + 3] += src[p + 3]!;
      }
    }
    const rows = rowEnd - y * scale;
    let o = y * w * 4;
    for (let x = 0; x < w; x++, o += 4) {
      const inv = 1 / (rows * (Math.min(W, (x + 1) * scale) - x * scale));
      const q = x * 4;
      out[o] = sums[q]! * inv + 0.5;
      out[o + 1] = sums[q + 1]! * inv + 0.5;
      out[o + 2] = sums[q + 2]! * inv + 0.5;
      out[o + 3] = sums[q + 3]! * inv + 0.5;
    }
  }
  return { width: w, height: h, data: out, scale };
}
