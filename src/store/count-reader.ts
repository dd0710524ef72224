// Read-only access to a count database for queries (CLI, HTTP API). Opens lazily, so an HTTP server can
// start before the daemon has created the file, and never creates or migrates anything.

import fs from 'node:fs';
import path from 'node:path';
import { Database } from './sqlite-driver.js';
import type { Database as Db, Statement } from 'better-sqlite3';
import { QueryError, StoreError } from '../errors.js';
import { checkNotNewer, schemaVersion } from './migrations.js';
import { BUCKET_MS, CLASS_COLUMNS, classColumn, echo, paramName, type CountRow, type QueryBucket, type QueryOptions, type QueryParams } from './query-counts.js';
import { VEHICLE_CLASSES } from '../analyze/analyzer-types.js';
import { TimeZone } from './time-zone.js';

interface RawRow {
  camera_id: string;
  line_id: string;
  bucket_start_ms: number;
  in_count: number;
  out_count: number;
  /** The line's own or its camera's, as monitored_ms (see countSql); null where the camera has no frames row. */
  frames_received: number | null;
  frames_expected: number | null;
  /** As frames_received: the line's own or its camera's (see countSql). */
  frames_moved: number | null;
  /**
   * The line's own, or its camera's where the line holds none (counted for all the camera's time, or a row written
   * before schema version 4); null when unknown: written before version 3, or no frame accounting (see countSql).
   */
  monitored_ms: number | null;
  /** The CLASS_COLUMNS, by name. */
  [classColumn: string]: number | string | null;
}

/** A 15-minute bucket in ms: buckets start at multiples of it since the Unix epoch (UTC quarter hours). */
const QUARTER_MS = 900_000;

/** Each bucket's length: the stored ones' and the quarter hour summed from minutes. */
const LENGTH_MS: Readonly<Record<QueryBucket, number>> = { ...BUCKET_MS, '15min': QUARTER_MS };

// Stored buckets (minute, hour, day): every stored (camera, line, bucket) row, as it is. The store writes a zero row
// for each active line in every bucket where the camera was monitored, so quiet buckets and outages appear with their
// uptime. 15-minute buckets: the minute roll-up's rows summed per quarter hour (its counts, classes and frames),
// filtered by the quarter's start like the stored buckets are by theirs (each with a bound on the minute's own start
// too, which the table's index can serve). Minute rows are written for every monitored minute, so a quarter's frames
// add up to its uptime. A database of schema version 1 (before frames_moved) or 2 (before monitored_ms) is read as it
// is: a reader never migrates, the daemon does. monitored_ms is NULL, unknown, where a row has none (written before
// version 3, or no frames row at all), and so is a quarter's sum if any of its minutes is: never a part read as the
// whole.
//
// Whose monitored time, uptime and view-moved share (version 4): a line's row holds its own monitored_ms,
// frames_expected, frames_received and frames_moved (c.) only where the line was not in the configuration for all the
// time its camera was monitored in the bucket (added, taken out or put back at a restart within it; see CountStore's
// lineMonitored); otherwise NULL, and it reads the camera's (f.), as every row written before version 4 does (the
// store's registerCamera keeps the camera's up to then in the rows of a line taken out). So a line's uptime is over
// the time it was monitored: a line added at 08:00:30 to a camera down until then reads 100% for its 30 s, not the
// camera's 50%. Which one is told per row by c.frames_expected (OWN, as the store tells it), for all four columns; a
// 15-minute or local sum adds each minute's or hour's as chosen there.
// Where the camera's time is unknown (no frames row, or a camera not registered), so is the line's. The other frame
// columns (decode errors, drops and source errors, not read here) are the camera's only.
const OWN = 'c.frames_expected IS NOT NULL';

function monitoredMs(version: number): string {
  if (version < 3) return 'NULL';
  if (version < 4) return 'f.monitored_ms';
  return `CASE WHEN NOT (${OWN}) THEN f.monitored_ms WHEN f.monitored_ms IS NOT NULL THEN c.monitored_ms END`;
}

/** A line's frames expected, received or moved: its own where its row holds them (version 4), else its camera's. */
function lineFrames(column: 'frames_expected' | 'frames_received' | 'frames_moved', version: number): string {
  return version < 4 ? `f.${column}` : `CASE WHEN ${OWN} THEN c.${column} ELSE f.${column} END`;
}

