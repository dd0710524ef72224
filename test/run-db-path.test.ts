// A relative "db" in a config file is taken from the directory `run` starts in (as --db is), not from the config
// file's directory (README, Configuration); the start-up log shows the full path it resolved to.
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

test('a relative db in the config is created under the working directory, and the log says where', async () => {
  const work = realpathSync(tempDir());
  const configDir = join(tempDir(), 'config');
  mkdirSync(configDir);
  const config = join(configDir, 'config.json');
  // Port 9 on loopback: no camera answers; the daemon still opens its database at start.
  writeFileSync(config, JSON.stringify({ db: 'data/counts.db', cameras: [{ id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] }] }));
  const r = await runCli(['run', '--config', config, '--duration', '1'], { cwd: work });
  expect(r.code, r.stderr).toBe(0);
  expect(existsSync(join(work, 'data', 'counts.db'))).toBe(true);
  expect(existsSync(join(configDir, 'data'))).toBe(false);
  expect(r.stderr).toContain(`; database data/counts.db (${join(work, 'data', 'counts.db')})`);
}, 30_000);
