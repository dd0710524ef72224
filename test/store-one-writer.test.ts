// One writer per count database: a second daemon started on the same file would store every vehicle twice. It is
// refused at once, naming the process that counts there, and the file is free again as soon as that process ends,
// however it ends (kill -9 included: no stale lock to clear by hand).
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { CountStore, parseQueryParams, queryCounts } from '../dist/src/store/index.js';
import { runCli, startCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

const line = { id: 'a', from: [0, 0] as const, to: [10, 0] as const };

it('a second store on the same file is refused, naming the first, while reading goes on; once closed, it opens', () => {
  const db = join(tempDir(), 'counts.db');
  const first = CountStore.open(db);
  onTestFinished(() => first.close());
  first.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: [line] });
  first.addEvents([{ cameraId: 'cam1', lineId: 'a', direction: 'in', timeMs: Date.UTC(2026, 0, 1), trackId: 1, vehicleClass: 'car', areaPx: 800, bbox: [1, 2, 3, 4], speedPxPerS: 40, framesSeen: 5 }]);
  first.flush();

  expect(() => CountStore.open(db)).toThrow(
    expect.objectContaining({ code: 'TC_ERR_STORE', message: expect.stringMatching(new RegExp(`another traffic-counter \\(pid ${process.pid} on host .+\\) is counting into this database; stop it first`)) }),
  );
  // Readers are not writers: `query` and the HTTP API read as before.
  expect(queryCounts(db, parseQueryParams({ bucket: 'day' }, 'cli'))).toMatchObject([{ in: 1, out: 0 }]);

  first.close();
  const second = CountStore.open(db);
  expect(second.totals('cam1')).toEqual([{ cameraId: 'cam1', lineId: 'a', in: 1, out: 0 }]);
  second.close();
});

it('the lock is the file\'s, whatever path names it; a damaged lock file is replaced; a path that is no database leaves none', () => {
  const dir = tempDir();
  const db = join(dir, 'counts.db');
  const first = CountStore.open(db);
  onTestFinished(() => first.close());
  // A symlink to the database, or a path through `..`, is the same database: refused.
  symlinkSync(db, join(dir, 'link.db'));
  for (const other of [join(dir, 'link.db'), join(dir, '..', dir.split('/').pop()!, 'counts.db')]) {
    expect(() => CountStore.open(other)).toThrow(/another traffic-counter \(pid \d+/);
  }
  first.close();

  // A link to a database not created yet: SQLite creates the link's target, and the lock is the target's.
  const later = join(dir, 'later.db');
  symlinkSync(later, join(dir, 'later-link.db'));
  const viaLink = CountStore.open(join(dir, 'later-link.db'));
  expect(() => CountStore.open(later)).toThrow(/another traffic-counter \(pid \d+/);
  viaLink.close();

  // A lock file that is not a SQLite file (damaged, or another program's): no one can hold it; it is replaced.
  writeFileSync(`${db}-lock`, 'not a database');
  CountStore.open(db).close();

  // A mistyped --db (a folder) is refused as a folder, naming a file to give (SQLite said only "unable to open
  // database file"; query: "disk I/O error"), with no lock file left behind.
  mkdirSync(join(dir, 'folder'));
  expect(() => CountStore.open(join(dir, 'folder'))).toThrow(`${join(dir, 'folder')}: is a folder, not a database file; give a file path, e.g. ${join(dir, 'folder', 'counts.db')}`);
  expect(() => queryCounts(join(dir, 'folder'), parseQueryParams({ bucket: 'hour' }, 'cli'))).toThrow(`${join(dir, 'folder')}: is a folder, not a database file; pass the database file the daemon writes (--db)`);
  expect(readdirSync(dir).sort()).toEqual(['counts.db', 'counts.db-lock', 'folder', 'later-link.db', 'later.db', 'later.db-lock', 'link.db']);

  // In memory: nothing to share, no lock, no file.
  const a = CountStore.open(':memory:');
  const b = CountStore.open(':memory:');
  a.close();
  b.close();
  expect(existsSync(':memory:-lock')).toBe(false);
});

it('run on a database another run counts into exits 1 naming it; after that one is killed (-9), run starts', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const db = join(dir, 'counts.db');
  const config = join(dir, 'config.json');
  // Port 9 on loopback: no camera answers, and the daemon keeps running.
  const camera = { id: 'cam1', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [16, 0], [16, 16], [0, 16]], lines: [{ id: 'north', from: [0, 8], to: [16, 8] }] };
  writeFileSync(config, JSON.stringify({ db, cameras: [camera] }));
  const started = async (): Promise<ReturnType<typeof startCli>> => {
    const run = startCli(['run', '--config', config]);
    await expect.poll(run.stderr, { timeout: 30_000 }).toContain('counting 1 camera(s)'); // the log is on stderr
    return run;
  };

  const first = await started();
  const second = await runCli(['run', '--config', config, '--duration', '5']);
  expect(second.code).toBe(1);
  expect(second.stderr).toContain(`${db}: another traffic-counter (pid ${first.proc.pid} on host `);
  expect(second.stderr).toContain('two would store every vehicle twice [TC_ERR_STORE]');

  first.proc.kill('SIGKILL');
  await first.done;
  const third = await started();
  third.proc.kill('SIGINT');
  expect((await third.done).code).toBe(0);
});
