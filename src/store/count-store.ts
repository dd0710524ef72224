// The daemon's SQLite writer: crossing events and frame accounting are batched in memory and written in
// one transaction per flush, together with the minute/hour/day roll-ups (UTC buckets) they update.

import fs from 'node:fs';
import path from 'node:path';
import { Database } from './sqlite-driver.js';
import type { Database as Db, Statement } from 'better-sqlite3';
import { VEHICLE_CLASSES, type CrossingEvent, type VehicleClass } from '../analyze/analyzer-types.js';
import { StoreError, TrafficCounterError } from '../errors.js';
import { selectCountRows } from './count-reader.js';
import { WriterLock } from './writer-lock.js';
import { migrate, refuseForeignDatabase } from './migrations.js';
import { writeFix } from './write-fix.js';
import { BUCKETS, BUCKET_MS, CLASS_COLUMNS, type Bucket, type CountRow, type QueryOptions, type QueryParams } from './query-counts.js';
import { ID_RE } from '../config/ids.js';

export { writeFix };

export const STORE_DEFAULTS = {
  flushIntervalMs: 1_000, // automatic flush period (timer is unref'd)
  maxBatch: 1_000, // pending events that trigger an immediate flush
  maxPendingEvents: 100_000, // event detail rows kept while flushes fail; past it the oldest details are dropped, never their counts
  busyTimeoutMs: 5_000, // how long a write waits for a lock held by another connection (at open and at close)
  // How long a flush on the timer waits for such a lock: it runs on the daemon's thread, and waiting 5 s there held up
  // every camera's frames once a second (another process holding a write transaction: 4 of 10 crossings counted,
  // the camera blamed for timing out; helper 26). A flush that fails keeps its counts for the next.
  flushBusyTimeoutMs: 250,
} as const;

/**
 * The refusal of a folder given for the database file (SQLite says only "unable to open database file"), or of a
 * path through a file (data/counts.db where data is a file), or undefined: said by CountStore.open, and by `run`
 * before anything starts. Whatever else keeps the path from being read (no permission, a symlink loop) is said
 * where the database is opened ("cannot open the count database"): the stat's own error escaped here, with its stack
 * (status 1, "ENOTDIR: not a directory, stat 'data/counts.db'").
 */
