// One writer per count database: two daemons counting the same cameras into one file would store every vehicle
// twice, silently (both commit happily; SQLite serialises their writes).
//
// The lock is a small SQLite file beside the database, `<db>-lock`, on which the writer holds a write transaction
// (a RESERVED lock: others can still read it) for as long as it is open. The operating system releases it when the
// process ends however it ends (kill -9, power cut), so no stale lock is ever left to clear by hand, in a container
// restarted with the same process id either. The file itself stays: removing it while another process has it open
// could give two writers two different files. It holds who took the lock last (process id, host, time), for the
// message that refuses a second writer.

import fs from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { Database } from './sqlite-driver.js';
import type { Database as Db } from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { refusedWriteFix } from './write-fix.js';

export class WriterLock {
  #db: Db | undefined;
  /** The lock file, when this lock created it (see discard). */
  readonly #created: string | undefined;

  private constructor(db: Db | undefined, created?: string) {
    this.#db = db;
    this.#created = created;
  }

  /**
   * Takes the lock on `file` (the count database, whose folder exists) or throws a StoreError naming the process that
   * holds it. An in-memory database (':memory:', '') has no other writer: no lock.
   */
  static acquire(file: string): WriterLock {
    if (file === ':memory:' || file === '') return new WriterLock(undefined);
    // Named after the file itself, not the path given: a symlink or another spelling of the same database must meet
    // the same lock (SQLite follows the link to the file).
    const lockFile = `${realFile(file)}-lock`;
    const created = !fs.existsSync(lockFile);
    try {
      return WriterLock.#take(file, lockFile, created);
    } catch (err) {
      // Not a SQLite file (damaged, or something else by that name): no traffic-counter can hold a lock on it. Emptied
      // in place (an empty file is an empty database), not removed: two processes doing this at once then still meet
      // on one file, whose SQLite lock lets one in.
      if ((err as { cause?: { code?: string } }).cause?.code === 'SQLITE_NOTADB') {
        fs.truncateSync(lockFile, 0);
        return WriterLock.#take(file, lockFile, true);
      }
      throw err;
    }
  }

  static #take(file: string, lockFile: string, created: boolean): WriterLock {
    let db: Db | undefined;
    try {
      db = new Database(lockFile);
      // A moment's wait for a reader of the owner row (the COMMIT below) or a writer letting go.
      db.pragma('busy_timeout = 250');
      db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL)');
      // Taken, the owner row is written and committed, so that whoever is refused can read it; then taken again for
      // good (lost in between to another process, that one is the owner, and this one is refused).
      db.exec('BEGIN IMMEDIATE');
      db.prepare('DELETE FROM owner').run();
      db.prepare('INSERT INTO owner (pid, host, since) VALUES (?, ?, ?)').run(process.pid, hostname(), new Date().toISOString());
      db.exec('COMMIT');
      db.exec('BEGIN IMMEDIATE');
      return new WriterLock(db, created ? lockFile : undefined);
    } catch (err) {
      const busy = (err as { code?: string }).code?.startsWith('SQLITE_BUSY') === true;
      const owner = busy && db ? describeOwner(db) : '';
      if (db?.inTransaction) db.exec('ROLLBACK');
      db?.close();
      if (busy) throw new StoreError(heldMessage(file, owner));
      const fix = refusedWriteFix(file, err) ?? 'check that its folder is writable';
      throw new StoreError(`${lockFile}: cannot take the database's writer lock (${(err as Error).message}); ${fix}`, { cause: err });
    }
  }

  /**
   * The refusal acquire would give now, or undefined (free, no lock file yet, or one that cannot be checked: acquire
   * then says what is wrong). The lock is taken only for the check. For `run` to refuse a second writer before it
   * starts the simulator or the camera probe: it was refused after them (helper 51), the simulator's URL printed.
   */
  static refusal(file: string): string | undefined {
    if (file === ':memory:' || file === '') return undefined;
    let db: Db | undefined;
    try {
      const lockFile = `${realFile(file)}-lock`;
      if (!fs.existsSync(lockFile)) return undefined;
      db = new Database(lockFile, { fileMustExist: true });
      db.pragma('busy_timeout = 250');
      db.exec('BEGIN IMMEDIATE');
      return undefined;
    } catch (err) {
      return (err as { code?: string }).code?.startsWith('SQLITE_BUSY') === true && db ? heldMessage(file, describeOwner(db)) : undefined;
    } finally {
      if (db?.inTransaction) db.exec('ROLLBACK');
      db?.close();
    }
  }

  /** Lets another writer in (idempotent). */
  release(): void {
    const db = this.#db;
    this.#db = undefined;
    if (!db) return;
    db.close(); // the open transaction, which wrote nothing, is rolled back
  }

  /**
   * Lets go after the database itself could not be opened (a folder, a file that is not a database): the lock file is
   * removed too when this lock created it, so that a mistyped --db leaves nothing behind.
   */
  discard(): void {
    this.release();
    if (this.#created !== undefined) fs.rmSync(this.#created, { force: true });
  }
}

/**
 * The file `file` names, links followed, also a link to a file not created yet (SQLite creates the link's target), and
 * its folder's links for a file not created yet. Hard links are other names of the file: not detected.
 */
function realFile(file: string): string {
  let p = path.resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      if (!fs.lstatSync(p).isSymbolicLink()) break;
      link = fs.readlinkSync(p);
    } catch {
      break; // not there (yet)
    }
    p = path.resolve(path.dirname(p), link);
  }
  try {
    return fs.realpathSync(p);
  } catch {
    return path.join(fs.realpathSync(path.dirname(p)), path.basename(p));
  }
}

/** The refusal of a second writer; `owner` from describeOwner. */
function heldMessage(file: string, owner: string): string {
  return (
    `${file}: another traffic-counter${owner} is counting into this database; stop it first, or give this one another ` +
    `database (--db, or "db" in the config): two would store every vehicle twice`
  );
}

/** " (pid 4242 on host cam-box, since 2026-12-06T11:50:00.000Z)", from the lock's last committed owner, or "". */
function describeOwner(db: Db): string {
  try {
    const row = db.prepare('SELECT pid, host, since FROM owner LIMIT 1').get() as { pid: number; host: string; since: string } | undefined;
    return row ? ` (pid ${row.pid} on host ${row.host}, since ${row.since})` : '';
  } catch {
    return '';
  }
}
