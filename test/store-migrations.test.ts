// Schema migrations: applied once, recorded in PRAGMA user_version, and a newer schema is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { expect, onTestFinished, test } from 'vitest';
import { CountStore, SCHEMA_VERSION, parseQueryParams, queryCounts } from '../dist/src/store/index.js';
import { oldDatabase } from './helpers/old-database.js';

function tempDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-migrations-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'nested', 'folder', 'counts.db');
}

test('opening creates the folder, migrates to the current version, and reopening changes nothing', () => {
  const file = tempDb();
  CountStore.open(file).close();
  const schema = (): { version: number; objects: string[]; journal: string } => {
    const db = new Database(file, { readonly: true });
    try {
      return {
        version: db.pragma('user_version', { simple: true }) as number,
        objects: (db.prepare("SELECT type || ' ' || name AS o FROM sqlite_master ORDER BY o").all() as { o: string }[]).map((r) => r.o),
        journal: db.pragma('journal_mode', { simple: true }) as string,
      };
    } finally {
      db.close();
    }
  };
  const before = schema();
  expect(before.version).toBe(SCHEMA_VERSION);
  expect(before.version).toBeGreaterThan(0);
  expect(before.journal).toBe('wal');
  expect(before.objects).toContain('table events');

  // Reopen twice: migrations must not run again (a second CREATE TABLE would throw).
  CountStore.open(file).close();
  CountStore.open(file).close();
  expect(schema()).toEqual(before);
});

test('a database from a newer traffic-counter is refused with a message to upgrade', () => {
  const file = tempDb();
  CountStore.open(file).close();
  const db = new Database(file);
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();

  expect(() => CountStore.open(file)).toThrow(expect.objectContaining({ code: 'TC_ERR_STORE', message: expect.stringMatching(/newer.*upgrade traffic-counter/) }));
  expect(() => queryCounts(file, parseQueryParams({ bucket: 'hour' }, 'cli'))).toThrow(/upgrade traffic-counter/);
  // Refusing must not touch the version either.
  const check = new Database(file, { readonly: true });
  onTestFinished(() => void check.close());
  expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
});

test('a file that is not a SQLite database gives a store error naming the file', () => {
  const file = tempDb();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, 'this is not sqlite, just text that is long enough to fill a header page..........');
  expect(() => CountStore.open(file)).toThrow(expect.objectContaining({ code: 'TC_ERR_STORE', message: expect.stringContaining(file) }));
});

test('a database written before frames_moved (version 1) is read as it is, and upgraded by the daemon with its counts kept', () => {
  const file = tempDb();
  const old = oldDatabase(file, 1);
  const minute = Date.UTC(2024, 4, 1, 8, 0);
  old.prepare("INSERT INTO counts_minute (camera_id, line_id, bucket_start_ms, in_count, out_count, in_car) VALUES ('cam', 'north', ?, 7, 3, 7)").run(minute);
  old.prepare("INSERT INTO frames_minute (camera_id, bucket_start_ms, frames_expected, frames_received) VALUES ('cam', ?, 120, 90)").run(minute);
  old.close();
  const query = () => queryCounts(file, parseQueryParams({ bucket: 'minute' }, 'cli'));
  const kept = { cameraId: 'cam', lineId: 'north', in: 7, out: 3, framesReceived: 90, framesExpected: 120, uptime: 0.75 };

  // A query (read-only, never migrates) of the old file: no moved frames known.
  expect(query()).toEqual([expect.objectContaining({ ...kept, framesMoved: 0, viewMoved: 0 })]);
  const store = CountStore.open(file);
  store.addFrameTicks('cam', minute + 5_000, { received: 10, moved: 10 });
  store.close();
  expect(query()).toEqual([expect.objectContaining({ ...kept, framesReceived: 100, uptime: 100 / 120, framesMoved: 10, viewMoved: 0.1 })]);
  const db = new Database(file, { readonly: true });
  onTestFinished(() => void db.close());
  expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
});

