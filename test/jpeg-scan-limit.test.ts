// A JPEG of many tiny scans: every decoder decodes each scan over the whole image, so 170 KB of 10,000 empty scans
// of a 2000x2000 picture held a jpeg-js decoder for 12 s, past decodeTimeoutMs: it was killed as hung, the camera's
// next frame hung the next one, and no other camera's frame got through (the log blamed the decoder). Such a frame
// is now refused from its header, at once, naming the camera.
import { describe, expect, it } from 'vitest';
import { inspectJpeg, MAX_SCANS } from '../dist/src/decode/jpeg-header.js';
import { decodeWithJpegJs } from '../dist/src/decode/decode-jpeg.js';

/** A grey progressive W x H JPEG: a DC scan, then `acScans` AC scans that are end-of-band runs only. */
function manyScans(w: number, h: number, acScans: number): Buffer {
  const parts: Buffer[] = [Buffer.from([0xff, 0xd8])];
  const seg = (m: number, body: number[] | Buffer) => {
    parts.push(Buffer.from([0xff, m, (body.length + 2) >> 8, (body.length + 2) & 255]), Buffer.from(body));
  };
  seg(0xdb, [0x00, ...Array<number>(64).fill(1)]);
  seg(0xc2, [8, h >> 8, h & 255, w >> 8, w & 255, 1, 1, 0x11, 0]);
  seg(0xc4, [0x00, 1, ...Array<number>(15).fill(0), 0x00]); // DC: one 1-bit code, category 0
  seg(0xc4, [0x10, 1, ...Array<number>(15).fill(0), 0xe0]); // AC: one 1-bit code, EOBRUN of 2^14 + 14 bits
  const bits = (write: (put: (v: number, len: number) => void) => void) => {
    const out: number[] = [];
    let cur = 0, n = 0;
    write((v, len) => {
      for (let i = len - 1; i >= 0; i--) {
        cur = (cur << 1) | ((v >> i) & 1);
        if (++n === 8) {
          out.push(cur);
          if (cur === 0xff) out.push(0); // byte stuffing
          cur = 0;
          n = 0;
        }
      }
    });
    while (n !== 0) {
      cur = (cur << 1) | 1;
      if (++n === 8) {
        out.push(cur);
        if (cur === 0xff) out.push(0);
        n = 0;
      }
    }
    return Buffer.from(out);
  };
  const blocks = Math.ceil(w / 8) * Math.ceil(h / 8);
  seg(0xda, [1, 1, 0x00, 0, 0, 0x00]);
  parts.push(bits((put) => { for (let i = 0; i < blocks; i++) put(0, 1); }));
  const ac = bits((put) => { for (let left = blocks; left > 0; left -= 32767) { put(0, 1); put(0x3fff, 14); } });
  for (let s = 0; s < acScans; s++) {
    seg(0xda, [1, 1, 0x00, 1, 63, 0x00]);
    parts.push(ac);
  }
  parts.push(Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

const LIMITS = { maxMegapixels: 4, maxDecodeMemoryMB: 88 };

describe('a JPEG with very many scans', () => {
  it(`is refused from its header, at once, beyond ${MAX_SCANS} scans, naming the frame`, () => {
    const jpeg = manyScans(2000, 2000, 10_000);
    expect(jpeg.length).toBeLessThan(200_000);
    const t0 = performance.now();
    let err: unknown;
    try {
      decodeWithJpegJs(jpeg, LIMITS, { what: 'camera bad: frame 3' });
    } catch (e) {
      err = e;
    }
    expect(performance.now() - t0).toBeLessThan(1_000); // jpeg-js took 12 s over it
    expect((err as { code?: string }).code).toBe('TC_ERR_DECODE_CORRUPT');
    expect((err as Error).message).toBe(
      `camera bad: frame 3: JPEG with more than ${MAX_SCANS} scans (a camera's JPEG has 1, a progressive one about 10; each scan is decoded over the whole 2000x2000 image, so this many would take a decoder seconds to minutes): a damaged or hostile image, refused`,
    );
    expect(() => inspectJpeg(manyScans(64, 64, MAX_SCANS), 'f')).toThrow(/more than 100 scans/);
  });

  it(`is decoded with up to ${MAX_SCANS} scans`, () => {
    expect(inspectJpeg(manyScans(64, 48, MAX_SCANS - 1), 'f')).toEqual({ width: 64, height: 48 });
    const img = decodeWithJpegJs(manyScans(64, 48, MAX_SCANS - 1), LIMITS, { what: 'f' }) as { width: number; height: number };
    expect([img.width, img.height]).toEqual([64, 48]);
  });
});