function countSql(bucket: QueryBucket, version: number): string {
  const quarter = bucket === '15min';
  const table = quarter ? 'minute' : bucket;
  const start = quarter ? `(c.bucket_start_ms / ${QUARTER_MS}) * ${QUARTER_MS}` : 'c.bucket_start_ms';
  const value = (column: string, as: string): string => `${quarter ? `SUM(${column})` : column} AS ${as}`;
  const from = quarter ? `c.bucket_start_ms >= @from AND ${start} >= @from` : `${start} >= @from`;
  const to = quarter ? `c.bucket_start_ms < @to + ${QUARTER_MS} AND ${start} < @to` : `${start} < @to`;
  return `
SELECT c.camera_id, c.line_id, ${start} AS bucket_start_ms, ${value('c.in_count', 'in_count')}, ${value('c.out_count', 'out_count')},
       ${CLASS_COLUMNS.map((col) => value(`c.${col}`, col)).join(', ')},
       ${value(lineFrames('frames_received', version), 'frames_received')}, ${value(lineFrames('frames_expected', version), 'frames_expected')},
       ${version >= 2 ? value(lineFrames('frames_moved', version), 'frames_moved') : '0 AS frames_moved'},
       ${quarter && version >= 3 ? `CASE WHEN COUNT(*) = COUNT(${monitoredMs(version)}) THEN SUM(${monitoredMs(version)}) END` : monitoredMs(version)} AS monitored_ms
FROM counts_${table} c
LEFT JOIN frames_${table} f ON f.camera_id = c.camera_id AND f.bucket_start_ms = c.bucket_start_ms
WHERE (@camera IS NULL OR c.camera_id = @camera)
  AND (@line IS NULL OR c.line_id = @line)
  AND (@from IS NULL OR (${from}))
  AND (@to IS NULL OR (${to}))
${quarter ? `GROUP BY c.camera_id, c.line_id, ${start}\n` : ''}ORDER BY bucket_start_ms, c.camera_id, c.line_id
LIMIT @limit`;
}

const MAX_LISTED_IDS = 20;

function listIds(ids: readonly string[]): string {
  const shown = ids.slice(0, MAX_LISTED_IDS).map((id) => JSON.stringify(id)).join(', ');
  return ids.length > MAX_LISTED_IDS ? `${shown}, ... (${ids.length} in all)` : shown;
}

/**
 * A query for a camera or line the database has never had answers nothing, as a quiet camera would: refused
 * instead (a typo, or the wrong --db), naming the ids it has. They come from the cameras and lines the daemon
 * registers and from the day roll-ups (whatever wrote the counts).
 */
function checkKnownIds(db: Db, file: string, params: QueryParams, source: 'cli' | 'http'): void {
  if (params.cameraId !== undefined) {
    const cameras = db.prepare('SELECT id FROM cameras UNION SELECT camera_id FROM counts_day ORDER BY 1').pluck().all() as string[];
    if (!cameras.includes(params.cameraId)) {
      const has = cameras.length > 0 ? `its cameras are ${listIds(cameras)}` : 'it has no camera yet (the daemon adds its cameras when it starts)';
      throw new QueryError(`${paramName('camera', source)} ${echo(params.cameraId)}: no such camera in ${file}; ${has}`);
    }
  }
  if (params.lineId !== undefined) {
    const camera = params.cameraId ?? null;
    const lines = db
      .prepare('SELECT line_id FROM lines WHERE @camera IS NULL OR camera_id = @camera UNION SELECT line_id FROM counts_day WHERE @camera IS NULL OR camera_id = @camera ORDER BY 1')
      .pluck()
      .all({ camera }) as string[];
    if (!lines.includes(params.lineId)) {
      const where = camera === null ? `no camera in ${file} has such a line` : `camera ${echo(camera)} has no such line in ${file}`;
      const has = lines.length > 0 ? `the lines are ${listIds(lines)}` : 'it has no line yet';
      throw new QueryError(`${paramName('line', source)} ${echo(params.lineId)}: ${where}; ${has}`);
    }
  }
}

/** The error for an answer over QueryOptions.maxRows. */
function tooManyRows(maxRows: number): QueryError {
  return new QueryError(`the query matches more than ${maxRows} rows; narrow it with from/to, camera or line, or use a coarser bucket (hour, day)`);
}

