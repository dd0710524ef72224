// The portable decoder's scaled path: baseline JPEGs decoded straight to 1/2, 1/4, 1/8 give the box average
// of jpeg-js's full decode, whatever the chroma sampling, restart markers or size; what it does not handle
// falls back to jpeg-js; damaged or hostile data is refused with a decode error, never another exception.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import jpeg from 'jpeg-js';
import { decodeScaledJpeg } from '../dist/src/decode/scaled-jpeg-decoder.js';
import { decodeWithJpegJs, type DecodedImage } from '../dist/src/decode/decode-jpeg.js';
import { boxAverageRgba } from '../dist/src/decode/decode-scale.js';
import { DecodeError } from '../dist/src/errors.js';
import { JpegEncoder } from '../dist/src/source/camera-sim/jpeg-encoder.js';
import { LIMITS } from './helpers/jpeg-fixtures.js';

const W = 203; // not a multiple of 16 or 8: partial blocks at the right and bottom edges
const H = 117;

/** Diagonal sawtooth, a sine and a ramp: edges, smooth areas and colour in every block. */
function pattern(): Uint8Array {
  const rgba = new Uint8Array(W * H * 4);
  for (let i = 0; i < W * H; i++) {
    const x = i % W;
    const y = (i - x) / W;
    rgba.set([(x * 3 + y) & 255, Math.round(Math.sin(x / 9) * 100 + 120), (y * 2) & 255, 255], i * 4);
  }
  return rgba;
}

const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`./fixtures/jpeg/${name}`, import.meta.url)));

/** Mean absolute difference per colour channel from the box average of jpeg-js's full decode, grey levels. */
function diffFromReference(bytes: Uint8Array, img: DecodedImage): number {
  const full = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
  const ref = boxAverageRgba({ width: full.width, height: full.height, data: full.data, scale: 1 }, img.scale);
  expect([img.width, img.height, img.data.length]).toEqual([ref.width, ref.height, ref.data.length]);
  let sum = 0;
  for (let i = 0; i < ref.data.length; i++) if (i % 4 !== 3) sum += Math.abs(ref.data[i]! - img.data[i]!);
  return sum / ((ref.data.length * 3) / 4);
}

// Rounding to whole levels alone gives up to 0.5; the edge blocks also average the encoder's padding, which
// jpeg-js leaves out. The analyzer's foreground threshold is 14 levels.
const TOLERANCE = 0.75;

const CASES: { name: string; bytes: () => Uint8Array }[] = [
  { name: 'YCbCr 4:2:0 (the simulator, like most cameras)', bytes: () => new Uint8Array(new JpegEncoder().encode(pattern(), W, H, 85)) },
  { name: 'YCbCr 4:2:0 with a restart marker every 3 blocks', bytes: () => new Uint8Array(new JpegEncoder().encode(pattern(), W, H, 85, 3)) },
  { name: 'YCbCr 4:4:4 (jpeg-js encoder)', bytes: () => new Uint8Array(jpeg.encode({ data: pattern(), width: W, height: H }, 85).data) },
  { name: 'YCbCr 4:4:4 (libjpeg-turbo)', bytes: () => fixture('ycc-444.jpg') },
  { name: 'greyscale (libjpeg-turbo)', bytes: () => fixture('grey.jpg') },
];

describe.each(CASES)('$name', ({ bytes }) => {
  test.each([2, 4, 8] as const)('decoded at 1/%i is the box average of the full decode', (scale) => {
    const b = bytes();
    const img = decodeScaledJpeg(b, scale);
    expect(img).not.toBeNull(); // handled here, not left to jpeg-js
    expect(img!.scale).toBe(scale);
    expect(diffFromReference(b, img!)).toBeLessThanOrEqual(TOLERANCE);
  });
});

test('a progressive JPEG is left to jpeg-js, and the portable decoder still delivers it at 1/4', () => {
  const b = fixture('progressive.jpg');
  expect(decodeScaledJpeg(b, 4)).toBeNull();
  const img = decodeWithJpegJs(b, LIMITS, { scale: 4 }) as DecodedImage;
  expect(diffFromReference(b, img)).toBeLessThanOrEqual(0.5);
});