test('a database from before each line had its monitored time and uptime (version 3): old rows read the camera\'s as before, new rows the line\'s own', () => {
  const file = tempDb();
  const old = oldDatabase(file, 3);
  // Line a counted 08:00–08:10:30 with the camera watched all that time (registered, as the daemon does), answering
  // every other poll.
  old.prepare("INSERT INTO cameras (id, poll_interval_ms, updated_ms) VALUES ('cam', 1000, 0)").run();
  old.prepare("INSERT INTO lines (camera_id, line_id, from_x, from_y, to_x, to_y) VALUES ('cam', 'a', 0, 0, 10, 0)").run();
  const minute = Date.UTC(2024, 4, 1, 8, 10);
  for (const [table, start, ms] of [['minute', minute, 30_000], ['hour', Date.UTC(2024, 4, 1, 8), 630_000], ['day', Date.UTC(2024, 4, 1), 630_000]] as const) {
    old.prepare(`INSERT INTO counts_${table} (camera_id, line_id, bucket_start_ms, in_count, in_car) VALUES ('cam', 'a', ?, 2, 2)`).run(start);
    old.prepare(`INSERT INTO frames_${table} (camera_id, bucket_start_ms, frames_expected, frames_received, monitored_ms) VALUES ('cam', ?, ?, ?, ?)`).run(start, ms / 1_000, ms / 2_000, ms);
  }
  old.close();
  const query = (bucket: string) => queryCounts(file, parseQueryParams({ bucket }, 'cli')).map((r) => [r.start.slice(11, 16), r.lineId, r.monitoredMs]);
  // Read as it is (a reader never migrates): the camera's time and uptime.
  expect(query('hour')).toEqual([['08:00', 'a', 630_000]]);
  const uptime = (bucket: string) => queryCounts(file, parseQueryParams({ bucket }, 'cli')).map((r) => [r.lineId, r.framesReceived, r.framesExpected, r.uptime]);
  expect(uptime('hour')).toEqual([['a', 315, 630, 0.5]]);

  // Upgraded at a restart at 08:10:30, with line b added: both counted to 08:12.
  const store = CountStore.open(file);
  store.registerCamera({ id: 'cam', pollIntervalMs: 1_000, lines: ['a', 'b'].map((id) => ({ id, from: [0, 0], to: [10, 0] })) });
  for (let t = minute + 30_000; t < minute + 120_000; t += 1_000) store.addFrameTicks('cam', t, { expected: 1, received: 1 });
  store.close();
  // a's rows from before read the camera's time, the whole of it, as they did; its minute from after, and all of b's, their own.
  expect(query('minute')).toEqual([['08:10', 'a', 60_000], ['08:10', 'b', 30_000], ['08:11', 'a', 60_000], ['08:11', 'b', 60_000]]);
  expect(query('hour')).toEqual([['08:00', 'a', 720_000], ['08:00', 'b', 90_000]]);
  expect(query('day')).toEqual([['00:00', 'a', 720_000], ['00:00', 'b', 90_000]]);
  // The quarter is summed from the minutes (only 08:10 was kept from before here).
  expect(query('15min')).toEqual([['08:00', 'a', 120_000], ['08:00', 'b', 90_000]]);
  // Uptime likewise: a's the camera's, over the camera's frames from before and after the upgrade; b's over its own,
  // every poll answered (it read the camera's 45 of 60 frames for 08:10, and 405 of 720 for the hour).
  expect(uptime('minute')).toEqual([['a', 45, 60, 0.75], ['b', 30, 30, 1], ['a', 60, 60, 1], ['b', 60, 60, 1]]);
  expect(uptime('hour')).toEqual([['a', 405, 720, 405 / 720], ['b', 90, 90, 1]]);
  expect(uptime('day')).toEqual([['a', 405, 720, 405 / 720], ['b', 90, 90, 1]]);
  expect(uptime('15min')).toEqual([['a', 105, 120, 105 / 120], ['b', 90, 90, 1]]);
  expect(queryCounts(file, parseQueryParams({ bucket: 'day', tz: 'Europe/Berlin' }, 'cli')).map((r) => [r.lineId, r.framesReceived, r.framesExpected])).toEqual([
    ['a', 405, 720],
    ['b', 90, 90],
  ]);
  const db = new Database(file, { readonly: true });
  onTestFinished(() => void db.close());
  expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  // a's row from before holds no time or frames of its own (NULL + its later slots): it reads the camera's.
  expect(db.prepare('SELECT line_id, monitored_ms, frames_expected, frames_received FROM counts_hour ORDER BY line_id').raw().all()).toEqual([
    ['a', null, null, null],
    ['b', 90_000, 90, 90],
  ]);
});

test('a line taken out at the upgrade from version 3 keeps its camera\'s time up to then, not the camera\'s time after it', () => {
  const file = tempDb();
  const old = oldDatabase(file, 3);
  // Lines a and b counted 08:00–08:10:30 with the camera watched all that time.
  const minute = Date.UTC(2024, 4, 1, 8, 10);
  old.prepare("INSERT INTO cameras (id, poll_interval_ms, updated_ms) VALUES ('cam', 1000, 0)").run();
  for (const id of ['a', 'b']) old.prepare("INSERT INTO lines (camera_id, line_id, from_x, from_y, to_x, to_y) VALUES ('cam', ?, 0, 0, 10, 0)").run(id);
  for (const [table, start, ms] of [['minute', minute, 30_000], ['hour', Date.UTC(2024, 4, 1, 8), 630_000], ['day', Date.UTC(2024, 4, 1), 630_000]] as const) {
    for (const id of ['a', 'b']) old.prepare(`INSERT INTO counts_${table} (camera_id, line_id, bucket_start_ms) VALUES ('cam', ?, ?)`).run(id, start);
    old.prepare(`INSERT INTO frames_${table} (camera_id, bucket_start_ms, frames_expected, frames_received, monitored_ms) VALUES ('cam', ?, ?, ?, ?)`).run(start, ms / 1_000, ms / 1_000, ms);
  }
  old.close();
  // Upgraded at a restart at 08:10:30 with line a taken out: b counted to 08:12.
  const store = CountStore.open(file);
  store.registerCamera({ id: 'cam', pollIntervalMs: 1_000, lines: [{ id: 'b', from: [0, 0], to: [10, 0] }] });
  for (let t = minute + 30_000; t < minute + 120_000; t += 1_000) store.addFrameTicks('cam', t, { expected: 1, received: 1 });
  store.close();
  const query = (bucket: string) => queryCounts(file, parseQueryParams({ bucket }, 'cli')).map((r) => [r.start.slice(11, 16), r.lineId, r.monitoredMs]);
  // a read 720,000 ms for the hour and the day (and the camera's whole day from then on) before.
  expect(query('minute')).toEqual([['08:10', 'a', 30_000], ['08:10', 'b', 60_000], ['08:11', 'b', 60_000]]);
  expect(query('hour')).toEqual([['08:00', 'a', 630_000], ['08:00', 'b', 720_000]]);
  expect(query('day')).toEqual([['00:00', 'a', 630_000], ['00:00', 'b', 720_000]]);
  // Its frames expected too: its uptime is over its own time, not over the camera's frames after it left.
  const expected = (bucket: string) => queryCounts(file, parseQueryParams({ bucket }, 'cli')).map((r) => [r.lineId, r.framesExpected]);
  expect(expected('minute')).toEqual([['a', 30], ['b', 60], ['b', 60]]);
  expect(expected('hour')).toEqual([['a', 630], ['b', 720]]);
});
