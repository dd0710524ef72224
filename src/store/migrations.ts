// Versioned SQLite schema for the count store. The version lives in PRAGMA user_version; each
// migration runs in its own transaction, so a crash mid-upgrade leaves the previous version intact.
//
// All bucket_start_ms values are UTC: ms since the Unix epoch floored to a multiple of 60 000 (minute),
// 3 600 000 (hour) or 86 400 000 (day). Unix time has no leap seconds, so these are UTC boundaries.

import type { Database } from 'better-sqlite3';
import { StoreError } from '../errors.js';
import path from 'node:path';
import { refusedWriteFix } from './write-fix.js';

/** The count columns of every roll-up table: totals plus a split by vehicle class. */
const COUNT_COLUMNS = `
  in_count INTEGER NOT NULL DEFAULT 0,
  out_count INTEGER NOT NULL DEFAULT 0,
  in_car INTEGER NOT NULL DEFAULT 0,
  out_car INTEGER NOT NULL DEFAULT 0,
  in_heavy INTEGER NOT NULL DEFAULT 0,
  out_heavy INTEGER NOT NULL DEFAULT 0,
  in_two_wheeler INTEGER NOT NULL DEFAULT 0,
  out_two_wheeler INTEGER NOT NULL DEFAULT 0,
  in_unknown INTEGER NOT NULL DEFAULT 0,
  out_unknown INTEGER NOT NULL DEFAULT 0`;

const FRAME_COLUMNS = `
  frames_expected INTEGER NOT NULL DEFAULT 0,
  frames_received INTEGER NOT NULL DEFAULT 0,
  decode_errors INTEGER NOT NULL DEFAULT 0,
  dropped INTEGER NOT NULL DEFAULT 0,
  source_errors INTEGER NOT NULL DEFAULT 0`;
// Migration 2 adds frames_moved to every frames_ table, migration 3 monitored_ms; migration 4 adds monitored_ms,
// frames_expected, frames_received and frames_moved to every counts_ table.

function rollupTables(bucket: 'minute' | 'hour' | 'day'): string {
  return `
CREATE TABLE counts_${bucket} (
  camera_id TEXT NOT NULL,
  line_id TEXT NOT NULL,
  bucket_start_ms INTEGER NOT NULL,${COUNT_COLUMNS},
  PRIMARY KEY (camera_id, line_id, bucket_start_ms)
) WITHOUT ROWID;
CREATE INDEX counts_${bucket}_start ON counts_${bucket} (bucket_start_ms);
CREATE TABLE frames_${bucket} (
  camera_id TEXT NOT NULL,
  bucket_start_ms INTEGER NOT NULL,${FRAME_COLUMNS},
  PRIMARY KEY (camera_id, bucket_start_ms)
) WITHOUT ROWID;`;
}

