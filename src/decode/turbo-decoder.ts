// Optional libjpeg-turbo decoder through @julusian/jpeg-turbo (an optional dependency): a thin N-API binding
// of TurboJPEG's tjDecompress2, prebuilt for the common platforms. It decodes at libjpeg-turbo's own speed
// (about 3 ms for a 1280x720 camera frame here, against 10 ms through sharp/libvips and 50 ms in jpeg-js);
// the binding has no DCT scaling, so a frame wanted at 1/scale is decoded in full and box-averaged.

import { DecodeError, TrafficCounterError } from '../errors.js';
import { importOptional } from './optional-module.js';
import { checkLimits, type DecodedImage, type JpegDecoder } from './decode-jpeg.js';
import { boxAverageRgba } from './decode-scale.js';

// The slice of the binding's API used here, typed locally so that the project builds without it installed.
interface TurboModule {
  readonly FORMAT_RGBA: number;
  decompressSync(image: Uint8Array, out: Uint8Array, opts: { format: number }): { data: Uint8Array; width: number; height: number; size: number };
}

const PACKAGE = '@julusian/jpeg-turbo';

/** A JpegDecoder backed by libjpeg-turbo; throws ConfigError if the optional package is not installed. */
export async function createTurboDecoder(): Promise<JpegDecoder> {
  const turbo = await importOptional<TurboModule>(PACKAGE, 'jpeg-turbo');
  // Full-size pixels of a frame wanted at 1/scale: decoded into this buffer, reused frame after frame.
  let scratch = new Uint8Array(0);
  return (bytes, limits, { what = 'JPEG', scale = 1, into } = {}) => {
    const { width, height } = checkLimits(bytes, limits, what);
    const size = width * height * 4;
    if (scale === 1) {
      if (into && into.length >= size) return decode(turbo, bytes, into, width, height, what);
      // Handed over, so a buffer of its own; not zero-filled, since the decode writes every byte of it (the
      // size is checked) or the frame is refused.
      return decode(turbo, bytes, Buffer.allocUnsafeSlow(size), width, height, what);
    }
    if (scratch.length < size) scratch = new Uint8Array(size);
    return boxAverageRgba(decode(turbo, bytes, scratch, width, height, what), scale);
  };
}

function decode(turbo: TurboModule, bytes: Uint8Array, out: Uint8Array, width: number, height: number, what: string): DecodedImage {
  let got: { width: number; height: number; size: number };
  try {
    // Synchronous: it runs on a decoder process or thread of its own, never on the analyzer's thread.
    got = turbo.decompressSync(bytes, out, { format: turbo.FORMAT_RGBA });
  } catch (err) {
    if (err instanceof TrafficCounterError) throw err;
    // TurboJPEG fails on warnings too (a truncated or damaged frame), like jpeg-js with tolerantDecoding off, so
    // a damaged frame is rejected, not half-decoded. The binding's own message is often just "No error".
    const msg = err instanceof Error && err.message !== 'No error' ? `: ${err.message}` : '';
    throw new DecodeError(
      'TC_ERR_DECODE_CORRUPT',
      `${what}: corrupt JPEG, or a kind libjpeg-turbo does not turn into RGB such as CMYK (libjpeg-turbo refused it${msg}); if the camera's frames look fine elsewhere, try --decoder jpeg-js`,
      { cause: err },
    );
  }
  if (got.width !== width || got.height !== height || got.size !== width * height * 4) {
    throw new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: JPEG header says ${width}x${height} but libjpeg-turbo decoded ${got.width}x${got.height}`);
  }
  return { width, height, data: out.subarray(0, got.size), scale: 1 };
}
