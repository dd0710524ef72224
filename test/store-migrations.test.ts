// Schema migrations: applied once, recorded in PRAGMA user_version, and a newer schema is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { expect, onTestFinished, test } from 'vitest';
import { CountStore, MIGRATIONS, SCHEMA_VERSION, parseQueryParams, queryCounts } from '../dist/src/store/index.js';

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
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const old = new Database(file);
  old.exec(MIGRATIONS[0]!);
  old.pragma('user_version = 1');
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
