// MjpegParser turns a multipart/x-mixed-replace byte stream, cut into arbitrary chunks, back into JPEG parts;
// it skips garbage, discards oversized parts and resyncs, and never holds much more than one part.
import { describe, expect, it } from 'vitest';
import { MjpegParser } from '../dist/src/source/mjpeg-parser.js';
import { enc, feed, part } from './helpers/mjpeg-stream.js';

function jpegLike(n: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + n * 17) & 255;
  b[0] = 0xff;
  b[1] = 0xd8;
  b[size - 2] = 0xff;
  b[size - 1] = 0xd9;
  return b;
}

describe('MJPEG parser', () => {
  const bodies = [jpegLike(1, 300), jpegLike(2, 517), jpegLike(3, 64)];

  for (const withLength of [true, false]) {
    it(`reassembles parts ${withLength ? 'with' : 'without'} Content-Length fed one byte at a time`, () => {
      const stream = Buffer.concat(bodies.map((b) => part(b, 'myboundary', withLength)).concat(enc('--myboundary\r\n')));
      const parser = new MjpegParser({ boundary: 'myboundary', maxPartBytes: 1_000 });
      expect(feed(parser, stream, () => 1)).toEqual(bodies);
      expect(parser.stats.parts).toBe(3);
    });

    it(`reassembles parts ${withLength ? 'with' : 'without'} Content-Length across random chunk splits`, () => {
      const stream = Buffer.concat(bodies.map((b) => part(b, 'frame', withLength)).concat(enc('--frame--\r\n')));
      let seed = 7;
      const rand = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 97) + 1;
      for (let round = 0; round < 20; round++) {
        const parser = new MjpegParser({ boundary: 'frame', maxPartBytes: 1_000 });
        expect(feed(parser, stream, rand)).toEqual(bodies);
      }
    });
  }

  it('skips garbage before and between parts, and a preamble', () => {
    const stream = Buffer.concat([
      enc('HTTP preamble text\r\nmore junk --notit\r\n'),
      part(bodies[0], 'b0undary', true),
      enc('\x00\x01garbage between parts\r\n\r\n'),
      part(bodies[1], 'b0undary', false),
      enc('--b0undary\r\n'),
    ]);
    const parser = new MjpegParser({ boundary: 'b0undary', maxPartBytes: 1_000 });
    expect(feed(parser, stream, () => 13)).toEqual([bodies[0], bodies[1]]);
    expect(parser.stats.skippedBytes).toBeGreaterThan(0);
  });

  for (const withLength of [true, false]) {
    it(`discards a part over maxPartBytes ${withLength ? '(Content-Length)' : '(no Content-Length)'} and resyncs on the next boundary`, () => {
      const huge = jpegLike(9, 5_000);
      const stream = Buffer.concat([
        part(bodies[0], 'bd', withLength),
        part(huge, 'bd', withLength),
        part(bodies[1], 'bd', withLength),
        enc('--bd\r\n'),
      ]);
      const parser = new MjpegParser({ boundary: 'bd', maxPartBytes: 1_000, maxHeaderBytes: 256 });
      let maxBuffered = 0;
      const out: Buffer[] = [];
      for (let off = 0; off < stream.length; off += 100) {
        for (const p of parser.push(stream.subarray(off, off + 100))) out.push(Buffer.from(p));
        maxBuffered = Math.max(maxBuffered, parser.stats.bufferedBytes);
      }
      expect(out).toEqual([bodies[0], bodies[1]]);
      expect(parser.stats.oversized).toBe(1);
      // Its size as known: the Content-Length, or a lower bound (what was held when it was given up).
      if (withLength) expect([parser.stats.lastOversizedBytes, parser.stats.lastOversizedExact]).toEqual([huge.length, true]);
      else expect([parser.stats.lastOversizedBytes! > 1_000, parser.stats.lastOversizedExact]).toEqual([true, false]);
      // Never held much more than one allowed part (plus headers and a chunk).
      expect(maxBuffered).toBeLessThanOrEqual(1_000 + 256 + 100);
    });
  }

  it('drops a header block longer than maxHeaderBytes and recovers', () => {
    const stream = Buffer.concat([
      enc(`--bd\r\nX-Junk: ${'x'.repeat(2_000)}\r\n\r\n`),
      enc('not a jpeg\r\n'),
      part(bodies[2], 'bd', true),
      enc('--bd\r\n'),
    ]);
    const parser = new MjpegParser({ boundary: 'bd', maxPartBytes: 1_000, maxHeaderBytes: 512 });
    expect(feed(parser, stream, () => 50)).toEqual([bodies[2]]);
    expect(parser.stats.badHeaders).toBe(1);
  });

  it('accepts a boundary declared with leading dashes and detects it when none is given', () => {
    const stream = Buffer.concat([part(bodies[0], '--ipcam', false), part(bodies[1], '--ipcam', true), enc('----ipcam\r\n')]);
    expect(feed(new MjpegParser({ boundary: '--ipcam', maxPartBytes: 1_000 }), stream, () => 31)).toEqual([bodies[0], bodies[1]]);
    expect(feed(new MjpegParser({ maxPartBytes: 1_000 }), stream, () => 31)).toEqual([bodies[0], bodies[1]]);
  });

  it('does not end a part at boundary text that is not at the start of a line', () => {
    const tricky = Buffer.concat([jpegLike(4, 100), enc('xx--bd\r\n'), jpegLike(5, 100)]);
    const stream = Buffer.concat([part(tricky, 'bd', false), enc('--bd\r\n')]);
    expect(feed(new MjpegParser({ boundary: 'bd', maxPartBytes: 1_000 }), stream, () => 7)).toEqual([tricky]);
  });

  it('reads boundary text in the middle of a preamble line as text, not as a delimiter', () => {
    // The line naming the boundary used to open a part, whose next lines came out as a frame that is no picture.
    // (Once parts come, a delimiter is taken wherever it sits: see the next case.)
    const stream = Buffer.concat([
      enc('This is a multipart message; each part starts at --myboundary\r\n\r\nEach part is one JPEG picture.\r\n'),
      part(bodies[0], 'myboundary', true),
      part(bodies[1], 'myboundary', false),
      part(bodies[2], 'myboundary', true),
      enc('--myboundary--\r\n'),
    ]);
    for (const opts of [{ boundary: 'myboundary', maxPartBytes: 1_000 }, { maxPartBytes: 1_000 }]) {
      for (const chunk of [1, 7, 4096]) {
        const parser = new MjpegParser(opts);
        expect(feed(parser, stream, () => chunk)).toEqual(bodies);
        expect(parser.stats.parts).toBe(3);
      }
    }
  });

  it('takes a delimiter straight after a part whose Content-Length is a few bytes short, or padded, on the same line', () => {
    // Such cameras send "…\xff\xd9--bd" or "…\0\0\0\0--bd": the delimiter is mid-line, but nothing else comes before it.
    const head = (b: Buffer, length: number) => Buffer.concat([enc(`--bd\r\nContent-Type: image/jpeg\r\nContent-Length: ${length}\r\n\r\n`), b]);
    const short = Buffer.concat([...bodies.map((b) => head(b, b.length - 2)), enc('--bd\r\n')]);
    const padded = Buffer.concat([...bodies.map((b) => Buffer.concat([head(b, b.length), Buffer.alloc(4)])), enc('--bd\r\n')]);
    // Also with a line break among the missing bytes.
    const broken = Buffer.concat([...bodies.map((b) => head(Buffer.concat([b.subarray(0, b.length - 2), enc('\n\x8a'), b.subarray(b.length - 2)]), b.length - 2)), enc('--bd\r\n')]);
    for (const [stream, want] of [[short, bodies.map((b) => b.subarray(0, b.length - 2))], [padded, bodies], [broken, bodies.map((b) => b.subarray(0, b.length - 2))]] as const) {
      for (const opts of [{ boundary: 'bd', maxPartBytes: 1_000 }, { maxPartBytes: 1_000 }]) {
        for (const chunk of [1, 7, 4096]) expect(feed(new MjpegParser(opts), stream, () => chunk)).toEqual(want);
      }
    }
  });

  it('cuts a part whose Content-Length is too long at the delimiter after its JPEG, and reads the next parts (they were swallowed, every frame lost)', () => {
    // Cameras that count the trailing CRLF and more, or send a stale length: the announced bytes run into the next
    // delimiter line (or only its start), by a few bytes or by more than the next part.
    const head = (b: Buffer, length: number) => enc(`--bd\r\nContent-Type: image/jpeg\r\nContent-Length: ${length}\r\n\r\n`);
    for (const extra of [2, 5, 8, 30, 700]) {
      const stream = Buffer.concat([...bodies.flatMap((b) => [head(b, b.length + extra), b, enc('\r\n')]), enc('--bd\r\n'), Buffer.alloc(extra, 0x20)]);
      // 2 bytes too long are the CRLF after the JPEG, which the decoders take as padding: kept, not a cut.
      const want = extra === 2 ? bodies.map((b) => Buffer.concat([b, enc('\r\n')])) : bodies;
      for (const opts of [{ boundary: 'bd', maxPartBytes: 2_000 }, { maxPartBytes: 2_000 }]) {
        for (const chunk of [1, 7, 4096]) {
          const parser = new MjpegParser(opts);
          expect(feed(parser, stream, () => chunk), `${extra} bytes too long, chunks of ${chunk}`).toEqual(want);
          expect(parser.stats.overlong).toBe(extra === 2 ? 0 : 3);
          if (extra > 2) expect(parser.stats.lastOverlong).toEqual({ claimed: bodies[2].length + extra, actual: bodies[2].length });
        }
      }
    }
    // Only one part too long: the ones after it come as they are.
    const one = Buffer.concat([head(bodies[0], bodies[0].length + 40), bodies[0], enc('\r\n'), part(bodies[1], 'bd', true), part(bodies[2], 'bd', true), enc('--bd\r\n')]);
    const parser = new MjpegParser({ boundary: 'bd', maxPartBytes: 2_000 });
    expect(feed(parser, one, () => 100)).toEqual(bodies);
    expect(parser.stats.overlong).toBe(1);
  });

  it('cuts a partial frame whose Content-Length is the whole frame\'s at the next part\'s delimiter and headers: only it is lost, not the next part too', () => {
    // The camera announced the full frame, sent part of it (no end-of-image marker), then the next part.
    const cut = bodies[1].subarray(0, 200);
    const head = (length: number) => enc(`--bd\r\nContent-Type: image/jpeg\r\nContent-Length: ${length}\r\n\r\n`);
    for (const claimed of [bodies[1].length, 260, 240]) {
      const stream = Buffer.concat([part(bodies[0], 'bd', true), head(claimed), cut, enc('\r\n'), part(bodies[2], 'bd', true), part(bodies[0], 'bd', true), enc('--bd\r\n')]);
      for (const opts of [{ boundary: 'bd', maxPartBytes: 2_000 }, { maxPartBytes: 2_000 }]) {
        for (const chunk of [1, 7, 4096]) {
          const parser = new MjpegParser(opts);
          // The partial frame is dropped and counted; the parts after it come whole.
          expect(feed(parser, stream, () => chunk), `claimed ${claimed}, chunks of ${chunk}`).toEqual([bodies[0], bodies[2], bodies[0]]);
          expect([parser.stats.cutShort, parser.stats.lastCutShort, parser.stats.overlong]).toEqual([1, { claimed, actual: 200 }, 0]);
        }
      }
    }
  });

  it('keeps a part of the right Content-Length whose JPEG holds the boundary text, even on a line of its own', () => {
    const inner = Buffer.concat([bodies[0].subarray(0, 100), enc('\r\n--bd\r\n'), bodies[0].subarray(100)]);
    const stream = Buffer.concat([part(inner, 'bd', true), part(bodies[1], 'bd', true), enc('--bd\r\n')]);
    for (const chunk of [1, 7, 4096]) {
      const parser = new MjpegParser({ boundary: 'bd', maxPartBytes: 2_000 });
      expect(feed(parser, stream, () => chunk)).toEqual([inner, bodies[1]]);
      expect(parser.stats.overlong).toBe(0);
    }
  });

  it('keeps a part without Content-Length of up to maxPartBytes, whatever the chunks, and gives a larger one\'s size as at least its own', () => {
    // Fed a byte at a time, a part of exactly the limit was held with its line break and the start of the next
    // delimiter, and dropped as oversized.
    for (const size of [1_000, 999]) {
      const body = jpegLike(4, size);
      const stream = Buffer.concat([part(body, 'bd', false), part(bodies[2], 'bd', false), enc('--bd\r\n')]);
      for (const chunk of [1, 7, 4096]) expect(feed(new MjpegParser({ boundary: 'bd', maxPartBytes: 1_000 }), stream, () => chunk)).toEqual([body, bodies[2]]);
      // Also when the camera writes its delimiters with extra leading dashes (boundary=--bd sent as "----bd").
      const dashed = Buffer.from(stream.toString('latin1').replaceAll('--bd', '----bd'), 'latin1');
      for (const chunk of [1, 7]) expect(feed(new MjpegParser({ boundary: '--bd', maxPartBytes: 1_000 }), dashed, () => chunk)).toEqual([body, bodies[2]]);
    }
    const big = Buffer.concat([part(jpegLike(5, 1_001), 'bd', false), part(bodies[2], 'bd', false), enc('--bd\r\n')]);
    for (const chunk of [1, 7]) {
      const parser = new MjpegParser({ boundary: 'bd', maxPartBytes: 1_000 });
      expect(feed(parser, big, () => chunk)).toEqual([bodies[2]]);
      // Given up before its end (a byte at a time) or seen whole: 1,001 either way, never the line break's bytes more.
      expect([parser.stats.oversized, parser.stats.lastOversizedBytes]).toEqual([1, 1_001]);
    }
  });

  it('gives up on a part without Content-Length that ends in a long run of dashes, and goes on (it used to spin for ever)', () => {
    const stream = Buffer.concat([enc('--bd\r\n\r\n'), Buffer.alloc(500, 0x41), Buffer.alloc(20_000, 0x2d), enc('\r\n'), part(bodies[2], 'bd', false), enc('--bd\r\n')]);
    for (const chunk of [1, 7, 4096]) {
      const parser = new MjpegParser({ boundary: 'bd', maxPartBytes: 1_000 });
      expect(feed(parser, stream, () => chunk)).toEqual([bodies[2]]);
      expect(parser.stats.oversized).toBe(1);
    }
  });

  it('reports the X-Sim-Time header of each part', () => {
    const stream = enc(`--bd\r\nX-Sim-Time: 1700000000123\r\nContent-Length: 3\r\n\r\nabc\r\n--bd\r\nContent-Length: 2\r\n\r\nde\r\n`);
    const parser = new MjpegParser({ boundary: 'bd', maxPartBytes: 100 });
    expect(parser.push(stream).map((p) => Buffer.from(p).toString())).toEqual(['abc', 'de']);
    expect(parser.partTimes).toEqual([1700000000123, Number.NaN]);
  });
});
