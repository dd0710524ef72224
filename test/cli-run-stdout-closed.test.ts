// `run | head -1`: the reader of the crossings goes away while the daemon counts. The next crossing's write threw
// EPIPE, unhandled: a stack trace, exit 1, and the daemon gone without its flush (the crossings it had printed
// missing from the database, their minute 0 vehicles at 0% uptime). Now it goes on counting, says once on stderr
// that the crossings are no longer printed, and stops as asked with its counts stored.
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { queryCounts } from '../dist/src/store/index.js';
import { startCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

test('run whose standard output is closed after the first crossing goes on counting and stores its counts', async () => {
  const dir = tempDir();
  const db = join(dir, 'counts.db');
  const cli = startCli(['run', '--db', db, '--duration', '14'], { cwd: dir });
  // The reader takes the first crossing line, then closes its end of the pipe, as `head -1` does.
  let first = '';
  await new Promise<void>((resolve) => {
    cli.proc.stdout!.on('data', (d: Buffer) => {
      if (first !== '') return;
      first = d.toString().split('\n')[0]!;
      cli.proc.stdout!.destroy();
      resolve();
    });
  });
  expect(first).toMatch(/  sim  \S+ +(in|out) /);
  const r = await cli.done;
  expect(r.stderr).not.toContain('EPIPE');
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('--duration 14s elapsed: flushing counts and stopping');
  // The simulator crosses a line every second or so: more than the one crossing read came after the pipe closed.
  expect(r.stderr).toContain('warning: standard output closed (its reader ended): crossings are no longer printed; counting and storing go on (query, /api/counts)');
  const rows = queryCounts(db, { bucket: 'day', format: 'json', byClass: false, timeZone: 'UTC' });
  expect(rows.reduce((n, row) => n + row.total, 0)).toBeGreaterThan(1);
  expect(rows.every((row) => row.uptime !== null && row.uptime > 0.5)).toBe(true);
}, 60_000);
