// JPEG → RGBA decoders behind one signature. jpeg-js is the portable default; others load lazily.

import jpeg from 'jpeg-js';
import { DecodeError, TrafficCounterError } from '../errors.js';
import type { DecodeLimits } from '../channel/messages.js';
import { inspectJpeg, type JpegInfo } from './jpeg-header.js';
import { boxAverageRgba, type DecodeScale } from './decode-scale.js';
import { decodeScaledJpeg } from './scaled-jpeg-decoder.js';
import type { DecoderName } from './decoder-name.js';

export interface DecodedImage {
  readonly width: number;
  readonly height: number;
  /** width * height * 4 bytes, RGBA. */
  readonly data: Uint8Array;
  /** Full-resolution pixels per pixel of this image (1 = full size); see decode-scale.ts. */
  readonly scale: DecodeScale;
}

export type { DecoderName } from './decoder-name.js';

export interface DecodeOptions {
  /** Names the frame in error messages. */
  readonly what?: string;
  /** Decode at 1/scale of the JPEG's size (default 1); the result is scaledSize() of it. */
  readonly scale?: DecodeScale;
  /**
   * Where the caller wants the pixels (a shared-memory slot): a decoder that can write into it does, and then
   * returns a view of it from offset 0; others ignore it and return their own buffer.
   */
  readonly into?: Uint8Array;
}

/** Decodes untrusted JPEG bytes; throws DecodeError with a reason the operator can act on. */
export type JpegDecoder = (bytes: Uint8Array, limits: DecodeLimits, opts?: DecodeOptions) => DecodedImage | Promise<DecodedImage>;

/**
 * Why a width x height image is over the megapixel limit (its size, the limit and the fix), or undefined when it is
 * not: the one test for a JPEG's header here and for a frame a remote decoder returns (ZeromqChannel).
 */
export function overMegapixels(width: number, height: number, limits: DecodeLimits): string | undefined {
  const mp = (width * height) / 1e6;
  if (mp <= limits.maxMegapixels) return undefined;
  return `${width}x${height} (${mp.toFixed(1)} MP), over the limit of ${limits.maxMegapixels} MP; raise the camera's maxMegapixels if this is a real camera`;
}

/**
 * Refuses images larger than the limits before any pixel memory is allocated. The limits apply to the size
 * the JPEG header claims, whatever the decode scale: jpeg-js decodes at full size anyway, and a camera that
 * suddenly sends 60000x60000 is refused the same way at every scale. Returns the header's size.
 */
export function checkLimits(bytes: Uint8Array, limits: DecodeLimits, what: string): JpegInfo {
  const { width, height } = inspectJpeg(bytes, what);
  const over = overMegapixels(width, height, limits);
  if (over !== undefined) throw new DecodeError('TC_ERR_DECODE_TOO_LARGE', `${what}: JPEG header claims ${over}`);
  const mb = (width * height * 4) / (1024 * 1024);
  if (mb > limits.maxDecodeMemoryMB) {
    throw new DecodeError(
      'TC_ERR_DECODE_TOO_LARGE',
      `${what}: decoding ${width}x${height} needs ${mb.toFixed(0)} MB, over maxDecodeMemoryMB=${limits.maxDecodeMemoryMB}; raise it in the camera config`,
    );
  }
  return { width, height };
}

/**
 * The portable decoder. At decodeScale > 1, baseline JPEGs (what cameras send) go to the scaled decoder,
 * which computes each output pixel's box average in the DCT domain; anything it does not handle, or rejects,
 * goes to jpeg-js, which decodes the full frame, and is box-averaged down. So a frame is never refused
 * that jpeg-js alone would decode.
 */
export const decodeWithJpegJs: JpegDecoder = (bytes, limits, { what = 'JPEG', scale = 1 } = {}) => {
  checkLimits(bytes, limits, what);
  if (scale > 1) {
    try {
      const scaled = decodeScaledJpeg(bytes, scale as Exclude<DecodeScale, 1>, what);
      if (scaled) return scaled;
    } catch {
      // jpeg-js gets the last word on a frame the scaled decoder calls corrupt.
    }
  }
  let img: DecodedImage;
  try {
    const decoded = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      tolerantDecoding: false, // a damaged frame is rejected, not half-decoded into phantom foreground
      maxResolutionInMP: limits.maxMegapixels,
      maxMemoryUsageInMB: limits.maxDecodeMemoryMB,
    });
    img = { width: decoded.width, height: decoded.height, data: decoded.data, scale: 1 };
  } catch (err) {
    if (err instanceof TrafficCounterError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    const tooLarge = /maxResolutionInMP|memory|allocate/i.test(msg);
    // jpeg-js counts its working buffers too, so a frame under the header check above can still exceed them:
    // name the key to raise, as that check does.
    const key = /maxResolutionInMP/i.test(msg) ? `maxMegapixels=${limits.maxMegapixels}` : `maxDecodeMemoryMB=${limits.maxDecodeMemoryMB}`;
    throw new DecodeError(
      tooLarge ? 'TC_ERR_DECODE_TOO_LARGE' : 'TC_ERR_DECODE_CORRUPT',
      tooLarge ? `${what}: decoding needs more than the camera's ${key} allows (${msg}); raise it in the camera config` : `${what}: corrupt JPEG (${msg})`,
      { cause: err },
    );
  }
  return boxAverageRgba(img, scale);
};

/** Returns the named decoder; optional ones are loaded on first use. */
export async function createDecoder(name: DecoderName): Promise<JpegDecoder> {
  if (name === 'jpeg-js') return decodeWithJpegJs;
  if (name === 'sharp') return (await import('./sharp-decoder.js')).createSharpDecoder();
  return (await import('./turbo-decoder.js')).createTurboDecoder();
}
