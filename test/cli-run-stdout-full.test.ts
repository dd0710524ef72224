// `run > crossings.txt` on a full disk: a write to a file that fails (ENOSPC) throws at once, not as an 'error'
// event as a closed pipe's EPIPE does. It killed the daemon at its first crossing, exit 1 with a stack trace, without
// its flush (its minute 0 vehicles at 0.0% uptime). Now it says once that the crossings are no longer printed and
// goes on counting; likewise a log (stderr) that cannot be written. /dev/full stands for the full disk.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { queryCounts } from '../dist/src/store/index.js';
import { CLI } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

/**
 * Runs the daemon on the simulator with `stream` sent to /dev/full, until its database holds a crossing (a crossing
 * is printed before it is stored: the daemon that died at its first crossing never got there), then stops it with
 * SIGINT. Waiting for a crossing, not a fixed time: on a loaded machine the first one can take longer.
 */
async function runWithFull(stream: 'stdout' | 'stderr', db: string, cwd: string): Promise<{ code: number | null; other: string }> {
  const full = openSync('/dev/full', 'w');
  const proc = spawn(process.execPath, [CLI, 'run', '--db', db, '--duration', '90'], {
    cwd,
    stdio: ['ignore', stream === 'stdout' ? full : 'pipe', stream === 'stderr' ? full : 'pipe'],
  });
  closeSync(full);
  onTestFinished(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let other = '';
  (stream === 'stdout' ? proc.stderr : proc.stdout)!.on('data', (d: Buffer) => (other += d));
  const closed = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  let ended = false;
  void closed.then(() => (ended = true));
  while (!ended) {
    await new Promise((r) => setTimeout(r, 500));
    let total = 0;
    try {
      total = stored(db).total;
    } catch {
      // not created yet
    }
    if (total > 0) {
      proc.kill('SIGINT');
      break;
    }
  }
  return { code: await closed, other };
}

function stored(db: string): { total: number; uptimes: (number | null)[] } {
  const rows = queryCounts(db, { bucket: 'day', format: 'json', byClass: false, timeZone: 'UTC' });
  return { total: rows.reduce((n, row) => n + row.total, 0), uptimes: rows.map((row) => row.uptime) };
}

test.skipIf(!existsSync('/dev/full'))('run whose standard output cannot be written (ENOSPC) goes on counting and stores its counts', async () => {
  const dir = tempDir();
  const db = join(dir, 'counts.db');
  const r = await runWithFull('stdout', db, dir);
  expect(r.other).not.toContain('ENOSPC: no space left');
  expect(r.code, r.other).toBe(0);
  expect(r.other.match(/standard output could not be written/g)).toEqual(['standard output could not be written']);
  expect(r.other).toContain('warning: standard output could not be written (ENOSPC): crossings are no longer printed; counting and storing go on');
  expect(r.other).toContain('SIGINT: flushing counts and stopping');
  const s = stored(db);
  expect(s.total).toBeGreaterThan(0);
  // Its uptime stored too (the daemon that died at its first crossing left 0.0%); how high depends on the machine's load.
  expect(s.uptimes.every((u) => u !== null && u > 0), JSON.stringify(s.uptimes)).toBe(true);
}, 120_000);

test.skipIf(!existsSync('/dev/full'))('run whose log (stderr) cannot be written goes on counting, prints its crossings and stores them', async () => {
  const dir = tempDir();
  const db = join(dir, 'counts.db');
  const r = await runWithFull('stderr', db, dir);
  expect(r.code).toBe(0);
  const printed = r.other.split('\n').filter((l) => /  sim  \S+ +(in|out) /.test(l)).length;
  expect(printed).toBeGreaterThan(0);
  expect(stored(db).total).toBe(printed);
}, 120_000);
