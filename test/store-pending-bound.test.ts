// While writes fail, pending counts stay in memory: their per-minute buckets are bounded (minutes older than a day are
// folded into their hour, hours older than 31 days into their day) and no count is lost once writes work again.
import path from 'node:path';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { expect, onTestFinished, test } from 'vitest';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { tempDir } from './helpers/temp-dir.js';
import { lockWrites } from './helpers/write-lock.js';
import { CountStore, type StoreTrouble } from '../dist/src/store/index.js';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

function tempDb(): string {
  return path.join(tempDir('tc-pending-bound-'), 'counts.db');
}

test('40 days of failing writes keep at most a day of minutes and 31 days of hours pending, and every day total, and every hour of the last 31 days, is written after', () => {
  const file = tempDb();
  const said: [StoreTrouble, string][] = [];
  const store = CountStore.open(file, { flushIntervalMs: 3_600_000, busyTimeoutMs: 20, onError: (e, what) => said.push([what, e.message]) });
  onTestFinished(() => store.close());
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines: [{ id: 'a', from: [0, 0], to: [10, 10] }, { id: 'b', from: [0, 10], to: [10, 0] }] });
  const release = lockWrites(file);
  const t0 = Date.UTC(2026, 0, 1, 0, 0);
  const days = 40;
  // What was fed, per line and hour / day: in, out.
  const fed = { hour: new Map<string, [number, number]>(), day: new Map<string, [number, number]>() };
  const add = (m: Map<string, [number, number]>, key: string, dir: 'in' | 'out'): void => {
    const v = m.get(key) ?? [0, 0];
    v[dir === 'in' ? 0 : 1]++;
    m.set(key, v);
  };
  let maxPending = 0;
  let n = 0;
  for (let t = t0; t < t0 + days * DAY; t += MIN) {
    store.addFrameTicks('cam1', t, { expected: 60, received: 59 });
    const minute = (t - t0) / MIN;
    if (minute % 7 === 0 || minute % 11 === 0) {
      const e: CrossingEvent = {
        cameraId: 'cam1', lineId: minute % 2 === 0 ? 'a' : 'b', direction: minute % 3 === 0 ? 'out' : 'in', timeMs: t + 5_000,
        trackId: n++, vehicleClass: 'car', areaPx: 500, bbox: [0, 0, 10, 10], speedPxPerS: 20, framesSeen: 4,
      };
      store.addEvents([e]);
      add(fed.hour, `${e.lineId} ${Math.floor(t / HOUR) * HOUR}`, e.direction);
      add(fed.day, `${e.lineId} ${Math.floor(t / DAY) * DAY}`, e.direction);
    }
    if (minute % 1440 === 0) expect(() => store.flush()).toThrow(/kept and retried/); // the timer's flushes, failing
    maxPending = Math.max(maxPending, store.stats().pendingBuckets);
  }
  // Per series (2 lines and the camera's frames): 1,500 minutes (25 h) + 768 hours (32 days) + one day per day.
  expect(maxPending).toBeLessThanOrEqual(3 * (1_500 + 768 + days));
  expect(store.stats()).toMatchObject({ pendingEvents: n, eventDetailsDropped: 0 });
  // Said once per fold, naming what is kept.
  const folds = said.filter(([what]) => what === 'resolution').map(([, m]) => m);
  expect(folds).toEqual([expect.stringMatching(/minute buckets older than 24 h are folded into their hours .*every count is kept/), expect.stringMatching(/hour buckets older than 31 days are folded into their days/)]);

  release();
  store.flush();
  expect(store.stats()).toMatchObject({ pendingEvents: 0, pendingBuckets: 0 });
  const db = new Database(file, { readonly: true });
  onTestFinished(() => void db.close());
  const rows = (bucket: string): Map<string, [number, number]> => {
    const r = db.prepare(`SELECT line_id, bucket_start_ms, in_count, out_count FROM counts_${bucket} WHERE in_count + out_count > 0`).all() as {
      line_id: string; bucket_start_ms: number; in_count: number; out_count: number;
    }[];
    return new Map(r.map((x) => [`${x.line_id} ${x.bucket_start_ms}`, [x.in_count, x.out_count]]));
  };
  expect(rows('day')).toEqual(fed.day);
  // Hours: those of the last 31 days written as fed; the outage's first days only in their day rows (folded).
  const hours = rows('hour');
  const end = t0 + days * DAY;
  for (const [key, v] of fed.hour) {
    const at = Number(key.split(' ')[1]);
    if (at >= end - 31 * DAY) expect([key, hours.get(key)]).toEqual([key, v]);
    else if (at < end - 32 * DAY) expect(hours.has(key)).toBe(false);
    else if (hours.has(key)) expect([key, hours.get(key)]).toEqual([key, v]);
  }
  for (const key of hours.keys()) expect(fed.hour.has(key)).toBe(true);
  expect(db.prepare('SELECT COUNT(*) FROM events').pluck().get()).toBe(n);
  // Uptime: every hour and day monitored in full; the last day's minutes kept their rows.
  const frames = db.prepare('SELECT COUNT(*) AS k, SUM(frames_expected) AS e, SUM(frames_received) AS r, SUM(monitored_ms) AS m FROM frames_day').get();
  expect(frames).toEqual({ k: days, e: days * 1440 * 60, r: days * 1440 * 59, m: days * DAY });
  expect(db.prepare('SELECT MIN(monitored_ms) FROM frames_hour').pluck().get()).toBe(HOUR);
  expect(db.prepare('SELECT COUNT(*) FROM frames_hour WHERE bucket_start_ms >= ?').pluck().get(end - 31 * DAY)).toBe(31 * 24);
  // The lines' rows read their camera's monitored time: the whole day.
  expect(db.prepare("SELECT COUNT(*) FROM counts_day WHERE line_id IN ('a', 'b')").pluck().get()).toBe(2 * days);
  const lastMinute = t0 + days * DAY - MIN;
  expect(db.prepare('SELECT COUNT(*) FROM frames_minute WHERE bucket_start_ms > ?').pluck().get(lastMinute - DAY)).toBe(1440);
});
