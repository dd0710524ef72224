// Building multipart/x-mixed-replace (MJPEG) streams for the parser's tests, and feeding them in chunks.
import type { MjpegParser } from '../../dist/src/source/mjpeg-parser.js';

export const enc = (s: string): Buffer => Buffer.from(s, 'latin1');

/** One part: the "--boundary" line, its headers (Content-Length when `withLength`), the body and CRLF. */
export function part(body: Buffer, boundary: string, withLength: boolean): Buffer {
  const headers = `--${boundary}\r\nContent-Type: image/jpeg\r\n${withLength ? `Content-Length: ${body.length}\r\n` : ''}\r\n`;
  return Buffer.concat([enc(headers), body, enc('\r\n')]);
}

/** Pushes `stream` in chunks of chunkSizes(i) bytes (at least 1); returns the parts, copied. */
export function feed(parser: MjpegParser, stream: Buffer, chunkSizes: (i: number) => number): Buffer[] {
  const out: Buffer[] = [];
  for (let off = 0, i = 0; off < stream.length; i++) {
    const n = Math.max(1, chunkSizes(i));
    for (const p of parser.push(stream.subarray(off, off + n))) out.push(Buffer.from(p));
    off += n;
  }
  return out;
}
