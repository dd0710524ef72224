// Schema migrations: applied once, recorded in PRAGMA user_version, and a newer schema is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { expect, onTestFinished, test } from 'vitest';
import { CountStore, SCHEMA_VERSION, parseQueryParams, queryCounts } from '../dist/src/store/index.js';

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
