// A database file another program made (a mistyped --db, an app's data.db): `run` added the count tables to it and
// counted into it without a word. It is refused, naming its tables and the fix, and the file is left as it was.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CountStore } from '../dist/src/store/index.js';
import { tempDir } from './helpers/temp-dir.js';

it('a SQLite database with tables of its own and no traffic-counter schema is refused and left untouched', () => {
  const dir = tempDir();
  const file = join(dir, 'app.db');
  const other = new Database(file);
  other.exec("CREATE TABLE invoices (id INTEGER); CREATE TABLE customers (name TEXT); INSERT INTO invoices VALUES (7)");
  other.close();

  expect(() => CountStore.open(file)).toThrow(
    expect.objectContaining({
      code: 'TC_ERR_STORE',
      message: `${file}: a SQLite database of another program (its tables: "customers", "invoices"), not a traffic-counter one; give the daemon a database file of its own (--db, or "db" in the config), e.g. ${join(dir, 'counts.db')}`,
    }),
  );
  const after = new Database(file, { readonly: true });
  expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual([{ name: 'customers' }, { name: 'invoices' }]);
  expect(after.pragma('journal_mode', { simple: true })).toBe('delete');
  after.close();
  expect(existsSync(`${file}-lock`)).toBe(false);
});

it('a new file and an empty SQLite file still become count databases, and ours reopen', () => {
  const dir = tempDir();
  const fresh = join(dir, 'counts.db');
  CountStore.open(fresh).close();
  CountStore.open(fresh).close();
  const empty = join(dir, 'empty.db');
  new Database(empty).close();
  CountStore.open(empty).close();
});
