// Stopping the daemon while it waits for a camera's answer must not read as the camera missing a frame: the
// poll our own shutdown cut short is not expected, so a camera that answered every poll reads 100% uptime in
// the minute the daemon stopped (it read 2 of 3 here, and 36 of 37 in a minute of 0.5 s polls, before).
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { queryCounts } from '../dist/src/store/count-reader.js';
import { parseQueryParams } from '../dist/src/store/query-counts.js';
import { H, LINE_Y, W, roadFrame } from './helpers/synthetic-road.js';
import { startCamera } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

// Polls a second apart: a slower answer would let the next slot pass unrequested (expected, not received: a
// camera too slow for its poll interval), which a loaded machine did at 200 ms.
const POLL_MS = 1_000;
const ANSWERED = 2;

async function stopDuringPoll(answer: 'hold' | 'fail'): Promise<{ framesExpected: number; framesReceived: number; monitoredMs: number }> {
  // Distinct images (a repeat would be skipped), answered at once; the next poll is held until the daemon closes.
  const frames = Array.from({ length: ANSWERED }, (_, i) => jpeg.encode({ data: roadFrame([], 1 + 0.02 * i), width: W, height: H }, 90).data);
  let daemon: Daemon | undefined;
  let closing: Promise<void> | undefined;
  const camera = await startCamera((_req, res, n) => {
    if (n < ANSWERED) {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(frames[n]);
    } else if (answer === 'fail') {
      res.writeHead(503).end();
    } else {
      // Stop the daemon while this request is in flight (in the same tick, long before the next slot).
      closing ??= daemon!.close();
    }
  });
  const db = join(tempDir(), 'counts.db');
  const config = validateConfig({
    cameras: [{
      id: 'cam', url: camera.url, pollIntervalMs: POLL_MS,
      roi: [[0, 0], [W, 0], [W, H], [0, H]], lines: [{ id: 'main', from: [0, LINE_Y], to: [W, LINE_Y] }],
      analyzer: { bootstrapMinFrames: 5 },
    }],
    db,
  });
  daemon = await Daemon.start(config);
  onTestFinished(() => daemon!.close());
  for (const deadline = Date.now() + 20_000; !closing && Date.now() < deadline; ) {
    // Once the daemon has taken the 503 in (a source error), not merely once the camera sent it.
    if (answer === 'fail' && daemon.stats().cameras[0]!.lastError !== null) closing = daemon.close();
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(closing, 'the camera was polled past its answered frames').toBeDefined();
  await closing;
  const rows = queryCounts(db, parseQueryParams({ bucket: 'minute' }, 'cli'));
  // The polls may straddle a minute boundary: sum the minutes.
  return {
    framesExpected: rows.reduce((s, r) => s + r.framesExpected, 0),
    framesReceived: rows.reduce((s, r) => s + r.framesReceived, 0),
    monitoredMs: rows.reduce((s, r) => s + r.monitoredMs!, 0),
  };
}

it('does not count the poll a shutdown cut short as a frame the camera missed', { timeout: 30_000 }, async () => {
  // Each expected poll stands for its second of monitored time; the one cut short takes its second back with it.
  expect(await stopDuringPoll('hold')).toEqual({ framesExpected: ANSWERED, framesReceived: ANSWERED, monitoredMs: ANSWERED * POLL_MS });
});

it('still counts a poll the camera failed as expected and not received', { timeout: 30_000 }, async () => {
  // The camera answered 503 to the third poll: that is the camera's outage, whenever the daemon stops after it.
  const { framesExpected, framesReceived, monitoredMs } = await stopDuringPoll('fail');
  expect(framesReceived).toBe(ANSWERED);
  expect(framesExpected).toBeGreaterThan(ANSWERED);
  // Monitored whether the camera answered or not.
  expect(monitoredMs).toBe(framesExpected * POLL_MS);
});
