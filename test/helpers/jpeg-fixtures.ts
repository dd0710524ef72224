// Small real JPEGs of distinct content for channel tests, with a checksum of their reference decode.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import jpeg from 'jpeg-js';
import { decodeWithJpegJs } from '../../dist/src/decode/decode-jpeg.js';

export const LIMITS = { maxMegapixels: 4, maxDecodeMemoryMB: 64 };

/** Whether an optional package is installed here (tests of the decoder it backs skip without it). */
export function hasPackage(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** The optional decoders and the package each needs. */
export const OPTIONAL_DECODERS = [
  { decoder: 'sharp', pkg: 'sharp' },
  { decoder: 'jpeg-turbo', pkg: '@julusian/jpeg-turbo' },
] as const;

export const hasSharp = hasPackage('sharp');
export const hasJpegTurbo = hasPackage('@julusian/jpeg-turbo');

export interface JpegFixture {
  readonly jpeg: Uint8Array;
  readonly width: number;
  readonly height: number;
  /** sha1 of the RGBA pixels jpeg-js decodes in the test process (the reference decode). */
  readonly sha1: string;
}

/** A JPEG whose content depends on `k` (a shifted gradient plus a moving block), so frames differ. */
export function makeJpeg(width: number, height: number, k: number): JpegFixture {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const inBlock = Math.abs(x - ((k * 17) % width)) < width / 8 && Math.abs(y - height / 2) < height / 6;
      rgba[i] = (x + k * 13) & 255;
      rgba[i + 1] = (y * 2 + k * 29) & 255;
      rgba[i + 2] = inBlock ? 240 : 40;
      rgba[i + 3] = 255;
    }
  }
  const bytes = new Uint8Array(jpeg.encode({ data: rgba, width, height }, 85).data);
  return { jpeg: bytes, width, height, sha1: sha1(decodeReference(bytes)) };
}

export function decodeReference(bytes: Uint8Array): Uint8Array {
  return (decodeWithJpegJs(bytes, LIMITS) as { data: Uint8Array }).data;
}

export function sha1(data: Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

/** The same JPEG cut short (no end-of-image marker): a decoder must reject it. */
export function truncated(f: JpegFixture): Uint8Array {
  return f.jpeg.subarray(0, Math.floor(f.jpeg.length / 2));
}
