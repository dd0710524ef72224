// Cheap structural checks on untrusted JPEG bytes before any pixel is decoded: signature, end marker and the
// frame size the header claims (so a 60000x60000 header is refused without allocating anything).

import { DecodeError } from '../errors.js';

export interface JpegInfo {
  readonly width: number;
  readonly height: number;
}

/** The fixes these checks suggest for a camera's frame; a replayed file's message gives its own instead (replayDirectory). */
export const CAMERA_HINTS = {
  notJpeg: 'check that the camera URL serves image/jpeg snapshots',
  truncated: 'the download was cut short or the camera sent a partial frame',
} as const;

/** Reads the frame header (SOFn); throws DecodeError for non-JPEG, truncated or corrupt input. */
export function inspectJpeg(bytes: Uint8Array, what = 'JPEG'): JpegInfo {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new DecodeError(
      'TC_ERR_DECODE_NOT_JPEG',
      `${what}: not a JPEG (starts with ${head || 'nothing'}, expected ff d8); ${CAMERA_HINTS.notJpeg}`,
    );
  }
  // A complete JPEG ends with EOI (ff d9); some cameras pad a few bytes after it: NULs, or a line end or blanks (a
  // camera CGI that ends its answer with CRLF), which jpeg-js and libjpeg ignore (a frame refused for it stopped the
  // count of a working camera).
  let end = bytes.length;
  while (end > 2 && (bytes[end - 1] === 0x00 || bytes[end - 1] === 0x0d || bytes[end - 1] === 0x0a || bytes[end - 1] === 0x20 || bytes[end - 1] === 0x09)) end--;
  if (!(bytes[end - 2] === 0xff && bytes[end - 1] === 0xd9)) {
    throw new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: truncated JPEG (${bytes.length} bytes, no end-of-image marker); ${CAMERA_HINTS.truncated}`);
  }
  let i = 2;
  let size: JpegInfo | undefined;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) {
      throw new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: corrupt JPEG (bad marker at byte ${i})`);
    }
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    const len = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    if (len < 2 || i + 2 + len > bytes.length) {
      throw new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: corrupt JPEG (segment at byte ${i} claims ${len} bytes past the end)`);
    }
    // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (len < 8) throw new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: corrupt JPEG (short frame header)`);
      const height = (bytes[i + 5]! << 8) | bytes[i + 6]!;
      const width = (bytes[i + 7]! << 8) | bytes[i + 8]!;
      if (width === 0 || height === 0) {
        throw new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: JPEG header claims an empty ${width}x${height} image`);
      }
      size ??= { width, height };
    }
    // The image data: a frame header must have come before it.
    if (marker === 0xda && size) return size;
    if (marker === 0xda || marker === 0xd9) break;
    i += 2 + len;
  }
  if (size) {
    // Headers and no image data at all (a camera whose encoder failed): jpeg-js decodes that into a flat grey frame,
    // which the analyzer would take for a picture of the road (libjpeg-turbo refuses it).
    throw new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: corrupt JPEG (a ${size.width}x${size.height} frame header but no image data); ${CAMERA_HINTS.truncated}`);
  }
  throw new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: corrupt JPEG (no frame header before the image data)`);
}
