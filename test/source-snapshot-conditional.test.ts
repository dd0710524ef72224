// HttpSnapshotSource sends If-None-Match / If-Modified-Since from the last image and treats 304 as "no new frame".
import { describe, expect, it, onTestFinished } from 'vitest';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

const timing = { pollIntervalMs: 15, timeoutMs: 2_000, maxBodyBytes: 1 << 20, backoffInitialMs: 20, backoffMaxMs: 100 };

describe('conditional snapshot requests', () => {
  it('revalidates with the ETag and yields nothing for 304 until the image changes', async () => {
    const first = makeJpeg(1);
    const second = makeJpeg(2);
    const lastModified = 'Wed, 21 Oct 2015 07:28:00 GMT';
    // Requests 0: image v1; 1-2: unchanged (304 if revalidated); 3+: image v2.
    const cam = await startCamera((req, res, n) => {
      if (n === 0) {
        res.writeHead(200, { 'content-type': 'image/jpeg', etag: '"v1"', 'last-modified': lastModified }).end(first);
      } else if (n < 3 && req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { etag: '"v1"' }).end();
      } else if (n < 3) {
        res.writeHead(200, { 'content-type': 'image/jpeg', etag: '"v1"' }).end(first);
      } else {
        res.writeHead(200, { 'content-type': 'image/jpeg', etag: '"v2"' }).end(second);
      }
    });
    const unchanged: number[] = [];
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing, onUnchanged: (t) => unchanged.push(t) });
    onTestFinished(() => source.close());

    const frames = await take(source.frames(), 2);

    expect(frames.map((f) => Buffer.from(f.jpeg))).toEqual([first, second]);
    expect(frames.map((f) => f.seq)).toEqual([1, 2]);
    expect(cam.requests[0].headers['if-none-match']).toBeUndefined();
    expect(cam.requests[1].headers['if-none-match']).toBe('"v1"');
    expect(cam.requests[1].headers['if-modified-since']).toBe(lastModified);
    const stats = source.stats();
    expect(stats.notModified).toBe(2);
    expect(unchanged).toHaveLength(2); // a 304 means the camera is up: uptime counts it as received
    expect(stats.requests).toBe(4);
    expect(stats.errors).toBe(0);
  });
});
