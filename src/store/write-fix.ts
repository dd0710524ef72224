// The fix a refused write names: disk space or another writer's lock, or which files a read-only database's user may
// not write. Said where the daemon writes: at open (the writer lock, the schema's migrations), registering a camera,
// each flush and close.

import fs from 'node:fs';
import path from 'node:path';

/** What to check when a write fails: the fix named by every write error below (see writeFix). */
const WRITE_FIX = 'check disk space and that no other process holds a write lock';

/**
 * The fix for a write SQLite refused: a read-only file or folder (SQLITE_READONLY: a file of another user, a read-only
 * mount, chmod a-w) is fixed by neither disk space nor a lock, nor a full disk (SQLITE_FULL) by a lock; WRITE_FIX names
 * both for everything else.
 */
export function writeFix(file: string, err: unknown): string {
  const code = errorCode(err);
  if (code === 'SQLITE_FULL') return `the disk is full: free space on the disk that holds ${path.dirname(path.resolve(file))}, or give it another --db`;
  if (code?.startsWith('SQLITE_READONLY') === true) {
    // Which of them this user may not write: SQLite makes the -wal and -shm files with the database file's mode, so
    // after an attempt on a chmod a-w file a read-only -shm stays behind, and making the file alone writable again
    // (what the advice first brings to mind) still failed, with the same words.
    const readOnly = notWritable([file, `${file}-wal`, `${file}-shm`, path.dirname(file)]);
    if (readOnly.length > 0) {
      return `the database is read-only: make ${readOnly.join(', ')} writable by the user the daemon runs as (${readOnly.length === 1 ? 'it is' : 'they are'} not), or the mount read-write, or give it another --db`;
    }
    return `the database is read-only: make ${file}, its -wal and -shm files and its folder writable by the user the daemon runs as (or the mount read-write), or give it another --db`;
  }
  return WRITE_FIX;
}

/** Those of the paths that exist and this process may not write (a missing one is SQLite's to create). */
function notWritable(paths: readonly string[]): string[] {
  return paths.filter((p) => {
    try {
      fs.accessSync(p, fs.constants.W_OK);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  });
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * writeFix for a full disk or a read-only database, else undefined: for the steps that open the database (its writer
 * lock, its schema), whose own advice (a writable folder, a traffic-counter database) is for the rest. They said
 * "check that its folder is writable" of a full disk.
 */
export function refusedWriteFix(file: string, err: unknown): string | undefined {
  const code = errorCode(err) ?? '';
  return code === 'SQLITE_FULL' || code.startsWith('SQLITE_READONLY') ? writeFix(file, err) : undefined;
}
