// Optional libjpeg-turbo decoder through sharp (an optional dependency): several times faster than jpeg-js,
// at the price of a native add-on (~30 MB, prebuilt for common platforms only).

import { DecodeError, TrafficCounterError } from '../errors.js';
import { importOptional } from './optional-module.js';
import { checkLimits, type JpegDecoder } from './decode-jpeg.js';
import { scaledSize } from './decode-scale.js';

// The slice of sharp's API used here, typed locally so that the project builds without sharp installed.
interface SharpInstance {
  resize(opts: { width: number; height: number; fit: 'fill'; fastShrinkOnLoad: boolean; kernel: string }): SharpInstance;
  toColourspace(space: string): SharpInstance;
  ensureAlpha(alpha?: number): SharpInstance;
  raw(): SharpInstance;
  toBuffer(opts: { resolveWithObject: true }): Promise<{ data: Buffer; info: { width: number; height: number; channels: number } }>;
}
interface SharpModule {
  (input: Uint8Array, opts: { limitInputPixels: number; sequentialRead: boolean; failOn: string }): SharpInstance;
  concurrency(n: number): number;
  cache(on: boolean): unknown;
}

/** One decode per decoder process/thread: parallelism comes from the decoder count, and libvips threads would
 * only compete with the other decoders for the same cores. */
function setup(sharp: SharpModule): void {
  sharp.concurrency(1);
  sharp.cache(false);
}

/** A JpegDecoder backed by sharp/libvips/libjpeg-turbo; throws ConfigError if sharp is not installed. */
export async function createSharpDecoder(): Promise<JpegDecoder> {
  const sharp = await importOptional<SharpModule>('sharp', 'sharp', setup);
  return async (bytes, limits, { what = 'JPEG', scale = 1 } = {}) => {
    const full = checkLimits(bytes, limits, what);
    const want = scaledSize(full.width, full.height, scale);
    try {
      let img = sharp(bytes, {
        limitInputPixels: Math.floor(limits.maxMegapixels * 1e6),
        sequentialRead: true,
        failOn: 'warning', // like jpeg-js tolerantDecoding:false: a damaged frame is rejected, not half-decoded
      });
      if (scale > 1) {
        // Shrink-on-load: libjpeg decodes at 1/2, 1/4 or 1/8 by DCT scaling. For an exact integer shrink sharp
        // takes one step less (its guard against libjpeg's rounding), so 1/4 is a 1/2 decode plus a 2x reduce;
        // the cubic kernel there comes closest to the box average jpeg-js and the analyzer compute (mean
        // difference 0.8 grey levels at 1/4 on the simulator and real clips, against 1.2-1.4 for linear and 3
        // for nearest). A size that is not a multiple of the scale is resized on a slightly stretched grid
        // (under 1 full-resolution pixel at the far edge) rather than with a partial edge block.
        img = img.resize({ width: want.width, height: want.height, fit: 'fill', fastShrinkOnLoad: true, kernel: 'cubic' });
      }
      const { data, info } = await img
        .toColourspace('srgb') // greyscale and CMYK JPEGs become RGB too
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      if (info.channels !== 4 || info.width !== want.width || info.height !== want.height) {
        throw new Error(`expected a ${want.width}x${want.height} RGBA image, got ${info.width}x${info.height} with ${info.channels} channels`);
      }
      return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), scale };
    } catch (err) {
      if (err instanceof TrafficCounterError) throw err;
      const msg = err instanceof Error ? err.message : String(err);
      const tooLarge = /pixel limit|memory/i.test(msg);
      throw new DecodeError(tooLarge ? 'TC_ERR_DECODE_TOO_LARGE' : 'TC_ERR_DECODE_CORRUPT', `${what}: ${tooLarge ? 'image too large' : 'corrupt JPEG'} (${msg.trim()})`, { cause: err });
    }
  };
}