/** Runs a count query on an open connection (read-only or the writer's own). */
export function selectCountRows(db: Db, params: QueryParams, opts: QueryOptions = {}, cache?: Map<string, Statement>): CountRow[] {
  // The daemon may migrate the file while a reader holds it open: the version is read at each query.
  const version = schemaVersion(db);
  const statement = (bucket: QueryBucket): Statement => {
    const key = `${bucket} ${version}`;
    let stmt = cache?.get(key);
    if (!stmt) {
      stmt = db.prepare(countSql(bucket, version));
      cache?.set(key, stmt);
    }
    return stmt;
  };
  const args = (toMs: number | undefined, limit: number) => ({ camera: params.cameraId ?? null, line: params.lineId ?? null, from: params.fromMs ?? null, to: toMs ?? null, limit });
  const maxRows = opts.maxRows;
  const length = LENGTH_MS[params.bucket];
  if (params.timeZone !== 'UTC') {
    const zone = new TimeZone(params.timeZone);
    const rows = localRows((bucket, toMs) => statement(bucket).iterate(args(toMs, -1)) as IterableIterator<RawRow>, zone, params, maxRows);
    // A local bucket's real length: a day of 23 or 25 hours, an hour cut short where the clocks change. The rows come
    // by start, a camera and line after another: each start's end is worked out once.
    let start = Number.NaN;
    let end = Number.NaN;
    return rows.map((r) => {
      if (r.bucket_start_ms !== start) {
        start = r.bucket_start_ms;
        end = zone.bucketEnd(length, start);
      }
      return countRow(r, params.bucket, zone.iso(start), end - start);
    });
  }
  // One more than allowed, to tell "exactly the limit" from "too many". Row by row, so that a worker running the
  // query (the HTTP API's) can be terminated between rows rather than only at the end.
  const rows: CountRow[] = [];
  for (const r of statement(params.bucket).iterate(args(params.toMs, maxRows === undefined ? -1 : maxRows + 1)) as IterableIterator<RawRow>) {
    if (maxRows !== undefined && rows.length === maxRows) throw tooManyRows(maxRows);
    rows.push(countRow(r, params.bucket, new Date(r.bucket_start_ms).toISOString(), length));
  }
  return rows;
}

/**
 * Where a local bucket's counts come from, and how long it can be. Hours and days: the hour roll-up where the zone's
 * offset is whole hours (most zones), 15-minute sums where it is not (India, Nepal, Newfoundland, parts of
 * Australia). A local day is 25 hours at most (the clocks falling back).
 */
const LOCAL_BUCKET: Readonly<Record<QueryBucket, { readonly sources: readonly QueryBucket[]; readonly maxMs: number }>> = {
  minute: { sources: ['minute'], maxMs: LENGTH_MS.minute },
  '15min': { sources: ['15min'], maxMs: LENGTH_MS['15min'] },
  hour: { sources: ['hour', '15min'], maxMs: LENGTH_MS.hour },
  day: { sources: ['hour', '15min'], maxMs: 25 * LENGTH_MS.hour },
};

/**
 * A query in a time zone other than UTC: the stored UTC rows (or 15-minute sums) summed per local bucket, which
 * their starts fall on as long as the zone's offset is a whole number of their length. Filtered, like the stored
 * buckets, by the bucket's start: a local bucket starting before `from`, or at or after `to`, is left out whole.
 * Read row by row, so memory holds the answer only (bounded by maxRows over HTTP).
 */
function localRows(
  select: (bucket: QueryBucket, toMs: number | undefined) => IterableIterator<RawRow>,
  zone: TimeZone,
  params: QueryParams,
  maxRows: number | undefined,
): RawRow[] {
  const local = LOCAL_BUCKET[params.bucket];
  const { fromMs, toMs } = params;
  for (const source of local.sources) {
    const groups = new Map<string, RawRow>();
    let odd: RawRow | undefined;
    let read = false;
    // Rows up to a bucket's length past `to` hold the end of the local buckets starting before it.
    for (const r of select(source, toMs === undefined ? undefined : toMs + local.maxMs)) {
      read = true;
      // The source's rows fit the local buckets while the offset is a whole number of their length.
      if ((zone.offset(r.bucket_start_ms) * 60_000) % LENGTH_MS[source] !== 0) {
        odd = r;
        break;
      }
      const start = zone.bucketStart(LENGTH_MS[params.bucket], r.bucket_start_ms);
      if ((fromMs !== undefined && start < fromMs) || (toMs !== undefined && start >= toMs)) continue;
      const key = `${start} ${r.camera_id} ${r.line_id}`;
      const sum = groups.get(key);
      if (sum !== undefined) {
        for (const col of SUMMED) sum[col] = ((sum[col] as number | null) ?? 0) + ((r[col] as number | null) ?? 0);
        // Unknown in any piece is unknown in the whole, as in a quarter's sum (countSql).
        sum.monitored_ms = sum.monitored_ms === null || r.monitored_ms === null ? null : sum.monitored_ms + r.monitored_ms;
        continue;
      }
      groups.set(key, { ...r, bucket_start_ms: start });
      if (maxRows !== undefined && groups.size > maxRows) throw tooManyRows(maxRows);
    }
    // No row at all is no proof that the source fits: an hour of India from 10:00 (04:30 UTC) found no UTC hour starting
    // in it and answered nothing, though quarters starting in it held counts.
    if ((odd !== undefined || !read) && source !== local.sources.at(-1)) continue;
    if (odd !== undefined) {
      throw new QueryError(
        `tz: ${zone.name} is ${zone.offset(odd.bucket_start_ms)} min from UTC at ${zone.iso(odd.bucket_start_ms)}, not a whole number of quarter hours, so counts stored per UTC quarter hour cannot be summed into its local ${params.bucket}s; query in UTC (the default)`,
      );
    }
    return [...groups.values()].sort((a, b) => a.bucket_start_ms - b.bucket_start_ms || cmp(a.camera_id, b.camera_id) || cmp(a.line_id, b.line_id));
  }
  return [];
}

