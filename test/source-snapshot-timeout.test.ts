// A camera that sends headers and half a body, then stalls, is abandoned with TC_ERR_SOURCE_TIMEOUT and the
// source keeps polling.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

describe('stalled snapshot response', () => {
  it('times out a half-sent body and continues with the next poll', async () => {
    const image = makeJpeg(4);
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': image.length });
      if (n === 0) res.write(image.subarray(0, image.length >> 1)); // ... and never the rest
      else res.end(image);
    });
    const errors: SourceError[] = [];
    const source = new HttpSnapshotSource({
      cameraId: 'cam1',
      url: cam.url,
      pollIntervalMs: 10,
      timeoutMs: 200,
      maxBodyBytes: 1 << 20,
      backoffInitialMs: 10,
      backoffMaxMs: 20,
      onError: (err) => errors.push(err),
    });
    onTestFinished(() => source.close());

    const frames = await take(source.frames(), 1);

    expect(Buffer.from(frames[0].jpeg)).toEqual(image);
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_TIMEOUT']);
    expect(errors[0].message).toContain('timeoutMs=200');
    expect(frames[0].seq).toBe(1);
  });
});
