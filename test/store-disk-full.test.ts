// A full disk at start: the writer lock (the first file the daemon writes) said "check that its folder is writable"
// of a folder that is writable, on a disk with no space left. Needs a small tmpfs of its own (root, mount allowed):
// skipped where it cannot mount one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { CountStore, writeFix } from '../dist/src/store/count-store.js';

/** A fresh 256 KiB tmpfs in a temp folder, unmounted after the test; undefined where mounting is not allowed. */
function smallDisk(): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

function unmount(dir: string): void {
  execFileSync('umount', [dir]);
  fs.rmSync(dir, { recursive: true, force: true });
}

// Whether this machine lets the test mount one (CI runs as root).
const probe = process.getuid?.() === 0 ? smallDisk() : undefined;
if (probe !== undefined) unmount(probe);

test.skipIf(probe === undefined)('a database on a full disk is refused at open with "the disk is full", naming its folder', () => {
  const dir = smallDisk() as string;
  onTestFinished(() => unmount(dir));
  const file = path.join(dir, 'counts.db');
  // The disk filled to the last byte.
  expect(() => fs.writeFileSync(path.join(dir, 'filler'), Buffer.alloc(1 << 20))).toThrow(expect.objectContaining({ code: 'ENOSPC' }));

  expect(() => CountStore.open(file)).toThrow(
    expect.objectContaining({
      code: 'TC_ERR_STORE',
      message: expect.stringMatching(
        new RegExp(`^${file}-lock: cannot take the database's writer lock \\(database or disk is full\\); the disk is full: free space on the disk that holds ${dir}, or give it another --db$`),
      ),
    }),
  );
  // Space freed, the same file opens.
  fs.rmSync(path.join(dir, 'filler'));
  CountStore.open(file).close();
});

test('a write refused for a full disk names the disk, not a lock', () => {
  expect(writeFix('/data/counts.db', Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(
    'the disk is full: free space on the disk that holds /data, or give it another --db',
  );
});