const SUMMED: readonly string[] = ['in_count', 'out_count', ...CLASS_COLUMNS, 'frames_received', 'frames_expected', 'frames_moved'];

/** SQLite's BINARY order for the ids (ASCII), as the stored buckets are ordered. */
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `spanMs`: the bucket's whole length, its monitored time's denominator, also for the bucket in progress (a query's
 * answer does not depend on when it is asked, and a bucket not over yet reads as the part of it that it is).
 */
function countRow(r: RawRow, bucket: QueryBucket, start: string, spanMs: number): CountRow {
  const expected = r.frames_expected ?? 0;
  const received = r.frames_received ?? 0;
  const moved = r.frames_moved ?? 0;
  return {
    bucket,
    start,
    cameraId: r.camera_id,
    lineId: r.line_id,
    in: r.in_count,
    out: r.out_count,
    total: r.in_count + r.out_count,
    framesReceived: received,
    framesExpected: expected,
    uptime: expected > 0 ? Math.min(1, received / expected) : null,
    monitoredMs: r.monitored_ms,
    monitored: r.monitored_ms === null ? null : Math.min(1, Math.max(0, r.monitored_ms) / spanMs),
    framesMoved: moved,
    viewMoved: received > 0 ? Math.min(1, moved / received) : null,
    byClass: Object.fromEntries(
      VEHICLE_CLASSES.map((c) => [c, { in: r[classColumn('in', c)] as number, out: r[classColumn('out', c)] as number }]),
    ) as CountRow['byClass'],
  };
}

export class CountReader {
  readonly file: string;
  #db: Db | undefined;
  #stmts = new Map<string, Statement>();
  #closed = false;

  constructor(file: string) {
    this.file = file;
  }

  #open(): Db {
    if (this.#closed) throw new StoreError(`${this.file}: the count reader is closed`);
    if (this.#db) return this.#db;
    if (!fs.existsSync(this.file)) {
      throw new QueryError(`${this.file}: no count database at this path; run the daemon (traffic-counter run) first to create it, or pass the right --db`);
    }
    // SQLite says "disk I/O error" for a folder.
    if (fs.statSync(this.file).isDirectory()) {
      throw new QueryError(`${this.file}: is a folder, not a database file; pass the database file the daemon writes (--db), e.g. ${path.join(this.file, 'counts.db')}`);
    }
    let db: Db | undefined;
    try {
      db = new Database(this.file, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      const version = checkNotNewer(db, this.file);
      if (version === 0) {
        throw new QueryError(`${this.file}: not a traffic-counter database (no schema); pass the database the daemon writes (--db)`);
      }
    } catch (err) {
      db?.close();
      if (err instanceof QueryError || err instanceof StoreError) throw err;
      // A read-only folder or mount: SQLite reads a WAL database (as the daemon writes it) only where it can open its
      // -shm and -wal files for writing; "check that it is a traffic-counter database" sent the user the wrong way.
      const fix = /readonly|read-only|unable to open/i.test((err as Error).message)
        ? `SQLite reads this database (WAL mode) only where it can write its -wal and -shm files beside it: give this user write access to ${path.dirname(path.resolve(this.file))}, or copy the .db file elsewhere once the daemon has stopped`
        : 'check the path and that it is a traffic-counter database';
      throw new QueryError(`${this.file}: cannot read this database (${(err as Error).message}); ${fix}`, {
        cause: err,
      });
    }
    this.#db = db;
    return db;
  }

  /** Rows per (bucket, camera, line), ordered by start, camera, line. */
  query(params: QueryParams, opts: QueryOptions = {}): CountRow[] {
    const db = this.#open();
    try {
      const rows = selectCountRows(db, params, opts, this.#stmts);
      if (rows.length === 0) checkKnownIds(db, this.file, params, opts.source ?? 'http');
      return rows;
    } catch (err) {
      if (err instanceof QueryError) throw err;
      throw new StoreError(`${this.file}: query failed (${(err as Error).message})`, { cause: err });
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stmts.clear();
    this.#db?.close();
    this.#db = undefined;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }
}

/**
 * Runs one query against a count database, opened read-only (safe while the daemon writes, thanks to
 * WAL). A missing file is a QueryError: the database is never created here.
 */
export function queryCounts(dbPath: string, params: QueryParams, opts: QueryOptions = {}): CountRow[] {
  const reader = new CountReader(dbPath);
  try {
    return reader.query(params, opts);
  } finally {
    reader.close();
  }
}