export function dbFolderProblem(file: string): string | undefined {
  // A stat that fails (ENOTDIR on Node 20, no permission, a symlink loop) is taken as nothing there: the folders
  // above then tell a path through a file, and the rest is said where the database is opened.
  const stat = (p: string): fs.Stats | undefined => {
    try {
      return fs.statSync(p, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  };
  const st = stat(file);
  if (st?.isDirectory()) return `${file}: is a folder, not a database file; give a file path, e.g. ${path.join(file, 'counts.db')} (--db, or "db" in the config)`;
  if (st !== undefined) return undefined;
  // Not there: a part of its path, a folder for it, may be a file. Node 20 throws ENOTDIR for that; Node 22 and later
  // return undefined, as for a path not there (CI on Node 22: the store's "cannot open" came instead).
  for (let at = path.dirname(file); ; at = path.dirname(at)) {
    const s = stat(at);
    if (s?.isFile()) return `${file}: ${at} is a file, not a folder; give a database file path in a folder (--db, or "db" in the config)`;
    if (s?.isDirectory() || path.dirname(at) === at) return undefined;
  }
}

export interface CountStoreOptions {
  flushIntervalMs?: number;
  maxBatch?: number;
  maxPendingEvents?: number;
  busyTimeoutMs?: number;
  /** Flush failures and dropped event details are reported here (default: console.error). */
  onError?: (err: Error, what: StoreTrouble) => void;
  /** Called at the first flush that succeeds after failed ones: everything pending then was written. */
  onRecover?: (info: { readonly failedFlushes: number; readonly failingSince: number }) => void;
}

export interface CameraRegistration {
  readonly id: string;
  readonly pollIntervalMs: number;
  readonly lines: readonly { readonly id: string; readonly from: readonly [number, number]; readonly to: readonly [number, number] }[];
}

/** A line registered again under its id with other ends (see registerCamera): where it was. */
export interface LineRedrawn {
  readonly lineId: string;
  readonly before: { readonly from: readonly [number, number]; readonly to: readonly [number, number] };
}

export interface FrameTickDelta {
  /** Poll slots: each is one frame expected and the camera's pollIntervalMs of monitored time (see addFrameTicks). */
  expected?: number;
  received?: number;
  decodeErrors?: number;
  dropped?: number;
  sourceErrors?: number;
  /** Frames received while the camera's view did not match the one its ROI and lines were learnt on. */
  moved?: number;
}

/** A file's device and inode, or null for an in-memory database or a path with no file. */
function fileIdentity(file: string): string | null {
  if (file === ':memory:' || file === '') return null;
  try {
    const st = fs.statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/** What a store error reports: writes that failed (retried), or crossing details dropped after they failed too long. */
export type StoreTrouble = 'writes' | 'details' | 'resolution';

/**
 * How long pending buckets keep their resolution while writes fail (event time, behind the newest pending minute):
 * minutes older than PENDING_HORIZON_MS.minute are folded into their hour, hours older than PENDING_HORIZON_MS.hour
 * into their day. Folding is done an hour (a day) at a time, so a camera line holds at most 1,500 pending minutes
 * (25 h) and 768 pending hours (32 days), plus one pending day per day of the outage beyond that; a camera's frame
 * accounting likewise. Nothing is counted less: hour and day totals stay exact, only the per-minute (per-hour) rows of
 * those early parts of the outage are never written.
 */
export const PENDING_HORIZON_MS = Object.freeze({ minute: 24 * 3_600_000, hour: 31 * 86_400_000 });
/** The extra span a fold waits for, so it runs once per hour (day) of event time, not once per minute. */
const FOLD_STEP_MS = Object.freeze({ minute: 3_600_000, hour: 86_400_000 });
/** Buckets a pending one of each size folds into. */
const COARSER = Object.freeze({ minute: 'hour', hour: 'day' } as const);

export interface LineTotal {
  readonly cameraId: string;
  readonly lineId: string;
  readonly in: number;
  readonly out: number;
}

export interface CountStoreStats {
  /** Event detail rows waiting for the next flush. */
  readonly pendingEvents: number;
  /** (camera, line, bucket) and (camera, bucket) aggregates waiting for the next flush (minutes, and hours and days folded from them: see PENDING_HORIZON_MS). */
  readonly pendingBuckets: number;
  readonly flushes: number;
  readonly failedFlushes: number;
  /** Event detail rows dropped because flushes kept failing; their counts were kept. */
  readonly eventDetailsDropped: number;
  readonly lastError: string | null;
  /** While writes fail: when they began to (ms since the epoch); null while they work. */
  readonly failingSince: number | null;
}

// Column order of the count aggregates; matches COUNT_COLUMNS in migrations.ts: the totals, then in and out
// per vehicle class, so class c's 'in' count sits at CLASS_OFFSET[c] and its 'out' count right after.
const COUNT_COLS = ['in_count', 'out_count', ...CLASS_COLUMNS];
const CLASS_OFFSET = Object.fromEntries(VEHICLE_CLASSES.map((c, k) => [c, 2 + 2 * k])) as Readonly<Record<VehicleClass, number>>;
const FRAME_COLS = ['frames_expected', 'frames_received', 'decode_errors', 'dropped', 'source_errors', 'frames_moved'] as const;
const FRAME_DELTA_KEYS = ['expected', 'received', 'decodeErrors', 'dropped', 'sourceErrors', 'moved'] as const;

interface CountAgg {
  cameraId: string;
  lineId: string;
  startMs: number;
  c: number[];
}
interface FrameAgg {
  cameraId: string;
  startMs: number;
  f: number[];
  /** monitored_ms: the poll slots' lengths of the expected frames; null when unknown (a camera not registered). */
  m: number | null;
}

/** Adds monitored times; unknown (null) stays unknown. */
function addMonitored(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

interface Statements {
  insertEvent: Statement;
  pruneEvents: Statement;
  cameraIds: Statement;
  upsertCounts: Record<Bucket, Statement>;
  upsertFrames: Record<Bucket, Statement>;
  /** A monitored bucket's row for every active line of the camera ("nothing crossed" reads as 0, not as missing). */
  zeroRows: Record<Bucket, Statement>;
  /** Adds a poll slot's monitored time and frames to a line's row that holds its own (see lineMonitored). */
  addLineMonitored: Record<Bucket, Statement>;
  /** Gives a line joining a bucket already monitored its own monitored time and frames, from 0 (see #joining). */
  joinLine: Record<Bucket, Statement>;
  /** Whether the camera has a frames row for the bucket already. */
  framesRow: Record<Bucket, Statement>;
}

function floorTo(ms: number, step: number): number {
  return Math.floor(ms / step) * step;
}

function finiteOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function bad(message: string): StoreError {
  return new StoreError(message);
}

function prepareStatements(db: Db): Statements {
  const upsertCounts = {} as Record<Bucket, Statement>;
  const upsertFrames = {} as Record<Bucket, Statement>;
  const zeroRows = {} as Record<Bucket, Statement>;
  const addLineMonitored = {} as Record<Bucket, Statement>;
  const joinLine = {} as Record<Bucket, Statement>;
  const framesRow = {} as Record<Bucket, Statement>;
  for (const b of BUCKETS) {
    upsertCounts[b] = db.prepare(
      `INSERT INTO counts_${b} (camera_id, line_id, bucket_start_ms, ${COUNT_COLS.join(', ')})
       VALUES (?, ?, ?, ${COUNT_COLS.map(() => '?').join(', ')})
       ON CONFLICT (camera_id, line_id, bucket_start_ms) DO UPDATE SET
       ${COUNT_COLS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`,
    );
    upsertFrames[b] = db.prepare(
      // monitored_ms: a row written before migration 3 (NULL, unknown) stays unknown, never a part read as the whole.
      `INSERT INTO frames_${b} (camera_id, bucket_start_ms, ${FRAME_COLS.join(', ')}, monitored_ms)
       VALUES (?, ?, ${FRAME_COLS.map(() => '?').join(', ')}, ?)
       ON CONFLICT (camera_id, bucket_start_ms) DO UPDATE SET
       ${FRAME_COLS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}, monitored_ms = monitored_ms + excluded.monitored_ms`,
    );
    // A monitored bucket gets a row for every active line, so "nothing crossed" reads as 0, not as missing.
    zeroRows[b] = db.prepare(
      `INSERT OR IGNORE INTO counts_${b} (camera_id, line_id, bucket_start_ms)
       SELECT camera_id, line_id, ? FROM lines WHERE camera_id = ? AND active = 1`,
    );
    // A line's monitored_ms, frames_expected, frames_received and frames_moved (schema 4): NULL, all four, while the
    // line was in the configuration for as long as its camera was monitored in the bucket (the reader then shows the
    // camera's), its own otherwise (see lineMonitored). Only rows holding their own are written per poll slot: a line counted all
    // along costs no write. Holding its own is told by frames_expected: monitored_ms may be NULL beside it where the
    // camera's time is unknown (a line taken out in a bucket written in part before schema 3: it reads unknown either
    // way, see the freeze in registerCamera).
    addLineMonitored[b] = db.prepare(
      `UPDATE counts_${b} SET monitored_ms = monitored_ms + ?, frames_expected = frames_expected + ?, frames_received = frames_received + ?,
         frames_moved = frames_moved + ?
       WHERE camera_id = ? AND line_id = ? AND bucket_start_ms = ? AND frames_expected IS NOT NULL`,
    );
    joinLine[b] = db.prepare(
      `INSERT INTO counts_${b} (camera_id, line_id, bucket_start_ms, monitored_ms, frames_expected, frames_received, frames_moved)
       VALUES (?, ?, ?, 0, 0, 0, 0)
       ON CONFLICT (camera_id, line_id, bucket_start_ms) DO UPDATE SET monitored_ms = COALESCE(monitored_ms, 0),
         frames_expected = COALESCE(frames_expected, 0), frames_received = COALESCE(frames_received, 0), frames_moved = COALESCE(frames_moved, 0)`,
    );
    framesRow[b] = db.prepare(`SELECT 1 FROM frames_${b} WHERE camera_id = ? AND bucket_start_ms = ?`).pluck();
  }
  const insertEvent = db.prepare(
    `INSERT INTO events (camera_id, line_id, direction, time_ms, track_id, vehicle_class, area_px,
       bbox_x, bbox_y, bbox_w, bbox_h, speed_px_s, frames_seen)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The (camera_id, time_ms) index finds them without a scan of the table.
  const pruneEvents = db.prepare('DELETE FROM events WHERE id IN (SELECT id FROM events WHERE camera_id = ? AND time_ms < ? ORDER BY time_ms LIMIT ?)');
  const cameraIds = db.prepare('SELECT id FROM cameras ORDER BY id').pluck();
  return { insertEvent, pruneEvents, cameraIds, upsertCounts, upsertFrames, zeroRows, addLineMonitored, joinLine, framesRow };
}

/**
 * Writes crossing events and per-bucket frame accounting to SQLite (WAL).
 *
 * Batching policy: events and frame ticks accumulate in memory and are committed in one transaction every
 * `flushIntervalMs`, as soon as `maxBatch` events are pending, and on `flush()` / `close()`.
 * When a flush fails (SQLITE_BUSY, disk full...) nothing is cleared: the batch is retried at the next flush
 * and the error goes to `onError`. Counts are aggregated per (camera, line, minute) as events arrive, so
 * they are never dropped; if failures persist past `maxPendingEvents` event detail rows, the oldest detail
 * rows are dropped (counted in stats().eventDetailsDropped and reported) while their counts stay pending.
 * The pending buckets are bounded too: past a day of failing writes their oldest minutes are folded into hours, past
 * 31 days their oldest hours into days (PENDING_HORIZON_MS), said once each to `onError` ('resolution').
 */
export class CountStore implements AsyncDisposable {
  readonly file: string;
  readonly #db: Db;
  /** This store is the database's one writer (see WriterLock). */
  readonly #lock: WriterLock;
  readonly #stmts: Statements;
  readonly #opts: Required<Omit<CountStoreOptions, 'onError' | 'onRecover'>>;
  readonly #onError: (err: Error, what: StoreTrouble) => void;
  readonly #onRecover: CountStoreOptions['onRecover'];
  readonly #timer: NodeJS.Timeout;
  readonly #queryStmts = new Map<string, Statement>();

  #events: CrossingEvent[] = [];
  /**
   * Pending counts and frame accounting per bucket size: they arrive per minute; while writes fail, minutes older than
   * a day (event time) are folded into their hour and hours older than 31 days into their day (PENDING_HORIZON_MS), so
   * a long outage holds at most about 1,500 minutes and 768 hours per camera line (and per camera) plus one day per day
   * past that, and loses no count: a flush writes a pending minute to its minute, hour and day rows, a folded hour to
   * its hour and day rows, a folded day to its day row.
   */
  #counts: Record<Bucket, Map<string, CountAgg>> = { minute: new Map(), hour: new Map(), day: new Map() };
  #frames: Record<Bucket, Map<string, FrameAgg>> = { minute: new Map(), hour: new Map(), day: new Map() };
  /** The newest pending minute's start, and the oldest pending minute's and hour's (event time): see #bound(). */
  #newestMs = -Infinity;
  #oldestMs: Record<'minute' | 'hour', number> = { minute: Infinity, hour: Infinity };
  /** The bucket sizes whose fold has been said in this failing spell (said once, again after a recovery). */
  #foldSaid = new Set<Bucket>();
  /** Lines registered in this process, for totals() before anything crossed. */
  #lines = new Map<string, Set<string>>();
  /** Each registered camera's poll interval (ms): the time an expected frame stands for (monitored_ms). */
  #intervals = new Map<string, number>();
  /**
   * Per camera, the lines this registration added to its configuration (not active before), and the bucket sizes whose
   * first monitored bucket of this run is still to be written: where the camera was monitored earlier in that bucket
   * without them, they get their own monitored time and frames there (from 0), not the camera's (see lineMonitored).
   * Also a line active in the table but without a row in its camera's latest monitored bucket of a size: an earlier
   * registration added it, but that run wrote no frames of the camera (it failed to start, or was killed, before).
   */
  #joining = new Map<string, Map<Bucket, string[]>>();
  #closed = false;
  /** When the flushes began to fail (ms since the epoch), and how many have failed since; null while they work. */
  #failingSince: number | null = null;
  #failedInARow = 0;
  /** The database file's device and inode when opened (null in memory): see fileGone(). */
  readonly #fileId: string | null;
  /** The connection's busy_timeout now (ms): busyTimeoutMs at open and close, at most flushBusyTimeoutMs between. */
  #busyMs: number;
  #flushes = 0;
  #failedFlushes = 0;
  #detailsDropped = 0;
  #lastError: string | null = null;

  private constructor(file: string, db: Db, lock: WriterLock, opts: CountStoreOptions, fileId: string | null) {
    this.file = file;
    this.#fileId = fileId;
    this.#db = db;
    this.#lock = lock;
    this.#opts = {
      flushIntervalMs: opts.flushIntervalMs ?? STORE_DEFAULTS.flushIntervalMs,
      maxBatch: opts.maxBatch ?? STORE_DEFAULTS.maxBatch,
      maxPendingEvents: opts.maxPendingEvents ?? Math.max(STORE_DEFAULTS.maxPendingEvents, opts.maxBatch ?? 0),
      busyTimeoutMs: opts.busyTimeoutMs ?? STORE_DEFAULTS.busyTimeoutMs,
    };
    this.#onError = opts.onError ?? ((err) => console.error(`traffic-counter store: ${err.message}`));
    this.#onRecover = opts.onRecover;
    this.#busyMs = this.#opts.busyTimeoutMs;
    this.#stmts = prepareStatements(db);
    this.#timer = setInterval(() => this.#flushQuietly(), this.#opts.flushIntervalMs);
    // The store must not keep the process alive; close() does the final flush.
    this.#timer.unref();
  }

  /**
   * Opens (creating the file and its folder if needed) and migrates a count database, as its one writer: while this
   * store is open, another open of the same file, in this process or another, is refused (see WriterLock).
   */
  static open(file: string, opts: CountStoreOptions = {}): CountStore {
    for (const key of ['flushIntervalMs', 'maxBatch', 'maxPendingEvents', 'busyTimeoutMs'] as const) {
      const v = opts[key];
      if (v !== undefined && !(Number.isInteger(v) && v > 0)) {
        throw new StoreError(`CountStore.open ${key}: must be a positive integer, got ${String(v)}`);
      }
    }
    if (opts.maxPendingEvents !== undefined && opts.maxBatch !== undefined && opts.maxPendingEvents < opts.maxBatch) {
      throw new StoreError(`CountStore.open maxPendingEvents: must be at least maxBatch (${opts.maxBatch}), got ${opts.maxPendingEvents}`);
    }
    const folder = dbFolderProblem(file);
    if (folder !== undefined) throw new StoreError(folder);
    let db: Db | undefined;
    let lock: WriterLock | undefined;
    try {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      lock = WriterLock.acquire(file);
      db = new Database(file);
      refuseForeignDatabase(db, file);
      db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? STORE_DEFAULTS.busyTimeoutMs}`);
      // WAL lets `traffic-counter query` and the HTTP API read while the daemon writes.
      db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode: a power cut may lose the last commits but never corrupts the file.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db, file);
      return new CountStore(file, db, lock, opts, fileIdentity(file));
    } catch (err) {
      db?.close();
      lock?.discard();
      if (err instanceof TrafficCounterError) throw err;
      throw new StoreError(`${file}: cannot open the count database (${(err as Error).message}); check the path is a writable traffic-counter database`, {
        cause: err,
      });
    }
  }

  #checkOpen(what: string): void {
    if (this.#closed) throw new StoreError(`${this.file}: ${what} after close(); the store is closed`);
  }

  /**
   * Records a camera and its counting lines; lines no longer listed are marked inactive (history kept). Returns the
   * lines the database already held under the same id but drawn elsewhere (their stored ends, as they were), so the
   * caller can say that their counts before and after are kept under one id.
   */
  registerCamera(cam: CameraRegistration): LineRedrawn[] {
    this.#checkOpen('registerCamera');
    if (typeof cam.id !== 'string' || !ID_RE.test(cam.id)) throw bad(`registerCamera id: must be a camera id, got ${JSON.stringify(cam.id)}`);
    if (!(Number.isFinite(cam.pollIntervalMs) && cam.pollIntervalMs > 0)) {
      throw bad(`registerCamera ${cam.id}.pollIntervalMs: must be a positive number, got ${String(cam.pollIntervalMs)}`);
    }
    for (const l of cam.lines) {
      if (typeof l.id !== 'string' || !ID_RE.test(l.id)) throw bad(`registerCamera ${cam.id}.lines id: must be a line id, got ${JSON.stringify(l.id)}`);
    }
    const db = this.#db;
    const redrawn: LineRedrawn[] = [];
    const joining = new Map<Bucket, string[]>();
    try {
      db.transaction(() => {
        const stored = db.prepare('SELECT line_id AS id, from_x, from_y, to_x, to_y, active FROM lines WHERE camera_id = ?').all(cam.id) as {
          id: string; from_x: number; from_y: number; to_x: number; to_y: number; active: number;
        }[];
        const byId = new Map(stored.map((r) => [r.id, r]));
        for (const l of cam.lines) {
          const was = byId.get(l.id);
          // Beyond a pixel's rounding: the same line written again with other decimals is the same line.
          if (was && Math.max(Math.abs(was.from_x - l.from[0]), Math.abs(was.from_y - l.from[1]), Math.abs(was.to_x - l.to[0]), Math.abs(was.to_y - l.to[1])) > 0.5) {
            redrawn.push({ lineId: l.id, before: { from: [was.from_x, was.from_y], to: [was.to_x, was.to_y] } });
          }
        }
        db.prepare(
          `INSERT INTO cameras (id, poll_interval_ms, updated_ms) VALUES (?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET poll_interval_ms = excluded.poll_interval_ms, updated_ms = excluded.updated_ms`,
        ).run(cam.id, cam.pollIntervalMs, Date.now());
        // Lines joining (see #joining): not active before, or active but never written in the camera's latest bucket.
        const wasActive = new Set(stored.filter((r) => r.active === 1).map((r) => r.id));
        for (const b of BUCKETS) {
          // Active, but never written in the camera's latest bucket (zeroRows gives every active line a row there).
          const unwritten = db.prepare(
            `SELECT 1 FROM frames_${b} f WHERE f.camera_id = ? AND f.bucket_start_ms = (SELECT MAX(bucket_start_ms) FROM frames_${b} WHERE camera_id = ?)
               AND NOT EXISTS (SELECT 1 FROM counts_${b} c WHERE c.camera_id = f.camera_id AND c.line_id = ? AND c.bucket_start_ms = f.bucket_start_ms)`,
          ).pluck();
          const ids = cam.lines.map((l) => l.id).filter((id) => !wasActive.has(id) || unwritten.get(cam.id, cam.id, id) !== undefined);
          if (ids.length > 0) joining.set(b, ids);
        }
        // A line out of this configuration stops adding monitored time and frames; but a row of it that reads its
        // camera's (NULL: the line was counted for as long as the camera was watched, or a row from before schema
        // version 4) would go on growing with the camera's: in the camera's latest buckets it keeps the camera's time
        // and frames up to now instead (a line taken out at 14:00 read its whole day monitored, and the uptime of the
        // camera's hours after it).
        const kept = new Set(cam.lines.map((l) => l.id));
        const leaving = stored.map((r) => r.id).filter((id) => !kept.has(id));
        if (leaving.length > 0) {
          for (const b of BUCKETS) {
            const freeze = db.prepare(
              `UPDATE counts_${b} SET (monitored_ms, frames_expected, frames_received, frames_moved) =
                 (SELECT f.monitored_ms, f.frames_expected, f.frames_received, f.frames_moved FROM frames_${b} f WHERE f.camera_id = counts_${b}.camera_id AND f.bucket_start_ms = counts_${b}.bucket_start_ms)
               WHERE camera_id = ? AND line_id = ? AND frames_expected IS NULL
                 AND bucket_start_ms >= (SELECT MAX(bucket_start_ms) FROM frames_${b} WHERE camera_id = ?)`,
            );
            for (const id of leaving) freeze.run(cam.id, id, cam.id);
          }
        }
        db.prepare('UPDATE lines SET active = 0 WHERE camera_id = ?').run(cam.id);
        const upsert = db.prepare(
          `INSERT INTO lines (camera_id, line_id, from_x, from_y, to_x, to_y, active) VALUES (?, ?, ?, ?, ?, ?, 1)
           ON CONFLICT (camera_id, line_id) DO UPDATE SET from_x = excluded.from_x, from_y = excluded.from_y,
             to_x = excluded.to_x, to_y = excluded.to_y, active = 1`,
        );
        for (const l of cam.lines) upsert.run(cam.id, l.id, l.from[0], l.from[1], l.to[0], l.to[1]);
      }).immediate();
    } catch (err) {
      // A raw SqliteError ("database is locked") names neither the file nor the fix.
      throw new StoreError(`${this.file}: could not register camera ${cam.id} (${(err as Error).message}); ${writeFix(this.file, err)}`, { cause: err });
    }
    this.#lines.set(cam.id, new Set(cam.lines.map((l) => l.id)));
    this.#intervals.set(cam.id, cam.pollIntervalMs);
    if (joining.size > 0) this.#joining.set(cam.id, joining);
    else this.#joining.delete(cam.id);
    return redrawn;
  }

  /**
   * Queues crossing events. Their counts are aggregated at once (so they survive any later trouble);
   * the detail rows are written at the next flush. Throws StoreError, queuing nothing, if an event lacks
   * a valid camera, line, direction or time.
   */
  addEvents(events: readonly CrossingEvent[]): void {
    this.#checkOpen('addEvents');
    events.forEach((e, i) => {
      if (typeof e.cameraId !== 'string' || e.cameraId === '') throw bad(`addEvents events[${i}].cameraId: must be a camera id, got ${JSON.stringify(e.cameraId)}`);
      if (typeof e.lineId !== 'string' || e.lineId === '') throw bad(`addEvents events[${i}].lineId: must be a line id, got ${JSON.stringify(e.lineId)}`);
      if (e.direction !== 'in' && e.direction !== 'out') throw bad(`addEvents events[${i}].direction: must be "in" or "out", got ${JSON.stringify(e.direction)}`);
      if (!Number.isFinite(e.timeMs)) throw bad(`addEvents events[${i}].timeMs: must be ms since the epoch, got ${String(e.timeMs)}`);
    });
    for (const e of events) {
      const startMs = floorTo(e.timeMs, BUCKET_MS.minute);
      const key = `${e.cameraId}\0${e.lineId}\0${startMs}`;
      let agg = this.#counts.minute.get(key);
      if (!agg) {
        agg = { cameraId: e.cameraId, lineId: e.lineId, startMs, c: new Array<number>(COUNT_COLS.length).fill(0) };
        this.#counts.minute.set(key, agg);
        this.#newMinute(startMs);
      }
      const dir = e.direction === 'in' ? 0 : 1;
      agg.c[dir]++;
      agg.c[(CLASS_OFFSET[e.vehicleClass] ?? CLASS_OFFSET.unknown) + dir]++;
      this.#events.push(e);
    }
    this.#boundDetails();
    // While flushes fail, retry on the timer only rather than on every event.
    if (this.#events.length >= this.#opts.maxBatch && this.#failingSince === null) this.#flushQuietly();
  }

  /**
   * Adds to the frame accounting of the camera's minute containing timeMs (written at the next flush). Each expected
   * frame is a poll slot: it adds the camera's pollIntervalMs (registerCamera) to the minute's monitored time, the
   * camera's and each of its active lines', or makes it unknown for a camera not registered in this store.
   */
  addFrameTicks(cameraId: string, timeMs: number, delta: FrameTickDelta): void {
    this.#checkFrameTick('addFrameTicks', cameraId, timeMs);
    for (const k of FRAME_DELTA_KEYS) {
      const v = delta[k];
      if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw bad(`addFrameTicks ${k}: must be a non-negative integer, got ${String(v)}`);
    }
    this.#addFrames(cameraId, timeMs, delta);
  }

  /**
   * Takes back one expected frame added at timeMs (`addFrameTicks(..., { expected: 1 })`, same timeMs so the same
   * minute): a poll that the daemon's own shutdown cut short, which the camera cannot be said to have missed. Its
   * slot's monitored time goes with it, so that monitored_ms stays frames_expected × the poll interval: both are taken
   * back from the camera and from those of its active lines that hold their own (see lineMonitored).
   */
  withdrawExpected(cameraId: string, timeMs: number): void {
    this.#checkFrameTick('withdrawExpected', cameraId, timeMs);
    this.#addFrames(cameraId, timeMs, { expected: -1 });
  }

  #checkFrameTick(what: string, cameraId: string, timeMs: number): void {
    this.#checkOpen(what);
    if (typeof cameraId !== 'string' || cameraId === '') throw bad(`${what} cameraId: must be a camera id, got ${JSON.stringify(cameraId)}`);
    if (!Number.isFinite(timeMs)) throw bad(`${what} timeMs: must be ms since the epoch, got ${String(timeMs)}`);
  }

  #addFrames(cameraId: string, timeMs: number, delta: FrameTickDelta): void {
    const startMs = floorTo(timeMs, BUCKET_MS.minute);
    const key = `${cameraId}\0${startMs}`;
    let agg = this.#frames.minute.get(key);
    if (!agg) {
      agg = { cameraId, startMs, f: new Array<number>(FRAME_COLS.length).fill(0), m: 0 };
      this.#frames.minute.set(key, agg);
      this.#newMinute(startMs);
    }
    FRAME_DELTA_KEYS.forEach((k, i) => {
      agg.f[i] += delta[k] ?? 0;
    });
    const expected = delta.expected ?? 0;
    if (expected !== 0) {
      const interval = this.#intervals.get(cameraId);
      agg.m = addMonitored(agg.m, interval === undefined ? null : expected * interval);
    }
  }

  /** A new pending minute: while writes fail, folds what is past the horizon once it is a step past it. */
  #newMinute(startMs: number): void {
    if (startMs > this.#newestMs) this.#newestMs = startMs;
    if (startMs < this.#oldestMs.minute) this.#oldestMs.minute = startMs;
    if (this.#failingSince === null) return;
    for (const size of ['minute', 'hour'] as const) {
      if (this.#newestMs - this.#oldestMs[size] >= PENDING_HORIZON_MS[size] + FOLD_STEP_MS[size]) this.#fold(size);
    }
  }

  /** Folds the pending buckets of `size` older than its horizon into the next size up (see PENDING_HORIZON_MS). */
  #fold(size: 'minute' | 'hour'): void {
    const cutoff = this.#newestMs - PENDING_HORIZON_MS[size];
    const into = COARSER[size];
    const step = BUCKET_MS[into];
    let folded = 0;
    let oldest = Infinity;
    let oldestInto = Infinity;
    for (const [key, a] of this.#counts[size]) {
      if (a.startMs >= cutoff) {
        oldest = Math.min(oldest, a.startMs);
        continue;
      }
      const startMs = floorTo(a.startMs, step);
      const k = `${a.cameraId}\0${a.lineId}\0${startMs}`;
      const acc = this.#counts[into].get(k);
      if (acc) a.c.forEach((v, i) => (acc.c[i] += v));
      else this.#counts[into].set(k, { cameraId: a.cameraId, lineId: a.lineId, startMs, c: [...a.c] });
      this.#counts[size].delete(key);
      oldestInto = Math.min(oldestInto, startMs);
      folded++;
    }
    for (const [key, a] of this.#frames[size]) {
      if (a.startMs >= cutoff) {
        oldest = Math.min(oldest, a.startMs);
        continue;
      }
      const startMs = floorTo(a.startMs, step);
      const k = `${a.cameraId}\0${startMs}`;
      const acc = this.#frames[into].get(k);
      if (acc) {
        a.f.forEach((v, i) => (acc.f[i] += v));
        acc.m = addMonitored(acc.m, a.m);
      } else this.#frames[into].set(k, { cameraId: a.cameraId, startMs, f: [...a.f], m: a.m });
      this.#frames[size].delete(key);
      oldestInto = Math.min(oldestInto, startMs);
      folded++;
    }
    this.#oldestMs[size] = oldest;
    if (into === 'hour') this.#oldestMs.hour = Math.min(this.#oldestMs.hour, oldestInto);
    if (folded === 0 || this.#foldSaid.has(size)) return;
    this.#foldSaid.add(size);
    const horizon = size === 'minute' ? '24 h' : '31 days';
    this.#onError(
      new StoreError(
        `${this.file}: writes have failed for over ${horizon} of counts; to bound the memory they take, pending ${size} buckets older than ${horizon} are folded into their ${into}s (from ${new Date(cutoff).toISOString()} back): every count is kept and the ${into} and day totals will be exact, only those ${size}s' own rows will be missing once the database accepts writes`,
      ),
      'resolution',
    );
  }

  #boundDetails(): void {
    const excess = this.#events.length - this.#opts.maxPendingEvents;
    if (excess <= 0) return;
    // Drop the oldest details only; their counts are already in #counts.minute.
    this.#events.splice(0, excess);
    this.#detailsDropped += excess;
    this.#onError(
      new StoreError(
        `${this.file}: writes keep failing; dropped ${excess} pending event detail rows (${this.#detailsDropped} so far) past maxPendingEvents ${this.#opts.maxPendingEvents}; their counts are kept and will be written when the database accepts writes`,
      ),
      'details',
    );
  }

  /**
   * Writes everything pending in one transaction. On failure the batch is kept for the next flush and a
   * StoreError is thrown. Synchronous, so it is safe to call from a signal handler.
   */
  flush(): void {
    this.#flush(Math.min(this.#opts.busyTimeoutMs, STORE_DEFAULTS.flushBusyTimeoutMs));
  }

  /** flush() waiting at most `busyMs` for another connection's write lock. */
  #flush(busyMs: number): void {
    if (this.#closed) return;
    if (busyMs !== this.#busyMs) {
      this.#db.pragma(`busy_timeout = ${busyMs}`);
      this.#busyMs = busyMs;
    }
    if (this.#events.length === 0 && this.#pendingBuckets() === 0) return;
    const events = this.#events;
    const pendingCounts = this.#counts;
    const pendingFrames = this.#frames;
    const nCounts = BUCKETS.reduce((n, b) => n + pendingCounts[b].size, 0);
    const nFrames = BUCKETS.reduce((n, b) => n + pendingFrames[b].size, 0);
    const s = this.#stmts;
    /** The lines' first buckets of this run written by this flush (see #joining): settled once it commits. */
    const joined: [string, Bucket][] = [];
    try {
      this.#db
        .transaction(() => {
          for (const e of events) {
            const b = Array.isArray(e.bbox) ? e.bbox : [];
            s.insertEvent.run(
              e.cameraId,
              e.lineId,
              e.direction,
              Math.round(e.timeMs),
              finiteOrNull(e.trackId),
              typeof e.vehicleClass === 'string' ? e.vehicleClass : null,
              finiteOrNull(e.areaPx),
              finiteOrNull(b[0]),
              finiteOrNull(b[1]),
              finiteOrNull(b[2]),
              finiteOrNull(b[3]),
              finiteOrNull(e.speedPxPerS),
              finiteOrNull(e.framesSeen),
            );
          }
          for (const [k, bucket] of BUCKETS.entries()) {
            const step = BUCKET_MS[bucket];
            // A bucket's rows take the pending ones of its size and of the finer sizes (folded ones have no finer rows).
            const counts = BUCKETS.slice(0, k + 1).flatMap((b) => [...pendingCounts[b].values()]);
            const frames = BUCKETS.slice(0, k + 1).flatMap((b) => [...pendingFrames[b].values()]);
            // Fold minutes into hours/days in memory: one upsert per row instead of one per minute.
            const c = new Map<string, CountAgg>();
            for (const a of counts) {
              const startMs = floorTo(a.startMs, step);
              const key = `${a.cameraId}\0${a.lineId}\0${startMs}`;
              const acc = c.get(key);
              if (acc) a.c.forEach((v, i) => (acc.c[i] += v));
              else c.set(key, { cameraId: a.cameraId, lineId: a.lineId, startMs, c: [...a.c] });
            }
            for (const a of c.values()) s.upsertCounts[bucket].run(a.cameraId, a.lineId, a.startMs, ...a.c);
            const f = new Map<string, FrameAgg>();
            for (const a of frames) {
              const startMs = floorTo(a.startMs, step);
              const key = `${a.cameraId}\0${startMs}`;
              const acc = f.get(key);
              if (acc) {
                a.f.forEach((v, i) => (acc.f[i] += v));
                acc.m = addMonitored(acc.m, a.m);
              } else f.set(key, { cameraId: a.cameraId, startMs, f: [...a.f], m: a.m });
            }
            for (const a of f.values()) {
              const monitored = a.m === null ? null : Math.round(a.m);
              this.#lineMonitored(bucket, a, monitored, joined);
              s.upsertFrames[bucket].run(a.cameraId, a.startMs, ...a.f, monitored);
            }
          }
        })
        .immediate();
    } catch (err) {
      this.#failingSince ??= Date.now();
      this.#failedInARow++;
      this.#failedFlushes++;
      this.#lastError = (err as Error).message;
      throw new StoreError(
        `${this.file}: could not write ${events.length} events and ${nCounts + nFrames} pending buckets (${(err as Error).message}); they are kept and retried at the next flush — ${writeFix(this.file, err)}`,
        { cause: err },
      );
    }
    // Only now is the batch durable (committed); anything added meanwhile is impossible (synchronous).
    for (const [cameraId, bucket] of joined) {
      const j = this.#joining.get(cameraId);
      j?.delete(bucket);
      if (j?.size === 0) this.#joining.delete(cameraId);
    }
    this.#events = [];
    for (const b of BUCKETS) {
      this.#counts[b].clear();
      this.#frames[b].clear();
    }
    this.#newestMs = -Infinity;
    this.#oldestMs = { minute: Infinity, hour: Infinity };
    this.#foldSaid.clear();
    this.#flushes++;
    if (this.#failingSince !== null) {
      const info = { failedFlushes: this.#failedInARow, failingSince: this.#failingSince };
      this.#failingSince = null;
      this.#failedInARow = 0;
      this.#onRecover?.(info);
    }
  }

  /**
   * The lines' share of the poll slots in a bucket (monitored time, frames expected, received and moved), written
   * before the camera's frames row. A line counted for as long as its camera was monitored in the bucket keeps NULL there (the
   * reader shows the camera's): no write per slot. A line added at a restart within a bucket the camera was monitored
   * in already (a frames row exists before this run's first write to it) gets its own, from 0, and each slot adds to
   * it, as to a row that holds its own for any other reason (a line taken out and put back, see registerCamera); a
   * withdrawn poll (a negative expected frame) is taken back from it likewise. The other frame columns (decode errors,
   * drops, source errors) are the camera's only.
   */
  #lineMonitored(bucket: Bucket, frames: FrameAgg, monitored: number | null, joined: [string, Bucket][]): void {
    const s = this.#stmts;
    const { cameraId, startMs } = frames;
    const [expected, received] = frames.f; // FRAME_COLS' first two
    const moved = frames.f[FRAME_COLS.indexOf('frames_moved')];
    const joining = this.#joining.get(cameraId)?.get(bucket);
    if (joining !== undefined) {
      if (s.framesRow[bucket].get(cameraId, startMs) !== undefined) for (const line of joining) s.joinLine[bucket].run(cameraId, line, startMs);
      joined.push([cameraId, bucket]);
    }
    s.zeroRows[bucket].run(startMs, cameraId);
    for (const line of this.#lines.get(cameraId) ?? []) s.addLineMonitored[bucket].run(monitored, expected, received, moved, cameraId, line, startMs);
  }

  #flushQuietly(): void {
    try {
      this.flush();
    } catch (err) {
      this.#onError(err as Error, 'writes');
    }
  }

  /** All-time in/out per camera and line, including what is still pending; for console output. */
  totals(cameraId?: string): LineTotal[] {
    this.#checkOpen('totals');
    const acc = new Map<string, { cameraId: string; lineId: string; in: number; out: number }>();
    const add = (cam: string, line: string, i: number, o: number): void => {
      if (cameraId !== undefined && cam !== cameraId) return;
      const key = `${cam}\0${line}`;
      const t = acc.get(key);
      if (t) {
        t.in += i;
        t.out += o;
      } else acc.set(key, { cameraId: cam, lineId: line, in: i, out: o });
    };
    for (const [cam, lines] of this.#lines) for (const line of lines) add(cam, line, 0, 0);
    const rows = this.#db
      .prepare(
        `SELECT camera_id, line_id, SUM(in_count) AS i, SUM(out_count) AS o FROM counts_day
         WHERE (? IS NULL OR camera_id = ?) GROUP BY camera_id, line_id`,
      )
      .all(cameraId ?? null, cameraId ?? null) as { camera_id: string; line_id: string; i: number; o: number }[];
    for (const r of rows) add(r.camera_id, r.line_id, r.i, r.o);
    for (const b of BUCKETS) for (const a of this.#counts[b].values()) add(a.cameraId, a.lineId, a.c[0], a.c[1]);
    return [...acc.values()].sort((a, b) => (a.cameraId === b.cameraId ? cmp(a.lineId, b.lineId) : cmp(a.cameraId, b.cameraId)));
  }

  /**
   * Deletes at most `limit` crossing details (events rows) of one camera from before `beforeMs`, oldest
   * first, and returns how many it deleted: a caller deleting many calls it again between other work, so that
   * no one call holds the database (and the thread) for long. The roll-ups, which hold the counts, are untouched.
   */
  pruneEvents(cameraId: string, beforeMs: number, limit: number): number {
    this.#checkOpen('pruneEvents');
    if (!Number.isFinite(beforeMs)) throw bad(`pruneEvents beforeMs: must be ms since the epoch, got ${String(beforeMs)}`);
    if (!(Number.isInteger(limit) && limit > 0)) throw bad(`pruneEvents limit: must be a positive integer, got ${String(limit)}`);
    return this.#stmts.pruneEvents.run(cameraId, Math.floor(beforeMs), limit).changes;
  }

  /** The camera ids the database holds (those registered by this or an earlier run). */
  cameraIds(): string[] {
    this.#checkOpen('cameraIds');
    return this.#stmts.cameraIds.all() as string[];
  }

  /** The ids of the lines the database has registered for `cameraId` (configured now or before), sorted. */
  lineIds(cameraId: string): string[] {
    this.#checkOpen('lineIds');
    return this.#db.prepare('SELECT line_id FROM lines WHERE camera_id = ? ORDER BY line_id').pluck().all(cameraId) as string[];
  }

  /** Queries what has been flushed so far, on this connection (same rows as queryCounts). */
  query(params: QueryParams, opts: QueryOptions = {}): CountRow[] {
    this.#checkOpen('query');
    return selectCountRows(this.#db, params, opts, this.#queryStmts);
  }

  stats(): CountStoreStats {
    return {
      pendingEvents: this.#events.length,
      pendingBuckets: this.#pendingBuckets(),
      flushes: this.#flushes,
      failedFlushes: this.#failedFlushes,
      eventDetailsDropped: this.#detailsDropped,
      lastError: this.#lastError,
      failingSince: this.#failingSince,
    };
  }

  #pendingBuckets(): number {
    return BUCKETS.reduce((n, b) => n + this.#counts[b].size + this.#frames[b].size, 0);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Why the file at this.file is no longer the database this store writes, or null while it is. A database deleted
   * or replaced under a running daemon took every count from then on with it, while health said ok (helper 26: 28
   * crossings gone; a file moved over it served another database's counts to the API).
   */
  fileGone(): string | null {
    if (this.#fileId === null) return null;
    const now = fileIdentity(this.file);
    if (now === this.#fileId) return null;
    return now === null ? `${this.file} was deleted while the daemon wrote to it` : `${this.file} was replaced by another file while the daemon wrote to it`;
  }

  /**
   * Flushes and closes; synchronous, so a SIGINT/SIGTERM handler can call it. Safe to call twice.
   * If the final flush fails the database is still closed and a StoreError says what was not written.
   */
  close(): void {
    if (this.#closed) return;
    clearInterval(this.#timer);
    let failure: StoreError | undefined;
    const pending = this.#events.length;
    const buckets = this.#pendingBuckets();
    try {
      this.#flush(this.#opts.busyTimeoutMs);
    } catch (err) {
      failure = new StoreError(
        `${this.file}: closed without writing ${pending} events and ${buckets} pending buckets (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}); ${writeFix(this.file, (err as Error).cause ?? err)}${this.#unwrittenCounts()}`,
        { cause: err },
      );
    }
    this.#closed = true;
    this.#queryStmts.clear();
    try {
      this.#db.close();
    } finally {
      this.#lock.release();
    }
    if (failure) throw failure;
  }

  /**
   * The counts a failed final flush leaves unwritten, per camera and line with the minutes they fall in, for the log:
   * once the store is closed they are gone, and this is the only record of them (helper 41: "closed without writing 11
   * events and 9 pending buckets" said how many, not which). At most UNWRITTEN_LINES lines.
   */
  #unwrittenCounts(): string {
    const byLine = new Map<string, { cameraId: string; lineId: string; in: number; out: number; from: number; to: number }>();
    for (const b of BUCKETS) {
      for (const a of this.#counts[b].values()) {
        const key = `${a.cameraId}\0${a.lineId}`;
        const t = byLine.get(key);
        const to = a.startMs + BUCKET_MS[b];
        if (t) {
          t.in += a.c[0]!;
          t.out += a.c[1]!;
          t.from = Math.min(t.from, a.startMs);
          t.to = Math.max(t.to, to);
        } else byLine.set(key, { cameraId: a.cameraId, lineId: a.lineId, in: a.c[0]!, out: a.c[1]!, from: a.startMs, to });
      }
    }
    const lines = [...byLine.values()]
      .filter((t) => t.in + t.out > 0)
      .sort((a, b) => (a.cameraId === b.cameraId ? cmp(a.lineId, b.lineId) : cmp(a.cameraId, b.cameraId)));
    if (lines.length === 0) return '';
    const shown = lines
      .slice(0, UNWRITTEN_LINES)
      .map((t) => `camera ${t.cameraId} line ${t.lineId}: in ${t.in}, out ${t.out} (${new Date(t.from).toISOString()} to ${new Date(t.to).toISOString()})`);
    const more = lines.length > UNWRITTEN_LINES ? `; and ${lines.length - UNWRITTEN_LINES} more lines` : '';
    return `. Counts not written: ${shown.join('; ')}${more}`;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }
}

/** The unwritten counts' lines a failed close names at most (see #unwrittenCounts). */
const UNWRITTEN_LINES = 50;

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
