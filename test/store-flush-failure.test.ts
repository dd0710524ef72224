// A failed flush (database locked, disk full...) keeps the batch; a later flush writes it, exactly once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { expect, onTestFinished, test } from 'vitest';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { lockWrites } from './helpers/write-lock.js';
import { CountStore, parseQueryParams } from '../dist/src/store/index.js';

function tempDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-flushfail-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'counts.db');
}

function ev(trackId: number, timeMs: number): CrossingEvent {
  return { cameraId: 'cam1', lineId: 'a', direction: 'in', timeMs, trackId, vehicleClass: 'car', areaPx: 500, bbox: [0, 0, 10, 10], speedPxPerS: 20, framesSeen: 4 };
}

test('a flush that fails keeps events and frame ticks, and the next flush writes them once', () => {
  const file = tempDb();
  const errors: Error[] = [];
  const store = CountStore.open(file, { flushIntervalMs: 3_600_000, busyTimeoutMs: 20, onError: (e) => errors.push(e) });
  onTestFinished(() => store.close());
  const t = Date.UTC(2024, 8, 1, 6, 0);
  store.addEvents([ev(1, t), ev(2, t + 1000)]);
  store.addFrameTicks('cam1', t, { expected: 60, received: 60 });

  const release = lockWrites(file);
  expect(() => store.flush()).toThrow(expect.objectContaining({ code: 'TC_ERR_STORE', message: expect.stringMatching(/kept and retried/) }));
  expect(store.stats()).toMatchObject({ pendingEvents: 2, failedFlushes: 1 });
  store.addEvents([ev(3, t + 2000)]); // arrives while the database is still locked
  release();

  store.flush();
  expect(store.stats()).toMatchObject({ pendingEvents: 0, pendingBuckets: 0 });
  store.flush(); // nothing pending: must not add anything again
  const rows = store.query(parseQueryParams({ bucket: 'minute' }, 'cli'));
  expect(rows).toEqual([expect.objectContaining({ in: 3, framesExpected: 60, framesReceived: 60 })]);
  const db = new Database(file, { readonly: true });
  onTestFinished(() => void db.close());
  expect(db.prepare('SELECT track_id FROM events ORDER BY track_id').pluck().all()).toEqual([1, 2, 3]);
  expect(errors).toEqual([]); // explicit flush() throws; onError is for automatic flushes
});

test('automatic flushes report failures through onError and catch up later', async () => {
  const file = tempDb();
  const errors: Error[] = [];
  const store = CountStore.open(file, { flushIntervalMs: 10, busyTimeoutMs: 5, onError: (e) => errors.push(e) });
  onTestFinished(() => store.close());
  const release = lockWrites(file);
  store.addEvents([ev(1, Date.UTC(2024, 8, 1))]);
  await expect.poll(() => errors.length, { timeout: 5_000 }).toBeGreaterThan(0);
  expect(errors[0]).toMatchObject({ code: 'TC_ERR_STORE' });
  release();
  await expect.poll(() => store.stats().pendingEvents, { timeout: 5_000 }).toBe(0);
  expect(store.totals()).toEqual([{ cameraId: 'cam1', lineId: 'a', in: 1, out: 0 }]);
});

test('past maxPendingEvents the oldest event details are dropped but every count is kept', () => {
  const file = tempDb();
  const errors: Error[] = [];
  const store = CountStore.open(file, { flushIntervalMs: 3_600_000, maxBatch: 5, maxPendingEvents: 5, busyTimeoutMs: 5, onError: (e) => errors.push(e) });
  onTestFinished(() => store.close());
  const t = Date.UTC(2024, 8, 1, 6, 0);
  const release = lockWrites(file);
  for (let i = 0; i < 12; i++) store.addEvents([ev(i, t + i * 1000)]);
  expect(store.stats()).toMatchObject({ pendingEvents: 5, eventDetailsDropped: 7 });
  expect(errors.some((e) => /dropped .*event detail.*counts are kept/.test(e.message))).toBe(true);
  release();
  store.flush();

  expect(store.query(parseQueryParams({ bucket: 'minute' }, 'cli'))[0]).toMatchObject({ in: 12 });
  const db = new Database(file, { readonly: true });
  onTestFinished(() => void db.close());
  // The newest details survive.
  expect(db.prepare('SELECT track_id FROM events ORDER BY track_id').pluck().all()).toEqual([7, 8, 9, 10, 11]);
});

test('close() with the database locked reports what was not written and still closes', () => {
  const file = tempDb();
  const store = CountStore.open(file, { busyTimeoutMs: 5, onError: () => {} });
  const t = Date.UTC(2024, 8, 1);
  store.addEvents([ev(1, t), ev(2, t + 61_000), { ...ev(3, t + 30_000), direction: 'out' }, { ...ev(4, t), lineId: 'b' }]);
  lockWrites(file);
  // Which counts are lost, not only how many: the log is the only record of them once the store is closed.
  expect(() => store.close()).toThrow(
    'closed without writing 4 events and 3 pending buckets (database is locked); check disk space and that no other process holds a write lock. Counts not written: ' +
      'camera cam1 line a: in 2, out 1 (2024-09-01T00:00:00.000Z to 2024-09-01T00:02:00.000Z); ' +
      'camera cam1 line b: in 1, out 0 (2024-09-01T00:00:00.000Z to 2024-09-01T00:01:00.000Z)',
  );
  expect(store.closed).toBe(true);
  expect(() => store.close()).not.toThrow();
});
