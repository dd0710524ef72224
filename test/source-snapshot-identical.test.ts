// A frozen camera that keeps answering 200 with the same bytes yields one frame, not a stream of duplicates.
import { describe, expect, it, onTestFinished } from 'vitest';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

describe('identical snapshots', () => {
  it('skips a body byte-identical to the previous frame and counts it', async () => {
    const same = makeJpeg(5);
    const next = makeJpeg(6);
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(n < 4 ? same : next);
    });
    const unchanged: number[] = [];
    const source = new HttpSnapshotSource({
      onUnchanged: (t) => unchanged.push(t),
      cameraId: 'cam1',
      url: cam.url,
      pollIntervalMs: 15,
      timeoutMs: 2_000,
      maxBodyBytes: 1 << 20,
      backoffInitialMs: 20,
      backoffMaxMs: 100,
    });
    onTestFinished(() => source.close());

    const frames = await take(source.frames(), 2);

    expect(frames.map((f) => Buffer.from(f.jpeg))).toEqual([same, next]);
    expect(source.stats().identicalSkipped).toBe(3);
    expect(source.stats().frames).toBe(2);
    // The camera was up for every answer: uptime hears of the three unchanged ones too.
    expect(unchanged).toHaveLength(3);
  });
});
