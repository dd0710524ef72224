// A camera answering HTTP errors (or an HTML login page) is reported through onError and retried; the
// source recovers by itself when the camera heals, and the iterator never throws.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

const timing = { pollIntervalMs: 10, timeoutMs: 2_000, maxBodyBytes: 1 << 20, backoffInitialMs: 10, backoffMaxMs: 40 };

describe('HTTP errors from the camera', () => {
  it('reports HTTP 500 as TC_ERR_SOURCE_HTTP, then recovers when the camera heals', async () => {
    const image = makeJpeg(3);
    const cam = await startCamera((_req, res, n) => {
      if (n < 2) res.writeHead(500).end('boom');
      else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(image);
    });
    const errors: SourceError[] = [];
    const recovered: number[] = [];
    const source = new HttpSnapshotSource({
      cameraId: 'cam1',
      url: cam.url,
      ...timing,
      onError: (err) => errors.push(err),
      onRecover: (info) => recovered.push(info.afterFailures),
    });
    onTestFinished(() => source.close());

    const frames = await take(source.frames(), 1);

    expect(Buffer.from(frames[0].jpeg)).toEqual(image);
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_HTTP', 'TC_ERR_SOURCE_HTTP']);
    expect(errors[0].message).toContain(`camera cam1: GET ${cam.url} answered HTTP 500 Internal Server Error`);
    expect(recovered).toEqual([2]);
    const stats = source.stats();
    expect(stats.errorsByCode).toEqual({ TC_ERR_SOURCE_HTTP: 2 });
    expect(stats.consecutiveFailures).toBe(0);
    expect(stats.nextRetryMs).toBeUndefined();
    expect(stats.lastError?.code).toBe('TC_ERR_SOURCE_HTTP');
  });

  it('rejects an HTML page served with 200 (a login page) as TC_ERR_SOURCE_HTTP naming the content type', async () => {
    const cam = await startCamera((_req, res, n) => {
      if (n === 0) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>login</html>');
      else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(9));
    });
    const errors: SourceError[] = [];
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing, onError: (err) => errors.push(err) });
    onTestFinished(() => source.close());

    const frames = await take(source.frames(), 1);

    expect(frames).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0].code).toBe('TC_ERR_SOURCE_HTTP');
    expect(errors[0].message).toContain('text/html');
    // The daemon's repeated-error log keys on code and status: this answer is not lumped with status-less errors.
    expect(errors[0].status).toBe(200);
  });
});
