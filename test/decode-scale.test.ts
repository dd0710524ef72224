// Decoding at 1/scale: each decoder hands over ceil(W/s) x ceil(H/s) pixels that are the box average of the
// full decode (what the analyzer would have computed itself), and the limits still apply to the JPEG's own size.
import { describe, expect, test } from 'vitest';
import { createDecoder, type DecoderName } from '../dist/src/decode/decode-jpeg.js';
import { boxAverageRgba } from '../dist/src/decode/decode-scale.js';
import { LIMITS, decodeReference, hasJpegTurbo, hasSharp, makeJpeg } from './helpers/jpeg-fixtures.js';


/** Box average of every s x s block (partial blocks at the right and bottom edges too), as floats. */
function referenceBox(rgba: Uint8Array, W: number, H: number, s: number): { w: number; h: number; rgb: Float64Array } {
  const w = Math.ceil(W / s);
  const h = Math.ceil(H / s);
  const rgb = new Float64Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let n = 0;
      for (let yy = y * s; yy < Math.min(H, (y + 1) * s); yy++) {
        for (let xx = x * s; xx < Math.min(W, (x + 1) * s); xx++) {
          const p = (yy * W + xx) * 4;
          for (let c = 0; c < 3; c++) rgb[(y * w + x) * 3 + c]! += rgba[p + c]!;
          n++;
        }
      }
      for (let c = 0; c < 3; c++) rgb[(y * w + x) * 3 + c]! /= n;
    }
  }
  return { w, h, rgb };
}

function meanAbsDiff(rgba: Uint8Array, rgb: Float64Array): { mean: number; alphaOk: boolean } {
  let sum = 0;
  let alphaOk = true;
  for (let i = 0, q = 0; q < rgb.length; i += 4, q += 3) {
    for (let c = 0; c < 3; c++) sum += Math.abs(rgba[i + c]! - rgb[q + c]!);
    if (rgba[i + 3] !== 255) alphaOk = false;
  }
  return { mean: sum / rgb.length, alphaOk };
}

// Tolerances, in grey levels (0-255) of mean absolute difference from the box average of jpeg-js's full decode:
// - jpeg-js box-averages its own full decode, so only rounding to whole levels remains (≤ 0.5), at any size.
// - sharp decodes at half the reduction by DCT scaling and reduces the last 2x with a cubic kernel (see
//   sharp-decoder.ts), and upsamples chroma unlike jpeg-js (0.55 levels apart already at full size). Measured on this fixture: 0.8 at 1/2, 0.7-0.9 at 1/4,
//   1.7 at 1/8 (its 1/4 DCT scaling smooths the fixture's sharp edges); ~0.8 at 1/4 on camera clips. 2.5
//   leaves room for other libjpeg-turbo versions. When the size is not a multiple of the scale, sharp's resize
//   maps a uniformly stretched grid instead of leaving a partial block at the edge (at most 1 full-resolution
//   px off at the far edge, a quarter of a working pixel); the fixture's 256-level sawtooth edges make that
//   3.4 levels, so 5 there. Both stay far below the analyzer's foreground threshold (minDiff, 14 levels).
// - jpeg-turbo box-averages its own full decode (its binding has no DCT scaling), which differs from jpeg-js's
//   in chroma upsampling and rounding. Measured on this fixture: 0.77 at 1/4, and at the odd size too (its partial
//   blocks are averaged like jpeg-js's). 1.5 leaves room for other libjpeg-turbo versions.
const TURBO_TOLERANCE = 1.5;
const CASES: { decoder: DecoderName; tolerance: number; oddSizeTolerance: number; skip: boolean }[] = [
  { decoder: 'jpeg-js', tolerance: 0.5, oddSizeTolerance: 0.5, skip: false },
  { decoder: 'sharp', tolerance: 2.5, oddSizeTolerance: 5, skip: !hasSharp },
  { decoder: 'jpeg-turbo', tolerance: TURBO_TOLERANCE, oddSizeTolerance: TURBO_TOLERANCE, skip: !hasJpegTurbo },
];

