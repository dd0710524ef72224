// Closing the daemon stores the crossings its analyzers still hold (see analyzer-held-crossing.test.ts): a
// vehicle that crawled across the line just before a shutdown is counted, not lost; so are the vehicles of
// a start-up that the shutdown cut short.
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, it, onTestFinished, vi } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { queryCounts } from '../dist/src/store/count-reader.js';
import { parseQueryParams } from '../dist/src/store/query-counts.js';
import { CRAWL, H, LINE_Y, W, car, roadFrame, type Box } from './helpers/synthetic-road.js';

// The frames' capture times (X-Sim-Time): within the hour before now, as the daemon takes no stamp further from its clock.
const T0 = Math.floor((Date.now() - 1_800_000) / 1000) * 1000;
import { startCamera } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

/**
 * Serves `scene` (boxes per frame, one frame a second of camera time) to a daemon, waits until it has
 * analysed the last frame, checks what it counted by then, closes it and returns the day's stored in/out.
 */
async function runThenClose(scene: Box[][], analyzer: Record<string, number>, countedBeforeClose: { in: number; out: number }): Promise<[number, number]> {
  const frames = scene.map((boxes, t) => {
    const data = roadFrame(boxes, t % 2 ? 1.012 : 1); // no two frames in a row identical (a repeat is skipped)
    return jpeg.encode({ data, width: W, height: H }, 90).data;
  });
  // The next frame only once the daemon has analysed the one before (it polls every 20 ms and skips repeats), so
  // none is dropped however slow the machine is (wall-time pacing lost frames on a loaded machine).
  let analysed = (): number => 0;
  const camera = await startCamera((_req, res) => {
    const t = Math.min(analysed(), frames.length - 1);
    res.writeHead(200, { 'content-type': 'image/jpeg', 'x-sim-time': String(T0 + t * 1000) }).end(frames[t]);
  });
  const db = join(tempDir(), 'counts.db');
  const config = validateConfig({
    cameras: [{
      id: 'cam', url: camera.url, pollIntervalMs: 20,
      roi: [[0, 0], [W, 0], [W, H], [0, H]], lines: [{ id: 'main', from: [0, LINE_Y], to: [W, LINE_Y] }],
      analyzer,
    }],
    db,
  });
  const daemon = await Daemon.start(config);
  analysed = () => daemon.stats().cameras[0]!.framesAnalysed;
  onTestFinished(() => daemon.close());
  const last = T0 + (frames.length - 1) * 1000;
  for (const deadline = Date.now() + 60_000; daemon.stats().cameras[0]!.lastFrameAt !== last && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(daemon.stats().cameras[0]).toMatchObject({ framesAnalysed: frames.length, dropped: 0 });
  expect(daemon.stats().cameras[0]!.counts).toEqual([{ lineId: 'main', ...countedBeforeClose }]);
  await daemon.close();
  const rows = queryCounts(db, parseQueryParams({ bucket: 'day' }, 'cli')) as { in: number; out: number; total: number }[];
  // (Rows of the day it crossed in camera time, and of today, when the daemon's polls were ticked.)
  return [rows.reduce((s, r) => s + r.in, 0), rows.reduce((s, r) => s + r.out, 0)];
}

// Empty road, then a car driving down across the line at 60 px/s, then empty road.
const DRIVE_DOWN: Box[][] = [...Array.from({ length: 5 }, () => []), ...[-150, -90, -30, 30, 90, 150].map((d) => [car(LINE_Y + d)]), [], []];

it('stores a crossing still held when the daemon closes', async () => {
  // Empty road (start-up), the crawling car (CRAWL: its crossing is held), then the empty road again, served
  // from then on. It crossed ~6 s of camera time before the last frame: still held (for up to 30 s), so not
  // stored before the close.
  const scene: Box[][] = [...Array.from({ length: 10 }, () => []), ...CRAWL.map((b) => [b]), []];
  expect(await runThenClose(scene, { bootstrapMinFrames: 5 }, { in: 0, out: 0 })).toEqual([0, 1]);
});

it('stores the vehicles of a start-up that the close cut short', async () => {
  // A car driving down across the line at 60 px/s while the camera's start-up (40 frames here) still buffers
  // frames: nothing is counted before the close, which ends the start-up early and counts it.
  expect(await runThenClose(DRIVE_DOWN, { bootstrapMinFrames: 40 }, { in: 0, out: 0 })).toEqual([1, 0]);
});

it('closes the store with every count made when an analyzer fails at shutdown', async () => {
  // The car is counted while the daemon runs; then the camera's last frames cannot be analysed at close.
  const flush = vi.spyOn(CameraAnalyzer.prototype, 'flush').mockImplementation(() => {
    throw new Error('analyzer broke');
  });
  onTestFinished(() => flush.mockRestore());
  expect(await runThenClose(DRIVE_DOWN, { bootstrapMinFrames: 5 }, { in: 1, out: 0 })).toEqual([1, 0]);
  expect(flush).toHaveBeenCalled();
});
