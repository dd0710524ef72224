// HttpSnapshotSource polls a camera URL and yields each new JPEG with an increasing seq and a capture time.
import { describe, expect, it, onTestFinished } from 'vitest';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

const timing = { pollIntervalMs: 20, timeoutMs: 2_000, maxBodyBytes: 1 << 20, backoffInitialMs: 20, backoffMaxMs: 100 };

describe('HTTP snapshot polling', () => {
  it('yields the camera images in order, one per request, stamped when they arrived', async () => {
    const images = [makeJpeg(10), makeJpeg(20), makeJpeg(30)];
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(images[Math.min(n, images.length - 1)]);
    });
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => source.close());

    const before = Date.now();
    const frames = await take(source.frames(), 3);
    const after = Date.now();

    expect(frames.map((f) => Buffer.from(f.jpeg))).toEqual(images);
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3]);
    expect(frames.every((f) => f.cameraId === 'cam1')).toBe(true);
    for (const f of frames) {
      expect(f.capturedAt).toBeGreaterThanOrEqual(before);
      expect(f.capturedAt).toBeLessThanOrEqual(after);
    }
    const stats = source.stats();
    expect(stats.frames).toBe(3);
    expect(stats.requests).toBe(3);
    expect(stats.bytes).toBe(images.reduce((sum, b) => sum + b.length, 0));
    expect(stats.errors).toBe(0);
    // One keep-alive connection serves every poll.
    expect(new Set(cam.requests.map((r) => r.socket)).size).toBe(1);
    // Each frame owns its bytes, so a channel can transfer frame.jpeg.buffer to a worker.
    for (const f of frames) expect(f.jpeg.buffer.byteLength).toBe(f.jpeg.byteLength);
  });

  it('takes the capture time from an X-Sim-Time header when the camera sends one', async () => {
    const stamp = Date.now() - 10_123;
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'x-sim-time': String(stamp + n * 40) }).end(makeJpeg(n));
    });
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => source.close());

    const frames = await take(source.frames(), 2);
    expect(frames.map((f) => f.capturedAt)).toEqual([stamp, stamp + 40]);
  });

  it('times a frame on arrival when its X-Sim-Time is more than an hour from this clock (its counts went to that time)', async () => {
    const yearAgo = Date.now() - 365 * 86_400_000;
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'x-sim-time': String(n === 0 ? yearAgo : Date.now() + 2 * 3_600_000) }).end(makeJpeg(n));
    });
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => source.close());
    const before = Date.now();
    const frames = await take(source.frames(), 2);
    for (const f of frames) expect(f.capturedAt).toBeGreaterThanOrEqual(before);
    for (const f of frames) expect(f.capturedAt).toBeLessThanOrEqual(Date.now());
  });

  it('takes no more stamps from a camera once one was too far off: a clock about an hour off does not jump back and forth', async () => {
    // A camera an hour and a few ms behind, as a request's delay puts its stamp now past the hour, now within it.
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'x-sim-time': String(Date.now() - 3_600_000 - (n % 2 === 0 ? 5_000 : -5_000)) }).end(makeJpeg(n));
    });
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => source.close());
    const before = Date.now();
    const frames = await take(source.frames(), 4);
    // Frame 1 (59 min 55 s back) came after frame 0's refused stamp: timed on arrival as well, not an hour back.
    for (const f of frames) expect(f.capturedAt).toBeGreaterThanOrEqual(before);
  });

  it('sends credentials from the URL as Basic authorization and keeps the password out of error messages', async () => {
    const cam = await startCamera((req, res) => {
      if (req.headers.authorization !== `Basic ${Buffer.from('admin:s3cret').toString('base64')}`) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(1));
    });
    const good = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url.replace('http://', 'http://admin:s3cret@'), ...timing });
    onTestFinished(() => good.close());
    expect(await take(good.frames(), 1)).toHaveLength(1);

    const ac = new AbortController();
    const errors: Error[] = [];
    const bad = new HttpSnapshotSource({
      cameraId: 'cam1',
      url: cam.url.replace('http://', 'http://admin:wrong@'),
      ...timing,
      onError: (err) => {
        errors.push(err);
        ac.abort();
      },
    });
    onTestFinished(() => bad.close());
    await take(bad.frames(ac.signal), 1);
    expect(errors[0].message).toContain('HTTP 401');
    expect(errors[0].message).not.toContain('wrong');
  });
});
