// A camera that answers every poll with a picture the daemon cannot use (here a JPEG cut short, the same bytes
// each time) is an outage for the counts, not a quiet road: its status says `failing` with the decoder's reason,
// also once it counts as frozen on that picture, and its uptime falls, so that the zero it counted is not read as
// zero traffic. It read `learning` and 100% uptime before (its repeated answers counted as received), and `frozen`
// past frozenAfterMs. A camera repeating a good picture is up until it counts as frozen, then down: it read 100%
// uptime with 0 vehicles for as long as it stayed frozen.
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon } from '../dist/src/daemon.js';
import { queryCounts } from '../dist/src/store/count-reader.js';
import { parseQueryParams } from '../dist/src/store/query-counts.js';
import { H, LINE_Y, W, roadFrame } from './helpers/synthetic-road.js';
import { startCamera } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

const POLL_MS = 100;

it('reports a camera whose every picture is refused as failing, with low uptime; one repeating a good picture is up until frozen', { timeout: 60_000 }, async () => {
  const whole = Buffer.from(jpeg.encode({ data: roadFrame([], 1), width: W, height: H }, 90).data);
  const cut = whole.subarray(0, whole.length >> 1);
  const good = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(whole));
  const broken = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(cut));
  // Both send one picture for good: frozen after 3 s. Frozen on a picture that cannot be analysed still reads
  // failing, with the refusal (it read frozen, "check that the camera still updates its picture", once past
  // frozenAfterMs: 30 s by default).
  const camera = (id: string, url: string) => ({
    id, url, pollIntervalMs: POLL_MS, frozenAfterMs: 3_000,
    roi: [[0, 0], [W, 0], [W, H], [0, H]], lines: [{ id: 'main', from: [0, LINE_Y], to: [W, LINE_Y] }],
  });
  const db = join(tempDir(), 'counts.db');
  const config = validateConfig({ db, cameras: [camera('good', good.url), camera('broken', broken.url)] });
  const warned: string[] = [];
  const daemon = await Daemon.start(config, { log: { info() {}, warn: (m: string) => warned.push(m) } });
  onTestFinished(() => daemon.close());

  type Health = { id: string; status: string; warnings: { message: string }[]; framesAnalysed: number };
  const byId = (id: string): Health => (daemon.stats().cameras as Health[]).find((c) => c.id === id)!;
  // Until both are frozen, and then 10 s more (STARVED_MS, which the failing status of a camera sending new
  // pictures waits for): the broken one must still read failing.
  for (const deadline = Date.now() + 40_000; byId('good').status !== 'frozen' && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 10_500));
  const brokenHealth = byId('broken');
  expect(brokenHealth.status).toBe('failing');
  expect(brokenHealth.framesAnalysed).toBe(0);
  expect(brokenHealth.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^camera broken: no frame analysed for \d+ s although the camera answers: it keeps sending one picture \(for \d+ s\), which cannot be analysed: .*camera broken/)]);
  expect(byId('good').status).toBe('frozen');
  expect(byId('good').framesAnalysed).toBe(1); // its one picture; the repeats are not analysed again
  // The decoder's error once, and once that the camera is stuck on that picture.
  expect(warned.filter((m) => m.includes('camera broken')), JSON.stringify(warned)).toEqual([
    expect.stringMatching(/camera broken.*\[TC_ERR_DECODE_CORRUPT\]; frame skipped/),
    expect.stringMatching(/^camera broken: no frame analysed for \d+ s although the camera answers: it keeps sending one picture/),
  ]);
  await daemon.close();

  const rows = queryCounts(db, parseQueryParams({ bucket: 'hour' }, 'cli')) as { cameraId: string; framesExpected: number; framesReceived: number; total: number }[];
  const sum = (id: string, k: 'framesExpected' | 'framesReceived') => rows.filter((r) => r.cameraId === id).reduce((s, r) => s + r[k], 0);
  // About 100 polls each in the 10 s or more above.
  expect(sum('good', 'framesExpected')).toBeGreaterThan(50);
  expect(sum('broken', 'framesExpected')).toBeGreaterThan(50);
  // The good camera answered its polls: up for its first 3 s (about 30 polls; a poll the machine was too slow to
  // make in its slot is expected, not received), then frozen: down for the 10 s or more after. The broken one's
  // answers are not frames: down, bar the few that came while its picture was still at the decoder.
  expect(sum('good', 'framesReceived')).toBeGreaterThan(15);
  expect(sum('good', 'framesReceived')).toBeLessThan(0.4 * sum('good', 'framesExpected'));
  expect(sum('broken', 'framesReceived')).toBeLessThan(0.2 * sum('broken', 'framesExpected'));
});
