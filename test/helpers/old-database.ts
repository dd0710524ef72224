// A count database as an older build left it: only the migrations up to its schema version, for upgrade tests.
import fs from 'node:fs';
import path from 'node:path';
import type { Database as Db } from 'better-sqlite3';
import { Database } from '../../dist/src/store/sqlite-driver.js';
import { MIGRATIONS } from '../../dist/src/store/index.js';

/** Opens a new database at `file` (its folder created) holding schema `version`: the first `version` migrations. */
export function oldDatabase(file: string, version: number): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  for (const sql of MIGRATIONS.slice(0, version)) db.exec(sql);
  db.pragma(`user_version = ${version}`);
  return db;
}
