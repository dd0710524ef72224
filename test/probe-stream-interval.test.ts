// run --camera on an MJPEG stream prints a config whose pollIntervalMs is the stream's frame interval, measured by
// the probe: it is the slot the camera's uptime is counted in, and the config printed without it counted a 5-fps
// stream against the default 500 ms (helper 27). A stream that stalls after its first frame still gives its size
// (within the probe's few seconds of measuring), without an interval.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it, onTestFinished } from 'vitest';
import { probeCameraSize } from '../dist/src/source/probe-camera-size.js';
import { makeJpeg } from './helpers/jpeg-fixtures.js';
import { part } from './helpers/mjpeg-stream.js';

async function stream(intervalMs: number | null): Promise<string> {
  // A new picture each frame (a stream repeating one picture has nothing new to give).
  let k = 0;
  const next = (): Buffer => part(Buffer.from(makeJpeg(64, 48, k++).jpeg), 'frame', true);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
    res.write(next());
    if (intervalMs === null) return; // stalls after its first frame
    const timer = setInterval(() => res.write(next()), intervalMs);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream.mjpg`;
}

it('measures an MJPEG stream\'s frame interval', { timeout: 20_000 }, async () => {
  const probed = await probeCameraSize(await stream(200), 10_000);
  expect(probed.kind).toBe('mjpeg');
  expect(probed.frameIntervalMs).toBeGreaterThanOrEqual(150);
  expect(probed.frameIntervalMs).toBeLessThanOrEqual(300);
});

it('gives a stalled stream\'s size at once after its measuring time, without an interval', { timeout: 20_000 }, async () => {
  const started = Date.now();
  const probed = await probeCameraSize(await stream(null), 10_000);
  expect(probed.width).toBeGreaterThan(0);
  expect(probed.frameIntervalMs).toBeUndefined();
  expect(Date.now() - started).toBeLessThan(6_000);
});
