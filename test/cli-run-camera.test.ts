// `run --camera URL` with no config: the daemon asks the camera for one frame to learn its size, counts it with
// a full-frame ROI and one line, and prints that config for the user to save and adapt. The config says which
// frame size its ROI and lines are in (drawnOn), so it keeps meaning the same view if the camera later comes up
// at another resolution.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnCameraSim } from '../dist/src/cli/spawn-camera-sim.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import jpegJs from 'jpeg-js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

/** The camera of the config `run --camera` printed, as loaded from a saved file. */
function printedCamera(stderr: string): ReturnType<typeof validateConfig>['cameras'][number] {
  const printed = /no config given: counting with this one[^\n]*\n(\{[^\n]*\})\n/.exec(stderr);
  expect(printed, stderr).not.toBeNull();
  return validateConfig(JSON.parse(printed![1]!)).cameras[0]!;
}

describe('run --camera URL', () => {
  it('counts the camera with a full-frame config drawn on its frame size and prints that config', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const sim = await spawnCameraSim(7);
    try {
      const db = join(dir, 'counts.db');
      const result = await runCli(['run', '--camera', `${sim.url}/snapshot.jpg`, '--db', db, '--duration', '6']);
      expect(result.code, result.stderr).toBe(0);
      // The printed config is one a user can save and load as it is.
      const camera = printedCamera(result.stderr);
      expect(camera.url).toBe(`${sim.url}/snapshot.jpg`);
      expect(camera.drawnOn).toEqual([1280, 720]);
      expect(camera.roi).toEqual([[0, 0], [1280, 0], [1280, 720], [0, 720]]);
      expect(camera.lines).toEqual([{ id: 'line', from: [0, 432], to: [1280, 432] }]);
      // It ran against the camera and stored its uptime (frames came in).
      const q = await runCli(['query', '--db', db, '--bucket', 'minute', '--format', 'json']);
      expect(q.code, q.stderr).toBe(0);
      const rows = JSON.parse(q.stdout) as { framesReceived?: number; framesExpected: number }[];
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.reduce((s, r) => s + r.framesExpected, 0)).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });

  it('gives a camera larger than the default limit (a 2688x1520 "4 MP" camera, 4.1 MP) a limit its frames fit, and decodes them', { timeout: 60_000 }, async () => {
    const [w, h] = [2688, 1520];
    const jpeg = jpegJs.encode({ data: Buffer.alloc(w * h * 4, 96), width: w, height: h }, 80).data;
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
    const result = await runCli(['run', '--camera', url, '--db', join(tempDir(), 'counts.db'), '--duration', '4']);
    expect(result.code, result.stderr).toBe(0);
    const camera = printedCamera(result.stderr);
    expect(camera.maxMegapixels).toBe(4.1);
    // Before, every frame was refused: over the limit of 4 MP, then (raised) over jpeg-js's default 64 MB.
    expect(result.stderr).not.toMatch(/TC_ERR_DECODE/);
    expect(result.stderr).toContain('2688x1520 frames, analysed at'); // said at the first frame decoded
  });

  it('names a URL it cannot use as the --camera flag, its password hidden', async () => {
    const result = await runCli(['run', '--camera', 'ftp://admin:s3cret@127.0.0.1/x.jpg', '--db', join(tempDir(), 'counts.db'), '--duration', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run: --camera: must be an http:// or https:// URL, got "ftp://admin:***@127.0.0.1/x.jpg" [TC_ERR_USAGE]');
    expect(result.stderr).not.toContain('s3cret');
  });
});

describe('run --camera URL with a frame past any limit', () => {
  it('refuses a JPEG header claiming 65000x65000 as the frame\'s fault, without printing a config it then refuses', { timeout: 60_000 }, async () => {
    // Before: the config was printed with maxMegapixels 4225 and refused itself as a config error (exit 2).
    const jpeg = Buffer.from(jpegJs.encode({ data: Buffer.alloc(64 * 48 * 4, 96), width: 64, height: 48 }, 80).data);
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    jpeg.writeUInt16BE(65000, sof + 5);
    jpeg.writeUInt16BE(65000, sof + 7);
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
    const result = await runCli(['run', '--camera', url, '--db', join(tempDir(), 'counts.db'), '--duration', '4']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain('no config given');
    expect(result.stderr).not.toContain('TC_ERR_CONFIG');
    expect(result.stderr).toContain(`--camera ${url}: its frame's JPEG header claims 65000x65000 (4225.0 MP), over the 100 MP traffic-counter decodes`);
    expect(result.stderr).toContain('[TC_ERR_DECODE_TOO_LARGE]');
  });
});
