// A camera whose Content-Type declares one boundary but whose body is delimited by another ("boundary=foo", then
// "--myboundary" lines): its frames are read with the boundary it uses, and the mismatch is said once, naming the
// camera and both boundaries. It used to yield nothing and read frozen until 2 x maxBodyBytes (16 MB) had passed.
import type { ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { MjpegParser } from '../dist/src/source/mjpeg-parser.js';
import { MjpegStreamSource } from '../dist/src/source/mjpeg-stream-source.js';
import { enc, feed, part } from './helpers/mjpeg-stream.js';
import { makeJpeg, startCamera, until } from './helpers/source-http.js';

describe('MJPEG parser, declared boundary not the one used', () => {
  const bodies = [makeJpeg(1), makeJpeg(2), makeJpeg(3)];

  for (const withLength of [true, false]) {
    for (const chunk of [1, 7, 4096]) {
      it(`reads the parts by the "--token" line that has part headers (${withLength ? 'with' : 'without'} Content-Length, ${chunk}-byte chunks)`, () => {
        const stream = Buffer.concat([enc('preamble\r\n--notapart\r\n\r\n'), ...bodies.map((b) => part(b, 'myboundary', withLength)), enc('--myboundary\r\n')]);
        const parser = new MjpegParser({ boundary: 'foo', maxPartBytes: 10_000 });
        expect(feed(parser, stream, () => chunk)).toEqual(bodies);
        expect(parser.stats.boundaryMismatch).toEqual({ declared: 'foo', found: 'myboundary' });
      });
    }
  }

  for (const chunk of [1, 7, 4096]) {
    it(`reads the parts by a token the declared boundary is the start of ("frame", then "--frame123"; ${chunk}-byte chunks)`, () => {
      // The declared delimiter "--frame" is found at every real delimiter line: that line must be judged too.
      for (const withLength of [true, false]) {
        const stream = Buffer.concat([...bodies.map((b) => part(b, 'frame123', withLength)), enc('--frame123\r\n')]);
        const parser = new MjpegParser({ boundary: 'frame', maxPartBytes: 10_000 });
        expect(feed(parser, stream, () => chunk)).toEqual(bodies);
        expect(parser.stats.boundaryMismatch).toEqual({ declared: 'frame', found: 'frame123' });
      }
    });
  }

  it('takes no other token once a part came with the declared boundary, even one with headers inside the JPEG data', () => {
    // Without Content-Length the part ends at the declared delimiter; the look-alike lines are the part's bytes.
    const tricky = Buffer.concat([bodies[0], enc('\r\n--evil\r\nContent-Type: image/jpeg\r\n\r\n'), bodies[1]]);
    const stream = Buffer.concat([
      part(tricky, 'foo', false),
      part(bodies[2], 'foo', true),
      part(bodies[1], 'evil', true), // between parts: garbage, skipped
      part(bodies[0], 'foo', true),
      enc('--foo\r\n'),
    ]);
    const parser = new MjpegParser({ boundary: 'foo', maxPartBytes: 10_000 });
    expect(feed(parser, stream, () => 5)).toEqual([tricky, bodies[2], bodies[0]]);
    expect(parser.stats.boundaryMismatch).toBeUndefined();
  });

  it('prefers the declared boundary when it comes first, and holds little while no delimiter comes', () => {
    const parser = new MjpegParser({ boundary: 'foo', maxPartBytes: 100_000 });
    let maxBuffered = 0;
    const junk = enc('-'.repeat(10) + 'x'.repeat(1_000) + '\r\n--\r\n-'.repeat(50));
    for (let i = 0; i < 200; i++) {
      parser.push(junk);
      maxBuffered = Math.max(maxBuffered, parser.stats.bufferedBytes);
    }
    expect(maxBuffered).toBeLessThan(100);
    expect(parser.stats.delimiters).toBe(0);
    const stream = Buffer.concat([part(bodies[0], 'foo', true), part(bodies[1], 'other', true), enc('--foo\r\n')]);
    expect(feed(parser, stream, () => 3)).toEqual([bodies[0]]);
    expect(parser.stats.boundaryMismatch).toBeUndefined();
  });
});

describe('MJPEG stream source, declared boundary not the one used', () => {
  it('delivers the frames and warns once, naming the camera and both boundaries', async () => {
    const images = [makeJpeg(10), makeJpeg(60), makeJpeg(120)];
    let stream: ServerResponse | undefined;
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=foo' });
      if (n === 0) {
        res.end(Buffer.concat([part(images[0], 'myboundary', true), enc('--myboundary--\r\n')])); // hangs up: the reconnection must not warn again
      } else {
        res.write(Buffer.concat([part(images[1], 'myboundary', false), enc('--myboundary\r\n')]));
        stream = res;
      }
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({
      cameraId: 'gate-3', url: cam.url, pollIntervalMs: 20, timeoutMs: 2_000, maxBodyBytes: 8 * 1024 * 1024,
      backoffInitialMs: 10, backoffMaxMs: 40, onError: (e) => errors.push(e),
    });
    onTestFinished(() => source.close());
    const it = source.frames();

    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(images[0]);
    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(images[1]);
    await until(() => stream !== undefined);
    // Its next part, the headers after the delimiter line already sent.
    stream!.write(Buffer.concat([enc('Content-Type: image/jpeg\r\n\r\n'), images[2], enc('\r\n--myboundary\r\n')]));
    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(images[2]);

    const warnings = errors.filter((e) => e.message.includes('boundary'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].code).toBe('TC_ERR_SOURCE_BOUNDARY');
    expect(warnings[0].message).toMatch(/^camera gate-3: .*"foo".*"--myboundary".*read .*anyway/);
    // Apart from it, only the hang-up between the two connections.
    expect(errors.filter((e) => !warnings.includes(e)).map((e) => e.message)).toEqual([expect.stringContaining('ended after 1 frames')]);
    expect(source.stats().frames).toBe(3);
    await it.return!();
  });
});
