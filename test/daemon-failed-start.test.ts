// A start that fails after the database is open and the decoders are running (here: another process holds the
// database's write lock, so registering a camera fails) releases both before it throws: no connection to the
// file and no decoder child is left behind, and `run` says why in one line.
import { existsSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { CountStore } from '../dist/src/store/index.js';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

// Port 9 on loopback: no camera answers; the start fails before any camera is polled anyway.
const camera = { id: 'cam1', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [16, 0], [16, 16], [0, 16]], lines: [{ id: 'north', from: [0, 8], to: [16, 8] }] };

/** A migrated database at `file` whose write lock another connection holds until the test ends (or `release`). */
function lockedDatabase(file: string): { release: () => void } {
  CountStore.open(file).close();
  const holder = new Database(file);
  holder.exec('BEGIN IMMEDIATE');
  const release = (): void => {
    if (!holder.open) return;
    holder.exec('ROLLBACK');
    holder.close();
  };
  onTestFinished(release);
  return { release };
}

/** This process's open file descriptors on `file` (Linux; elsewhere null: not observable). */
function fdsOn(file: string): number | null {
  if (!existsSync('/proc/self/fd')) return null;
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // Closed since the listing (the listing's own descriptor, among others).
    }
  }
  return n;
}

/** Child processes this process holds a handle on (the ipc channel's decoders). */
const children = (): number => process.getActiveResourcesInfo().filter((r) => r === 'ProcessWrap').length;

it('releases the database and the decoders when registering a camera fails, and rethrows that error', { timeout: 30_000 }, async () => {
  const db = join(tempDir(), 'counts.db');
  const lock = lockedDatabase(db);
  const config = validateConfig({ db, channel: 'ipc', decoders: 2, cameras: [camera] });
  const before = { fds: fdsOn(db), children: children() };

  // Sampled while the start waits for the lock (busy timeout, 5 s): the store and the decoders were open.
  const during = { fds: 0, children: 0 };
  const sample = setInterval(() => {
    during.fds = Math.max(during.fds, fdsOn(db) ?? 0);
    during.children = Math.max(during.children, children());
  }, 50);
  onTestFinished(() => clearInterval(sample));
  const warned: string[] = [];
  const started = Daemon.start(config, { log: { info: () => {}, warn: (m: string) => warned.push(m) } });
  onTestFinished(async () => (await started.catch(() => null))?.close());
  await expect(started).rejects.toMatchObject({
    code: 'TC_ERR_STORE',
    message: `${db}: could not register camera cam1 (database is locked); check disk space and that no other process holds a write lock`,
  });
  clearInterval(sample);
  expect(during.children).toBe(before.children + 2);
  if (before.fds !== null) expect(during.fds).toBeGreaterThan(before.fds);

  // The decoders exited (their handles close a turn of the event loop after).
  await expect.poll(children, { timeout: 2_000 }).toBe(before.children);
  // The daemon's connection is closed: once the lock holder's is too, no descriptor is left on the file (SQLite
  // keeps a closed connection's descriptor while another in the process holds a lock), and SQLite, closing the
  // last connection, has checkpointed and removed the write-ahead log.
  lock.release();
  expect(fdsOn(db)).toBe(before.fds === null ? null : 0);
  expect(existsSync(`${db}-wal`)).toBe(false);
  // And the database takes writes again, without waiting for anyone.
  const store = CountStore.open(db, { busyTimeoutMs: 1 });
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: [] });
  store.close();
  expect(warned).toEqual([]);
});

it('run reports the failed start in one line naming the database and the fix, and exits 1', { timeout: 30_000 }, async () => {
  const dir = tempDir();
  const db = join(dir, 'counts.db');
  lockedDatabase(db);
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ db, cameras: [camera] }));

  const r = await runCli(['run', '--config', config, '--duration', '1']);

  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toBe(
    `traffic-counter: ${db}: could not register camera cam1 (database is locked); check disk space and that no other process holds a write lock [TC_ERR_STORE]\n`,
  );
  expect(r.stdout).toBe('');
});
