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
 * without DCT scaling. One pass over the source rows with per-block running sums, so it costs about one
 * read of the full frame. Each pixel is read as one 32-bit word and split into two words of two 16-bit
 * lanes, R+B and G+A, so one addition sums two channels; a block of 8x8 pixels sums to at most
 * 64 x 255 = 16320 per channel, within a lane.
 */
export function boxAverageRgba(img: DecodedImage, scale: DecodeScale): DecodedImage {
  if (scale === 1) return img;
  const { width: W, height: H, data: src } = img;
  const { width: w, height: h } = scaledSize(W, H, scale);
  const out = new Uint8Array(w * h * 4);
  // A 32-bit view needs 4-byte alignment; a copy is cheaper than the byte-wise sums otherwise.
  const words = src.byteOffset % 4 === 0 ? new Uint32Array(src.buffer, src.byteOffset, W * H) : new Uint32Array(src.slice(0, W * H * 4).buffer);
  // Little-endian bytes R,G,B,A: the low word's lanes hold R and B, the high word's G and A.
  const lo = new Uint32Array(w);
  const hi = new Uint32Array(w);
  const fullBlocks = Math.floor(W / scale);
  for (let y = 0; y < h; y++) {
    lo.fill(0);
    hi.fill(0);
    const rowEnd = Math.min(H, (y + 1) * scale);
    for (let sy = y * scale; sy < rowEnd; sy++) {
      const row = sy * W;
      let p = row;
      let x = 0;
      if (scale === 4) {
        // The analyzer's default, unrolled over its whole blocks: faster than the general loop below.
        for (; x < fullBlocks; x++, p += 4) {
          const v0 = words[p]!;
          const v1 = words[p + 1]!;
          const v2 = words[p + 2]!;
          const v3 = words[p + 3]!;
          lo[x]! += (v0 & 0x00ff00ff) + (v1 & 0x00ff00ff) + (v2 & 0x00ff00ff) + (v3 & 0x00ff00ff);
          hi[x]! += ((v0 >>> 8) & 0x00ff00ff) + ((v1 >>> 8) & 0x00ff00ff) + ((v2 >>> 8) & 0x00ff00ff) + ((v3 >>> 8) & 0x00ff00ff);
        }
      }
      // Every other block, the partial one at the right edge too.
      for (; x < w; x++) {
        let a = 0;
        let b = 0;
        for (const end = row + Math.min(W, (x + 1) * scale); p < end; p++) {
          const v = words[p]!;
          a += v & 0x00ff00ff;
          b += (v >>> 8) & 0x00ff00ff;
        }
        lo[x]! += a;
        hi[x]! += b;
      }
    }
    const rows = rowEnd - y * scale;
    let o = y * w * 4;
    for (let x = 0; x < w; x++, o += 4) {
      const inv = 1 / (rows * (Math.min(W, (x + 1) * scale) - x * scale));
      const a = lo[x]!;
      const b = hi[x]!;
      out[o] = (a & 0xffff) * inv + 0.5;
      out[o + 1] = (b & 0xffff) * inv + 0.5;
      out[o + 2] = (a >>> 16) * inv + 0.5;
      out[o + 3] = (b >>> 16) * inv + 0.5;
    }
  }
  return { width: w, height: h, data: out, scale };
}
