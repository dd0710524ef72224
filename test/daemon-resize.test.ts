// A camera whose frames change shape while the daemon runs (640x360 → 640x480: perhaps cropped, perhaps
// stretched) keeps its ROI and lines as drawn: the log says so once, and the camera's health carries the warning
// (what to redraw, and where in the config) for as long as it lasts.
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { startCamera } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

/** A grey JPEG of w x h, a little brighter each time (a repeated image would be skipped). */
function greyJpeg(w: number, h: number, n: number): Uint8Array {
  return jpeg.encode({ data: new Uint8Array(w * h * 4).fill(100 + (n % 50)), width: w, height: h }, 90).data;
}

it('warns once in the log and in health while frames have another shape than the ROI was drawn on', { timeout: 30_000 }, async () => {
  // 640x360 until the daemon has analysed three of them (a frame the channel dropped under load would not count),
  // then 640x480.
  let analysed = (): number => 0;
  const camera = await startCamera((_req, res, n) => {
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(analysed() < 3 ? greyJpeg(640, 360, n) : greyJpeg(640, 480, n));
  });
  const warned: string[] = [];
  const config = validateConfig({
    cameras: [{ id: 'cam', url: camera.url, pollIntervalMs: 50, roi: [[0, 0], [640, 0], [640, 360], [0, 360]], lines: [{ id: 'l', from: [0, 180], to: [640, 180] }] }],
    db: join(tempDir(), 'counts.db'),
  });
  const daemon = await Daemon.start(config, { log: { info: () => {}, warn: (m: string) => warned.push(m) } });
  onTestFinished(() => daemon.close());
  analysed = () => daemon.stats().cameras[0]!.framesAnalysed;
  for (const deadline = Date.now() + 20_000; analysed() < 8 && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const cam = daemon.stats().cameras[0]!;
  expect(cam.framesAnalysed).toBeGreaterThanOrEqual(8);
  const told = /camera cam: frames changed size from 640x360 to 640x480: another shape .*redraw them on a frame of this size \(cameras\[0\]\)/;
  expect(warned.filter((m) => told.test(m))).toHaveLength(1);
  expect(cam.warnings.map((w) => w.message)).toEqual(expect.arrayContaining([expect.stringMatching(told)]));
  // Still analysed (the ROI fits in the taller frame): the frames were not refused.
  expect(cam.analyzerErrors).toBe(0);
});
