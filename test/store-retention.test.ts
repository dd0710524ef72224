// eventRetentionDays: the daemon deletes crossing details (the events table, about 120 bytes a crossing, which
// would otherwise grow by some 1.3 GB a year for a camera counting 30,000 vehicles a day) older than that, and
// keeps every count: the minute/hour/day roll-ups still add up to all the crossings.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon } from '../dist/src/daemon.js';
import { CountStore } from '../dist/src/store/count-store.js';
import { queryCounts } from '../dist/src/store/count-reader.js';
import { parseQueryParams } from '../dist/src/store/query-counts.js';
import { unusedPort } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

const DAY = 86_400_000;
// More than one delete batch (5,000), so that the batching is crossed too.
const OLD = 12_000;
const RECENT = 40;

function crossing(cameraId: string, timeMs: number, i: number) {
  return { cameraId, lineId: 'main', direction: i % 2 ? 'in' : 'out', timeMs, trackId: i, vehicleClass: 'car', areaPx: 800, bbox: [0, 0, 40, 20], speedPxPerS: 100, framesSeen: 5 } as const;
}

function eventTimes(db: string): { cameraId: string; timeMs: number }[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare('SELECT camera_id AS cameraId, time_ms AS timeMs FROM events').all() as { cameraId: string; timeMs: number }[];
  } finally {
    conn.close();
  }
}

it('deletes crossing details older than eventRetentionDays, of every camera in the database, and keeps all counts', { timeout: 60_000 }, async () => {
  const db = join(tempDir(), 'counts.db');
  const now = Date.now();
  const store = CountStore.open(db);
  for (const id of ['cam', 'gone']) store.registerCamera({ id, pollIntervalMs: 1000, lines: [{ id: 'main', from: [0, 1], to: [2, 1] }] });
  // 10 days old (and, for a camera no longer configured, 5 days old), and within the last hour.
  store.addEvents(Array.from({ length: OLD }, (_, i) => crossing('cam', now - 10 * DAY + i * 1000, i)));
  store.addEvents(Array.from({ length: 10 }, (_, i) => crossing('gone', now - 5 * DAY + i, i)));
  store.addEvents(Array.from({ length: RECENT }, (_, i) => crossing('cam', now - 3_600_000 + i * 1000, i)));
  store.close();
  expect(eventTimes(db)).toHaveLength(OLD + 10 + RECENT);

  const port = await unusedPort();
  const camera = { id: 'cam', url: `http://127.0.0.1:${port}/snapshot.jpg`, roi: [[0, 0], [640, 0], [640, 360], [0, 360]], lines: [{ id: 'main', from: [0, 180], to: [640, 180] }] };
  const run = async (extra: Record<string, unknown>, until: (infos: string[]) => boolean): Promise<string[]> => {
    const infos: string[] = [];
    const daemon = await Daemon.start(validateConfig({ db, cameras: [camera], ...extra }), { log: { info: (m: string) => infos.push(m), warn() {} } });
    onTestFinished(() => daemon.close());
    for (const deadline = Date.now() + 20_000; !until(infos) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    await daemon.close();
    return infos;
  };

  // By default nothing is deleted.
  expect((await run({}, () => true)).filter((m) => m.startsWith('deleted'))).toEqual([]);
  expect(eventTimes(db)).toHaveLength(OLD + 10 + RECENT);

  const infos = await run({ eventRetentionDays: 2 }, (m) => m.some((x) => x.startsWith('deleted')));
  expect(infos.filter((m) => m.startsWith('deleted')), JSON.stringify(infos)).toEqual([
    expect.stringMatching(new RegExp(`^deleted ${OLD + 10} crossing detail\\(s\\) from before \\S+ \\(eventRetentionDays 2\\); their counts stay`)),
  ]);
  const left = eventTimes(db);
  expect(left).toHaveLength(RECENT);
  expect(left.every((e) => e.cameraId === 'cam' && e.timeMs >= now - 2 * DAY)).toBe(true);

  // The counts are all there, day by day and minute by minute.
  for (const bucket of ['day', 'minute'] as const) {
    const rows = queryCounts(db, parseQueryParams({ bucket }, 'cli')) as { cameraId: string; in: number; out: number }[];
    const total = (id: string) => rows.filter((r) => r.cameraId === id).reduce((s, r) => s + r.in + r.out, 0);
    expect([bucket, total('cam'), total('gone')]).toEqual([bucket, OLD + RECENT, 10]);
  }
});

it('refuses an eventRetentionDays that is not a whole number of days from 0', () => {
  const camera = { id: 'cam', url: 'http://127.0.0.1:1/x.jpg', roi: [[0, 0], [640, 0], [640, 360], [0, 360]], lines: [{ id: 'main', from: [0, 180], to: [640, 180] }] };
  for (const bad of [-1, 1.5, '30', null]) {
    expect(() => validateConfig({ cameras: [camera], eventRetentionDays: bad })).toThrow(/^eventRetentionDays: must be an integer from 0 to 36500, got /);
  }
  expect(validateConfig({ cameras: [camera] }).eventRetentionDays).toBe(0);
});
