// Cheap structural checks on untrusted JPEG bytes before any pixel is decoded: signature, end marker and the
// frame size the header claims (so a 60000x60000 header is refused without allocating anything).

import { DecodeError } from '../errors.js';
import { hideTextSecrets } from '../secrets.js';
import { webPageFix } from '../source/camera-url.js';

export interface JpegInfo {
  readonly width: number;
  readonly height: number;
}

/** The fixes these checks suggest for a camera's frame; a replayed file's message gives its own instead (replayDirectory). */
export const CAMERA_HINTS = {
  notJpeg: 'check that the camera URL serves image/jpeg snapshots',
  truncated: 'the download was cut short or the camera sent a partial frame',
} as const;

/** Image formats a camera or a folder may hold instead of a JPEG, by their signature. */
const OTHER_IMAGES: readonly (readonly [string, (b: Uint8Array) => boolean])[] = [
  ['a PNG image', (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47],
  ['a GIF image', (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38],
  ['a WebP image', (b) => b.length >= 12 && latin1(b.subarray(0, 4)) === 'RIFF' && latin1(b.subarray(8, 12)) === 'WEBP'],
  // "BM", then the file size and two reserved 16-bit zeros.
  ['a BMP image', (b) => b.length >= 10 && b[0] === 0x42 && b[1] === 0x4d && b[6] === 0 && b[7] === 0 && b[8] === 0 && b[9] === 0],
  // "II" and 42 (or BigTIFF's 43) little-endian, or "MM" and 42 (43) big-endian: "II*" alone is also text.
  ['a TIFF image', (b) => (b[0] === 0x49 && b[1] === 0x49 && (b[2] === 0x2a || b[2] === 0x2b) && b[3] === 0) || (b[0] === 0x4d && b[1] === 0x4d && b[2] === 0 && (b[3] === 0x2a || b[3] === 0x2b))],
];

function latin1(b: Uint8Array): string {
  return String.fromCharCode(...b);
}

/**
 * What bytes that are not a JPEG look like, said after "not a JPEG": another image format, or text (an HTML login
 * page, a JSON error, served as image/jpeg by some cameras) shown by its first characters; otherwise the first bytes
 * in hex.
 */
function describeNotJpeg(bytes: Uint8Array): { readonly text: string; readonly page: boolean } {
  const hex = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  const other = OTHER_IMAGES.find(([, is]) => is(bytes));
  if (other) return { text: `but ${other[0]} (starts with ${hex})`, page: false };
  // Text: UTF-8 (a byte order mark skipped) shown as one line of at most 60 characters; see textHead.
  const head = textHead(bytes.subarray(0, 256));
  if (head !== undefined) {
    const text = hideTextSecrets(head.replace(/\s+/g, ' ').trim());
    // Blanks and line ends only (a camera answering "\r\n"): there is nothing to quote.
    if (text === '') return { text: `but blank text, spaces and line ends only (starts with ${hex})`, page: false };
    const kind = /^<(!doctype html|html)\b/i.test(text) ? 'an HTML page' : text.startsWith('<') ? 'an HTML or XML document' : /^[{[]/.test(text) ? 'a JSON document' : 'text';
    const chars = Array.from(text); // by code point: an emoji or a CJK character beyond the BMP is not cut in two
    return { text: `but ${kind} (starts with "${chars.length > 60 ? `${chars.slice(0, 60).join('')}…` : text}")`, page: kind === 'an HTML page' };
  }
  return { text: `(starts with ${hex || 'nothing'}, expected ff d8)`, page: false };
}

/**
 * `head`, the first bytes of an answer, as text that is safe to echo in a message, or undefined: it must be valid
 * UTF-8 (a character cut at its end is dropped; a login page titled "Caméra" is text) without control characters
 * other than tab and line ends (terminal escapes, C1 controls included), format characters (bidi overrides,
 * zero-width ones), private-use, unassigned or lone surrogate code points. Anything else is binary, shown in hex.
 */
function textHead(head: Uint8Array): string | undefined {
  let text: string;
  try {
    // stream: an incomplete sequence at the end (the 256 bytes cut a character) is held back, not refused.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return undefined;
  }
  if (text === '' || /[^\P{C}\t\n\r]/u.test(text)) return undefined;
  return text;
}

/**
 * The most scans (SOS segments) a JPEG may have. Every decoder here decodes each scan over all the blocks of its
 * components, so a small file of many tiny scans costs a decoder seconds to minutes (about 1.2 ms per scan of a
 * 2000x2000 grey image for jpeg-js: 170 KB of 10,000 scans held a decoder 12 s, till it was killed as hung, again
 * and again, and no other camera's frame got through). Encoders write 1 scan (baseline), up to 4, or about 10
 * (progressive); libjpeg-turbo suggests refusing more than 500 (TJPARAM_SCANLIMIT).
 */
export const MAX_SCANS = 100;

/**
 * The scans in a JPEG from its first SOS marker at `i`: the entropy-coded data is skipped to the next marker (0xff
 * followed by other than a stuffed 0x00, a restart marker or a fill byte), and marker segments by their length.
 */
function countScans(bytes: Uint8Array, i: number): number {
  let scans = 0;
  while (i + 4 <= bytes.length) {
    const marker = bytes[i + 1]!;
    if (marker === 0xd9) break;
    const len = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    i += 2 + len;
    if (marker !== 0xda) continue;
    if (++scans > MAX_SCANS) break;
    // Entropy-coded data: find the next marker.
    for (;;) {
      i = bytes.indexOf(0xff, i);
      if (i < 0 || i + 1 >= bytes.length) return scans;
      const next = bytes[i + 1]!;
      if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) i++;
      else break;
    }
  }
  return scans;
}

/**
 * A decoder's message for a frame of the camera at `url` (decoders do not know it): an HTML page's fix, given with a
 * generic URL there, names the camera's own (as notAnImageError does for a page labelled text/html).
 */
export function namingCameraUrl(message: string, url: string | undefined): string {
  const generic = `; ${webPageFix(CAMERA_HINTS.notJpeg, '', true)}`;
  return url === undefined || !message.endsWith(generic) ? message : `${message.slice(0, -generic.length)}; ${webPageFix(CAMERA_HINTS.notJpeg, url, true)}`;
}

/**
 * Reads the frame header (SOFn); throws DecodeError for non-JPEG, truncated or corrupt input. An HTML page (a camera's
 * login page labelled image/jpeg) is told where the user and password go, as one labelled text/html is
 * (notAnImageError): in `url` where the caller knows it, else in a generic one.
 */
export function inspectJpeg(bytes: Uint8Array, what = 'JPEG', url = ''): JpegInfo {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    const not = describeNotJpeg(bytes);
    throw new DecodeError('TC_ERR_DECODE_NOT_JPEG', `${what}: not a JPEG ${not.text}; ${not.page ? webPageFix(CAMERA_HINTS.notJpeg, url, true) : CAMERA_HINTS.notJpeg}`);
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
    if (marker === 0xda && size) {
      if (countScans(bytes, i) > MAX_SCANS) {
        throw new DecodeError(
          'TC_ERR_DECODE_CORRUPT',
          `${what}: JPEG with more than ${MAX_SCANS} scans (a camera's JPEG has 1, a progressive one about 10; each scan is decoded over the whole ${size.width}x${size.height} image, so this many would take a decoder seconds to minutes): a damaged or hostile image, refused`,
        );
      }
      return size;
    }
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
