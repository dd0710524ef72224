// run --camera URL reads the first frame's size from its JPEG header. A frame cut short (a download interrupted, a
// camera sending a partial frame now and then) used to end `run --camera` at once ("truncated JPEG … no end-of-image
// marker", exit 1), though the daemon skips such a frame and asks again; the probe now asks again too, and only
// three broken frames in a row are the camera's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import jpegJs from 'jpeg-js';
import { expect, it, onTestFinished } from 'vitest';
import { probeCameraSize } from '../dist/src/source/probe-camera-size.js';

/** A snapshot camera whose answers are `answer(n)` for its n-th request (from 0); each a different picture. */
async function camera(answer: (n: number, jpeg: Buffer) => Buffer): Promise<string> {
  let n = 0;
  const server = createServer((_req, res) => {
    const k = n++;
    const data = Buffer.alloc(64 * 48 * 4);
    for (let i = 0; i < data.length; i++) data[i] = ((i + 1) * (k + 7) * 2654435761) >>> 24; // noise: cut anywhere, they differ
    const jpeg = Buffer.from(jpegJs.encode({ data, width: 64, height: 48 }, 80).data);
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(answer(k, jpeg));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
}

const cut = (jpeg: Buffer): Buffer => jpeg.subarray(0, jpeg.length >> 1);

it('a first frame cut short is skipped: the next gives the size', { timeout: 30_000 }, async () => {
  const url = await camera((n, jpeg) => (n === 0 ? cut(jpeg) : jpeg));
  await expect(probeCameraSize(url, 10_000)).resolves.toMatchObject({ width: 64, height: 48, kind: 'snapshot' });
});

it('three broken frames in a row are the camera\'s: refused with the decoder\'s error', { timeout: 30_000 }, async () => {
  const url = await camera((_n, jpeg) => cut(jpeg));
  const err = await probeCameraSize(url, 10_000).then(
    () => undefined,
    (e: Error & { code?: string }) => e,
  );
  expect(err?.code).toBe('TC_ERR_DECODE_CORRUPT');
  expect(err?.message).toMatch(/^--camera http:\/\/127\.0\.0\.1:\d+\/snapshot\.jpg: truncated JPEG/);
});