describe.each(CASES)('decoder $decoder at decode scale', ({ decoder, tolerance, oddSizeTolerance, skip }) => {
  test.skipIf(skip)('4: a 1280x720 JPEG becomes 320x180 pixels close to the box average of the full decode', async () => {
    const decode = await createDecoder(decoder);
    const f = makeJpeg(1280, 720, 3);
    const img = await decode(f.jpeg, LIMITS, { scale: 4 });
    expect([img.width, img.height, img.scale, img.data.length]).toEqual([320, 180, 4, 320 * 180 * 4]);
    const ref = referenceBox(decodeReference(f.jpeg), 1280, 720, 4);
    const { mean, alphaOk } = meanAbsDiff(img.data, ref.rgb);
    expect(mean).toBeLessThanOrEqual(tolerance);
    expect(alphaOk).toBe(true);
  });

  test.skipIf(skip)('2 and 8 give 640x360 and 160x90', async () => {
    const decode = await createDecoder(decoder);
    const f = makeJpeg(1280, 720, 5);
    for (const [scale, w, h] of [[2, 640, 360], [8, 160, 90]] as const) {
      const img = await decode(f.jpeg, LIMITS, { scale });
      expect([img.width, img.height, img.scale]).toEqual([w, h, scale]);
      expect(meanAbsDiff(img.data, referenceBox(decodeReference(f.jpeg), 1280, 720, scale).rgb).mean).toBeLessThanOrEqual(tolerance);
    }
  });

  test.skipIf(skip)('a size not divisible by the scale rounds up, the edge pixels averaging the partial blocks', async () => {
    const decode = await createDecoder(decoder);
    const f = makeJpeg(322, 181, 2); // 80.5 x 45.25 blocks of 4
    const img = await decode(f.jpeg, LIMITS, { scale: 4 });
    expect([img.width, img.height]).toEqual([81, 46]);
    const ref = referenceBox(decodeReference(f.jpeg), 322, 181, 4);
    expect(meanAbsDiff(img.data, ref.rgb).mean).toBeLessThanOrEqual(oddSizeTolerance);
  });

  test.skipIf(skip)('the limits apply to the size in the JPEG header, not the decoded size', async () => {
    const decode = await createDecoder(decoder);
    const f = makeJpeg(1280, 720, 1); // 0.92 MP, decoded at 1/8: 0.014 MP
    await expect(Promise.resolve().then(() => decode(f.jpeg, { maxMegapixels: 0.5, maxDecodeMemoryMB: 64 }, { scale: 8 }))).rejects.toMatchObject({
      code: 'TC_ERR_DECODE_TOO_LARGE',
    });
  });
});

test('jpeg-js over its own memory limit names maxDecodeMemoryMB and the fix', async () => {
  const decode = await createDecoder('jpeg-js');
  const f = makeJpeg(1280, 720, 1); // 3.5 MB of RGBA passes the header check at 8 MB; jpeg-js's own buffers do not
  const err = await Promise.resolve().then(() => decode(f.jpeg, { maxMegapixels: 4, maxDecodeMemoryMB: 8 }, { what: 'camera c frame 1' })).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'TC_ERR_DECODE_TOO_LARGE' });
  expect((err as Error).message).toMatch(/^camera c frame 1: decoding needs more than the camera's maxDecodeMemoryMB=8 allows \(.*\); raise it in the camera config$/);
});

test('boxAverageRgba gives each block its exact mean, rounded, for partial edge blocks and unaligned buffers too', () => {
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24); // 0-255
  for (const [W, H] of [[64, 36], [37, 23], [5, 3], [1, 1]] as const) {
    const bytes = new Uint8Array(W * H * 4 + 1);
    for (let i = 0; i < bytes.length; i++) bytes[i] = rand();
    for (const offset of [0, 1]) {
      const data = bytes.subarray(offset, offset + W * H * 4);
      for (const scale of [2, 4, 8] as const) {
        const img = boxAverageRgba({ width: W, height: H, data, scale: 1 }, scale);
        const w = Math.ceil(W / scale);
        const h = Math.ceil(H / scale);
        expect([img.width, img.height, img.data.length]).toEqual([w, h, w * h * 4]);
        const want = new Uint8Array(w * h * 4);
        for (let y = 0; y < h; y++) {
          for (let x = 0; x < w; x++) {
            for (let c = 0; c < 4; c++) {
              let sum = 0;
              let n = 0;
              for (let yy = y * scale; yy < Math.min(H, (y + 1) * scale); yy++) {
                for (let xx = x * scale; xx < Math.min(W, (x + 1) * scale); xx++, n++) sum += data[(yy * W + xx) * 4 + c]!;
              }
              want[(y * w + x) * 4 + c] = Math.floor(sum / n + 0.5);
            }
          }
        }
        expect(Array.from(img.data), `${W}x${H} at 1/${scale}, byte offset ${offset}`).toEqual(Array.from(want));
      }
    }
  }
});

test('boxAverageRgba at scale 1 returns the image itself, and averages a known block exactly', () => {
  const img = { width: 3, height: 2, scale: 1 as const, data: new Uint8Array([10, 0, 0, 255, 20, 0, 0, 255, 90, 0, 0, 255, 30, 0, 0, 255, 40, 0, 0, 255, 91, 0, 0, 255]) };
  expect(boxAverageRgba(img, 1)).toBe(img);
  const half = boxAverageRgba(img, 2);
  expect([half.width, half.height, half.scale]).toEqual([2, 1, 2]);
  // (10+20+30+40)/4 = 25; the right column is a partial block: (90+91)/2 = 90.5 → 91.
  expect(Array.from(half.data)).toEqual([25, 0, 0, 255, 91, 0, 0, 255]);
});
