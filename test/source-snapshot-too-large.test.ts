// Bodies over maxBodyBytes are refused with TC_ERR_SOURCE_TOO_LARGE: from Content-Length before reading, and
// while streaming when the length is not announced. The source keeps going afterwards.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

const MAX = 4_096;

async function firstErrorThenFrame(send: (res: import('node:http').ServerResponse, big: Buffer) => void): Promise<{ errors: SourceError[]; frame: Uint8Array; url: string }> {
  const big = Buffer.alloc(MAX * 20, 7);
  const small = makeJpeg(1);
  const cam = await startCamera((_req, res, n) => {
    if (n === 0) send(res, big);
    else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(small);
  });
  const errors: SourceError[] = [];
  const source = new HttpSnapshotSource({
    cameraId: 'cam1',
    url: cam.url,
    pollIntervalMs: 10,
    timeoutMs: 2_000,
    maxBodyBytes: MAX,
    backoffInitialMs: 10,
    backoffMaxMs: 20,
    onError: (err) => errors.push(err),
  });
  onTestFinished(() => source.close());
  const [frame] = await take(source.frames(), 1);
  expect(Buffer.from(frame.jpeg)).toEqual(small);
  return { errors, frame: frame.jpeg, url: cam.url };
}

describe('snapshot body size limit', () => {
  it('refuses a body whose Content-Length is over maxBodyBytes', async () => {
    const { errors, url } = await firstErrorThenFrame((res, big) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': big.length }).end(big);
    });
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_TOO_LARGE']);
    expect(errors[0].message).toContain(url);
    expect(errors[0].message).toContain(String(MAX * 20));
    expect(errors[0].message).toContain('maxBodyBytes');
  });

  it('stops reading a chunked body as soon as it passes maxBodyBytes', async () => {
    let sent = 0;
    const { errors } = await firstErrorThenFrame((res, big) => {
      // No Content-Length: chunked transfer, one 1 KiB chunk at a time.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const pump = (): void => {
        while (sent < big.length && !res.destroyed) {
          const ok = res.write(big.subarray(sent, sent + 1024));
          sent += 1024;
          if (!ok) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_TOO_LARGE']);
    expect(errors[0].message).toContain('maxBodyBytes=4096');
  });
});
