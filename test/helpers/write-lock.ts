// Makes a count database refuse writes: another connection holds its write lock (SQLITE_BUSY for every write).
import { onTestFinished } from 'vitest';
import { Database } from '../../dist/src/store/sqlite-driver.js';

/** Holds `file`'s write lock until the returned function is called or the test ends. */
export function lockWrites(file: string): () => void {
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    other.exec('ROLLBACK');
    other.close();
  };
  onTestFinished(release);
  return release;
}