/** Ordered migrations; index i upgrades user_version i to i + 1. Append only, never edit a shipped one. */
export const MIGRATIONS: readonly string[] = Object.freeze([
  // 1: cameras, lines, raw crossing events, minute/hour/day roll-ups and frame accounting.
  `
CREATE TABLE cameras (
  id TEXT PRIMARY KEY,
  poll_interval_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
-- active = 0 marks a line no longer in the configuration; its history stays queryable.
CREATE TABLE lines (
  camera_id TEXT NOT NULL REFERENCES cameras (id),
  line_id TEXT NOT NULL,
  from_x REAL NOT NULL,
  from_y REAL NOT NULL,
  to_x REAL NOT NULL,
  to_y REAL NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (camera_id, line_id)
);
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  camera_id TEXT NOT NULL,
  line_id TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
  time_ms INTEGER NOT NULL,
  -- Vehicle details are nullable: a non-finite figure from the analyzer is stored as NULL rather than
  -- failing the batch (and with it the counts).
  track_id INTEGER,
  vehicle_class TEXT,
  area_px REAL,
  bbox_x REAL,
  bbox_y REAL,
  bbox_w REAL,
  bbox_h REAL,
  speed_px_s REAL,
  frames_seen INTEGER
);
CREATE INDEX events_camera_time ON events (camera_id, time_ms);
${rollupTables('minute')}
${rollupTables('hour')}
${rollupTables('day')}
`,
  // 2: frames analysed while the camera's view did not match the one its ROI and lines were learnt on (ViewCheck):
  // the counts of such a bucket are unreliable, and a query says so.
  ['minute', 'hour', 'day'].map((b) => `ALTER TABLE frames_${b} ADD COLUMN frames_moved INTEGER NOT NULL DEFAULT 0;`).join('\n'),
  // 3: how long the bucket was monitored (the daemon running with the camera configured, whether or not it answered):
  // each expected frame adds its poll slot's length. NULL, unknown, in the rows written before: a bucket the daemon
  // ran for a minute of reads 100% uptime, and only this tells that it held a minute of traffic.
  ['minute', 'hour', 'day'].map((b) => `ALTER TABLE frames_${b} ADD COLUMN monitored_ms INTEGER;`).join('\n'),
  // 4: how long each line was monitored in the bucket, and the frames expected and received meanwhile: the poll slots
  // of its camera while the line was in the configuration. A line added at a restart within a bucket was counted for
  // part of it only, and read its camera's time and uptime for the whole (a line added at 14:00 read its day 100%
  // monitored with 10 hours counted; one added at 08:00:30 to a camera down until then read 50% uptime for its 30 s
  // of answered polls), and the frames in which the view had moved (its "view moved" share is of its own frames).
  // NULL, all four, where the line was configured all the time its camera was monitored, and in
  // the rows written before: the reader shows the camera's for them, as it did.
  ['minute', 'hour', 'day']
    .map((b) => ['monitored_ms', 'frames_expected', 'frames_received', 'frames_moved'].map((c) => `ALTER TABLE counts_${b} ADD COLUMN ${c} INTEGER;`).join('\n'))
    .join('\n'),
]);

/** The schema version this build writes and understands. */
export const SCHEMA_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Refuses a database written by a newer traffic-counter; `file` is only used in the message. */
export function checkNotNewer(db: Database, file: string): number {
  const version = schemaVersion(db);
  if (version > SCHEMA_VERSION) {
    throw new StoreError(
      `${file}: database schema version ${version} is newer than this traffic-counter understands (${SCHEMA_VERSION}); upgrade traffic-counter to read it`,
    );
  }
  return version;
}

/**
 * Refuses a SQLite database another program made (tables, and no traffic-counter schema version): `run --db app.db`
 * added the count tables to it and counted into it, without a word. Checked before the daemon changes anything in
 * the file (its journal mode included). A database of ours that never got its schema (version 0) has no tables: its
 * first migration, which makes them, sets the version in the same transaction.
 */
export function refuseForeignDatabase(db: Database, file: string): void {
  if (schemaVersion(db) !== 0) return;
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  if (tables.length === 0) return;
  const shown = tables.slice(0, 3).map((t) => JSON.stringify(t)).join(', ') + (tables.length > 3 ? `, … (${tables.length} in all)` : '');
  throw new StoreError(
    `${file}: a SQLite database of another program (its tables: ${shown}), not a traffic-counter one; give the daemon a database file of its own (--db, or "db" in the config), e.g. ${path.join(path.dirname(file), 'counts.db')}`,
  );
}

/** Applies every pending migration, each in one transaction. Safe to call on an up-to-date database. */
export function migrate(db: Database, file: string): void {
  const current = checkNotNewer(db, file);
  for (let v = current; v < SCHEMA_VERSION; v++) {
    const sql = MIGRATIONS[v];
    try {
      // BEGIN IMMEDIATE: two processes opening a fresh file at once must not both migrate it.
      db.transaction(() => {
        // Re-read inside the write lock: another process may have migrated meanwhile.
        if (schemaVersion(db) !== v) return;
        db.exec(sql);
        db.pragma(`user_version = ${v + 1}`);
      }).immediate();
    } catch (err) {
      if (err instanceof StoreError) throw err;
      const fix = refusedWriteFix(file, err) ?? 'check the file is a traffic-counter database and writable';
      throw new StoreError(`${file}: could not upgrade the database schema to version ${v + 1} (${(err as Error).message}); ${fix}`, { cause: err });
    }
  }
}
