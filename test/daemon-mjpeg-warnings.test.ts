// What the daemon's log says about an MJPEG camera whose stream is off: each problem once, in words that say
// what happens (frames read anyway, or none kept), not a line per part or per reconnection.
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { startCamera, until } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

/** A small new picture each time (a repeated one would be skipped as unchanged). */
function picture(k: number): Buffer {
  return Buffer.from(jpeg.encode({ data: new Uint8Array(64 * 48 * 4).fill((k * 37) % 250), width: 64, height: 48 }, 90).data);
}

/** A part delimited with "--myboundary", whatever boundary the stream declares. */
function wrongBoundaryPart(k: number): Buffer {
  const image = picture(k);
  return Buffer.concat([Buffer.from(`--myboundary\r\nContent-Type: image/jpeg\r\nContent-Length: ${image.length}\r\n\r\n`), image, Buffer.from('\r\n')]);
}

/**
 * A daemon reading one MJPEG camera whose parts `body(k)` returns, one every 100 ms, after answering its first
 * `unavailable` requests with HTTP 503; with its warnings.
 */
async function startDaemon(contentType: string, body: (k: number) => Buffer, camera: Record<string, unknown> = {}, unavailable = 0) {
  let k = 0;
  const cam = await startCamera((_req, res, n) => {
    if (n < unavailable) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': contentType });
    const timer = setInterval(() => res.write(body(k++)), 100);
    res.on('close', () => clearInterval(timer));
  }, '/video.mjpg');
  const config = validateConfig({
    db: join(tempDir(), 'counts.db'),
    cameras: [{
      id: 'gate', kind: 'mjpeg', url: cam.url, pollIntervalMs: 100,
      roi: [[0, 0], [64, 0], [64, 48], [0, 48]], lines: [{ id: 'l', from: [0, 24], to: [64, 24] }], ...camera,
    }],
  });
  const warned: string[] = [];
  const daemon = await Daemon.start(config, { log: { info: () => {}, warn: (m: string) => warned.push(m) } });
  onTestFinished(() => daemon.close());
  return { daemon, warned, cam };
}

it('reads a stream whose parts use another boundary than declared, and says so once', { timeout: 30_000 }, async () => {
  const { daemon, warned, cam } = await startDaemon('multipart/x-mixed-replace; boundary=foo', wrongBoundaryPart);
  await until(() => daemon.stats().cameras[0]!.framesAnalysed >= 10);

  expect(warned).toHaveLength(1);
  expect(warned[0]).toMatch(/^camera gate: GET .*"foo".* "--myboundary"; frames are read with "--myboundary" anyway \(fix the camera's firmware or stream URL so that both agree\) \[TC_ERR_SOURCE_BOUNDARY\]$/);
  expect(daemon.stats().cameras[0]!.status).not.toBe('down');
  expect(cam.requests).toHaveLength(1);
});

it('says "retrying with backoff" of the failed attempt only, not of a warning that comes before the stream is back', { timeout: 30_000 }, async () => {
  // The first request is refused; the second streams, with another boundary than declared: that warning comes
  // while the failure streak is not over yet (no frame delivered), but nothing is retried for it.
  const { daemon, warned, cam } = await startDaemon('multipart/x-mixed-replace; boundary=foo', wrongBoundaryPart, { backoffInitialMs: 10, backoffMaxMs: 40 }, 1);
  await until(() => daemon.stats().cameras[0]!.framesAnalysed >= 10);

  expect(warned, JSON.stringify(warned)).toHaveLength(2);
  expect(warned[0]).toMatch(/^camera gate: GET .* answered HTTP 503 .*\[TC_ERR_SOURCE_HTTP\]; retrying with backoff$/);
  expect(warned[1]).toMatch(/^camera gate: GET .*; frames are read with "--myboundary" anyway .*\[TC_ERR_SOURCE_BOUNDARY\]$/);
  expect(cam.requests).toHaveLength(2);
});

it('says once that every part is over maxBodyBytes, not TC_ERR_SOURCE_TOO_LARGE and TC_ERR_SOURCE_STREAM by turns', { timeout: 30_000 }, async () => {
  // Each part well over 2 x maxBodyBytes: the connection is given up for sending no frame, and made again.
  const filler = Buffer.alloc(200_000, 0x55);
  const { daemon, warned, cam } = await startDaemon(
    'multipart/x-mixed-replace; boundary=frame',
    () => Buffer.concat([Buffer.from(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${filler.length}\r\n\r\n`), filler, Buffer.from('\r\n')]),
    { maxBodyBytes: 1024, backoffInitialMs: 10, backoffMaxMs: 100 },
  );
  await until(() => cam.requests.length >= 4 && daemon.stats().cameras[0]!.source.consecutiveFailures >= 3);

  expect(warned, JSON.stringify(warned)).toHaveLength(1);
  expect(warned[0]).toMatch(/^camera gate: GET .* sent an MJPEG frame of 200000 bytes \(skipped it\), over the limit maxBodyBytes=1024; raise the camera's maxBodyBytes .*\[TC_ERR_SOURCE_TOO_LARGE\]$/);
  const camera = daemon.stats().cameras[0]!;
  expect(Object.keys(camera.source.errorsByCode)).toEqual(['TC_ERR_SOURCE_TOO_LARGE']);
  expect(camera.status).toBe('down');
  expect(camera.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^camera gate: .* sent only MJPEG frames too large to keep .*maxBodyBytes=1024.*failed attempt\(s\) in a row/)]);
});
