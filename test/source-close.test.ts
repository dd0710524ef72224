// close() aborts an in-flight request at once (even with a long timeout), is idempotent, ends the iterator,
// and `await using` disposes a source.
import { describe, expect, it } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { MjpegStreamSource } from '../dist/src/source/mjpeg-stream-source.js';
import { startCamera, until } from './helpers/source-http.js';

// The camera never answers and timeoutMs is far above the test timeout: only close() can end the request.
const opts = { cameraId: 'cam1', pollIntervalMs: 10, timeoutMs: 60_000, maxBodyBytes: 1 << 20, backoffInitialMs: 10, backoffMaxMs: 20 };

describe('closing a source', () => {
  it('ends a snapshot iterator waiting on a silent camera, quietly, and can be called twice', { timeout: 5_000 }, async () => {
    const cam = await startCamera(() => {});
    const errors: SourceError[] = [];
    const source = new HttpSnapshotSource({ ...opts, url: cam.url, onError: (e) => errors.push(e) });
    const it = source.frames();
    const pending = it.next();
    await until(() => cam.requests.length === 1);

    const first = source.close();
    const second = source.close();
    await Promise.all([first, second]);

    expect(await pending).toEqual({ done: true, value: undefined });
    expect(errors).toEqual([]);
    // A closed source yields nothing more.
    expect(await source.frames().next()).toEqual({ done: true, value: undefined });
  });

  it('disposes with await using', { timeout: 5_000 }, async () => {
    const cam = await startCamera(() => {});
    let pending: Promise<IteratorResult<unknown>>;
    {
      await using source = new MjpegStreamSource({ ...opts, url: cam.url });
      pending = source.frames().next();
      await until(() => cam.requests.length === 1);
    }
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});
