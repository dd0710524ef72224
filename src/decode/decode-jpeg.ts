// JPEG → RGBA decoders behind one signature. jpeg-js is the portable default; others load lazily.

import jpeg from 'jpeg-js';
import { DecodeError, TrafficCounterError } from '../errors.js';
import type { DecodeLimits } from '../channel/messages.js';
import { inspectJpeg } from './jpeg-header.js';

export interface DecodedImage {
  readonly width: number;
  readonly height: number;
  /** width * height * 4 bytes, RGBA. */
  readonly data: Uint8Array;
}

export type DecoderName = 'jpeg-js' | 'sharp';

/** Decodes untrusted JPEG bytes; throws DecodeError with a reason the operator can act on. */
export type JpegDecoder = (bytes: Uint8Array, limits: DecodeLimits, what?: string) => DecodedImage | Promise<DecodedImage>;

/** Refuses images larger than the limits before any pixel memory is allocated. */
export function checkLimits(bytes: Uint8Array, limits: DecodeLimits, what: string): void {
  const { width, height } = inspectJpeg(bytes, what);
  const mp = (width * height) / 1e6;
  if (mp > limits.maxMegapixels) {
    throw new DecodeError(
      'TC_ERR_DECODE_TOO_LARGE',
      `${what}: JPEG header claims ${width}x${height} (${mp.toFixed(1)} MP), over the limit of ${limits.maxMegapixels} MP; raise the camera's maxMegapixels if this is a real camera`,
    );
  }
  const mb = (width * height * 4) / (1024 * 1024);
  if (mb > limits.maxDecodeMemoryMB) {
    throw new DecodeError(
      'TC_ERR_DECODE_TOO_LARGE',
      `${what}: decoding ${width}x${height} needs ${mb.toFixed(0)} MB, over maxDecodeMemoryMB=${limits.maxDecodeMemoryMB}; raise it in the camera config`,
    );
  }
}

export const decodeWithJpegJs: JpegDecoder = (bytes, limits, what = 'JPEG') => {
  checkLimits(bytes, limits, what);
  try {
    const img = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      tolerantDecoding: false, // a damaged frame is rejected, not half-decoded into phantom foreground
      maxResolutionInMP: limits.maxMegapixels,
      maxMemoryUsageInMB: limits.maxDecodeMemoryMB,
    });
    return { width: img.width, height: img.height, data: img.data };
  } catch (err) {
    if (err instanceof TrafficCounterError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    const tooLarge = /maxResolutionInMP|memory|allocate/i.test(msg);
    throw new DecodeError(
      tooLarge ? 'TC_ERR_DECODE_TOO_LARGE' : 'TC_ERR_DECODE_CORRUPT',
      `${what}: ${tooLarge ? 'image too large' : 'corrupt JPEG'} (${msg})`,
      { cause: err },
    );
  }
};

/** Returns the named decoder; optional ones are loaded on first use. */
export async function createDecoder(name: DecoderName): Promise<JpegDecoder> {
  if (name === 'jpeg-js') return decodeWithJpegJs;
  const mod = await import('./sharp-decoder.js');
  return mod.createSharpDecoder();
}
