// A change of frame size counts the start-up it cuts short (CameraAnalyzer.resize); the frames of that start-up are
// then received, stored with the next flush. They were held for the new start-up instead: a camera that changed size
// again before each start-up ended (a feed cycling between two views of different sizes) had every frame held until
// the daemon stopped, its stored minutes reading 0% uptime beside the counts of those frames, all lost to a kill -9.
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { queryCounts } from '../dist/src/store/count-reader.js';
import { parseQueryParams } from '../dist/src/store/query-counts.js';
import { startCamera } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

/** A grey JPEG of w x h, a little brighter each time (a repeated image would be skipped). */
function greyJpeg(w: number, h: number, n: number): Uint8Array {
  return jpeg.encode({ data: new Uint8Array(w * h * 4).fill(100 + (n % 50)), width: w, height: h }, 90).data;
}

it('stores the frames of a start-up that a change of frame size cut short as received while the daemon runs', { timeout: 60_000 }, async () => {
  // 640x360 and 1280x720 (the same shape) by turns, four frames each: no start-up (8 s, 20 frames) ever ends.
  const camera = await startCamera((_req, res, n) => {
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Math.floor(n / 4) % 2 ? greyJpeg(1280, 720, n) : greyJpeg(640, 360, n));
  });
  const db = join(tempDir(), 'counts.db');
  const config = validateConfig({
    cameras: [{ id: 'cam', url: camera.url, pollIntervalMs: 100, drawnOn: [640, 360], roi: [[0, 0], [640, 0], [640, 360], [0, 360]], lines: [{ id: 'l', from: [0, 180], to: [640, 180] }] }],
    db,
  });
  const daemon = await Daemon.start(config, { log: { info: () => {}, warn: () => {} } });
  onTestFinished(() => daemon.close());
  for (const deadline = Date.now() + 30_000; daemon.stats().cameras[0]!.framesAnalysed < 24 && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(daemon.stats().cameras[0]!.framesAnalysed).toBeGreaterThanOrEqual(24);
  expect(daemon.stats().cameras[0]!.status).toBe('learning');
  daemon.flush();
  const rows = queryCounts(db, parseQueryParams({ bucket: 'day' }, 'cli')) as { framesReceived: number }[];
  // Every start-up but the one under way was cut short and counted: at least 4 frames for each of them.
  expect(rows[0]!.framesReceived).toBeGreaterThanOrEqual(12);
});
