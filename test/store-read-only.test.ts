// A database the daemon may not write (a file of another user, a read-only mount, chmod a-w): the error names that,
// and the fix (make it writable), not disk space or another process's lock, which cannot help.
import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { CountStore, writeFix } from '../dist/src/store/count-store.js';
import { tempDir } from './helpers/temp-dir.js';

const camera = { id: 'cam1', pollIntervalMs: 500, lines: [{ id: 'l1', from: [0, 10] as const, to: [100, 10] as const }] };

/** Makes the file read-only for this process (chattr +i for root, who ignores the mode); false where that cannot be done. */
function makeReadOnly(file: string): boolean {
  if (process.getuid?.() !== 0) {
    chmodSync(file, 0o444);
    return true;
  }
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
  } catch {
    return false;
  }
  onTestFinished(() => {
    execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
  });
  return true;
}

test('a read-only file or mount is told as such, with its fix; other failures keep the general advice', () => {
  const fix = writeFix('/data/counts.db', Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }));
  expect(fix).toMatch(/^the database is read-only: make \/data\/counts\.db, its -wal and -shm files and its folder writable/);
  expect(writeFix('/data/counts.db', Object.assign(new Error('x'), { code: 'SQLITE_READONLY_DBMOVED' }))).toMatch(/read-only/);
  expect(writeFix('/data/counts.db', Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }))).toBe('check disk space and that no other process holds a write lock');
  expect(writeFix('/data/counts.db', new Error('no code'))).toBe('check disk space and that no other process holds a write lock');
});

test('run on a read-only database stops at the camera\'s registration, naming the file and how to make it writable', (ctx) => {
  const db = join(tempDir(), 'counts.db');
  CountStore.open(db).close();
  if (!makeReadOnly(db)) ctx.skip();
  const store = CountStore.open(db);
  onTestFinished(() => store.close());
  expect(() => store.registerCamera(camera)).toThrow(`${db}: could not register camera cam1 (attempt to write a readonly database); the database is read-only: make ${db}`);
});

test('a read-only -shm file left beside a writable database is named, not only the database file', (ctx) => {
  // What a run on a chmod a-w database leaves behind: SQLite makes the -shm file with the database file's mode, so
  // after chmod u+w of the database alone the next run failed again, told to make the file writable as before.
  const db = join(tempDir(), 'counts.db');
  CountStore.open(db).close();
  writeFileSync(`${db}-shm`, Buffer.alloc(32_768));
  if (!makeReadOnly(`${db}-shm`)) ctx.skip();
  let message = '';
  try {
    const store = CountStore.open(db);
    onTestFinished(() => store.close());
    store.registerCamera(camera);
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toMatch(/attempt to write a readonly database/);
  expect(message).toContain(`the database is read-only: make ${db}-shm writable by the user the daemon runs as (it is not), or the mount read-write`);
});