test('image data cut short is refused as corrupt, by the scaled path and by the portable decoder', () => {
  const b = new Uint8Array(new JpegEncoder().encode(pattern(), W, H, 85));
  const cut = new Uint8Array([...b.subarray(0, Math.floor(b.length * 0.6)), 0xff, 0xd9]); // ends with EOI, data missing
  expect(() => decodeScaledJpeg(cut, 4, 'camera x')).toThrow(/camera x: corrupt JPEG \(image data ends early/);
  expect(() => decodeWithJpegJs(cut, LIMITS, { scale: 4 })).toThrow(DecodeError);
});

test('headers without any image data (no scan) are refused as corrupt, at full size and at 1/4, not decoded into a flat grey frame', () => {
  const b = new Uint8Array(new JpegEncoder().encode(pattern(), W, H, 85));
  let sos = 2;
  while (b[sos + 1] !== 0xda) sos += 2 + ((b[sos + 2]! << 8) | b[sos + 3]!);
  const headersOnly = new Uint8Array([...b.subarray(0, sos), 0xff, 0xd9]); // SOI, tables, SOF, EOI
  for (const scale of [1, 4] as const) {
    expect(() => decodeWithJpegJs(headersOnly, LIMITS, { scale, what: 'camera x frame 3' })).toThrow(
      new RegExp(`camera x frame 3: corrupt JPEG \\(a ${W}x${H} frame header but no image data\\)`),
    );
  }
  expect((decodeWithJpegJs(b, LIMITS, { scale: 1 }) as DecodedImage).width).toBe(W);
});

test('a whole JPEG followed by a line end or blanks (a camera CGI that ends its answer with CRLF) is taken, as jpeg-js and libjpeg take it', () => {
  const b = new Uint8Array(new JpegEncoder().encode(pattern(), W, H, 85));
  for (const tail of [[0x0d, 0x0a], [0x0a], [0x20, 0x20], [0x0d, 0x0a, 0x00, 0x00]]) {
    const withTail = new Uint8Array([...b, ...tail]);
    for (const scale of [1, 4] as const) expect((decodeWithJpegJs(withTail, LIMITS, { scale }) as DecodedImage).width).toBe(scale === 1 ? W : Math.ceil(W / 4));
  }
  // Anything else after the end-of-image marker is still no end-of-image marker (a frame cut short).
  expect(() => decodeWithJpegJs(new Uint8Array([...b, 0x41]), LIMITS, { scale: 1 })).toThrow(/truncated JPEG/);
});

test('a missing or out-of-sequence restart marker is refused as corrupt (data was lost between them)', () => {
  const good = new Uint8Array(new JpegEncoder().encode(pattern(), W, H, 85, 3));
  let rst = -1;
  for (let i = good.length - 3; i > 2 && rst < 0; i--) if (good[i] === 0xff && good[i + 1]! >= 0xd0 && good[i + 1]! <= 0xd7) rst = i;
  expect(decodeScaledJpeg(good, 4)).not.toBeNull();
  const missing = good.slice();
  missing[rst + 1] = 0x00; // the marker becomes a stuffed 0xff data byte
  expect(() => decodeScaledJpeg(missing, 4)).toThrow(/restart marker \d missing/);
  const shifted = good.slice();
  shifted[rst + 1] = 0xd0 + ((shifted[rst + 1]! - 0xd0 + 1) & 7); // RSTn where RST(n-1) was due
  expect(() => decodeScaledJpeg(shifted, 4)).toThrow(/restart marker \d missing/);
});

test('hostile bytes in the tables or the image data end in a decoded image or a DecodeError, never another exception', () => {
  const good = new Uint8Array(new JpegEncoder().encode(pattern(), W, H, 85, 5));
  const sos = good.findIndex((v, i) => v === 0xff && good[i + 1] === 0xda);
  const sof = good.findIndex((v, i) => v === 0xff && good[i + 1] === 0xc0);
  // Header bytes other than the frame size (the caller checks that against the limits before decoding).
  const header = Array.from({ length: sos + 14 - 2 }, (_, i) => i + 2).filter((i) => i < sof || i > sof + 8);
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed % n;
  };
  let refused = 0;
  for (let trial = 0; trial < 600; trial++) {
    const b = good.slice();
    for (let k = 0; k < 1 + rand(8); k++) {
      const at = trial % 2 === 0 ? header[rand(header.length)]! : sos + 14 + rand(b.length - sos - 16);
      b[at] = rand(256);
    }
    try {
      const img = decodeScaledJpeg(b, ([2, 4, 8] as const)[trial % 3]!);
      if (img) expect(img.data.length).toBe(img.width * img.height * 4);
    } catch (err) {
      expect(err).toBeInstanceOf(DecodeError);
      expect((err as DecodeError).code).toBe('TC_ERR_DECODE_CORRUPT');
      refused++;
    }
  }
  expect(refused).toBeGreaterThan(0); // the mutations do reach the decoder's checks
});
