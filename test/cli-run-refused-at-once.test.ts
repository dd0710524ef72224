// `run` refuses what the daemon would refuse only once started (a zeromq key file that is missing or not one, a
// non-loopback zeromq endpoint without a key, a folder given as the database) before anything starts: the
// simulator used to print its URL first, the --camera probe to ask the camera, a config's run to create the
// database. Exit 2, the channel's and the store's messages.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CountStore } from '../dist/src/store/index.js';
import { StoreError } from '../dist/src/errors.js';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { runCli } from './helpers/run-cli.js';
import { makeJpeg, startCamera } from './helpers/source-http.js';
import { takenPort } from './helpers/taken-port.js';
import { tempDir } from './helpers/temp-dir.js';

const NO_SUCH_KEY = /zeromqKeyFile \S+missing\.key: no such file; create it with `traffic-counter zeromq-key \S+missing\.key` and give a copy to each decoder \(--key-file\) \[TC_ERR_CONFIG\]/;
const NOT_A_KEY = /zeromqKeyFile \S+bad\.key: not a zeromq key file \(not valid JSON\); expected \{"publicKey": "\.\.\.", "secretKey": "\.\.\."\}/;
const OPEN_ENDPOINT = /zeromqEndpoint: "tcp:\/\/0\.0\.0\.0:0" lets any machine that reaches it in as a decoder.*and zeromqKeyFile is not set; create a key file with `traffic-counter zeromq-key FILE`, set zeromqKeyFile \(--zeromq-key-file\) to it .*or bind a loopback address \(tcp:\/\/127\.0\.0\.1:PORT\) \[TC_ERR_CONFIG\]/;
const FOLDER_DB = /\S+folder: is a folder, not a database file; give a file path, e.g\. \S+folder\/counts\.db \(--db, or "db" in the config\) \[TC_ERR_CONFIG\]/;

/** Each case: the flags after `run` (the database is given by the case, or counts.db in the temp folder). */
const CASES: [string, (dir: string) => string[], RegExp][] = [
  ['a --zeromq-key-file that does not exist', (d) => ['--channel', 'zeromq', '--zeromq-key-file', join(d, 'missing.key')], NO_SUCH_KEY],
  ['a --zeromq-key-file that is not a key file', (d) => ['--channel', 'zeromq', '--zeromq-key-file', join(d, 'bad.key')], NOT_A_KEY],
  ['a tcp://0.0.0.0 --zeromq-endpoint without a key file', () => ['--channel', 'zeromq', '--zeromq-endpoint', 'tcp://0.0.0.0:0'], OPEN_ENDPOINT],
  ['a folder as --db', (d) => ['--db', join(d, 'folder')], FOLDER_DB],
];

/** A temp folder with a malformed key file (mode 0600, as a key file must be) and a folder to give as the database. */
function setUp(): { dir: string; db: string } {
  const dir = tempDir();
  writeFileSync(join(dir, 'bad.key'), 'not json\n');
  chmodSync(join(dir, 'bad.key'), 0o600);
  mkdirSync(join(dir, 'folder'));
  return { dir, db: join(dir, 'counts.db') };
}

function expectRefused(r: { code: number | null; stderr: string }, message: RegExp, db: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toContain('simulated camera at');
  expect(r.stderr).not.toContain('counting 1 camera(s)');
  expect(existsSync(db)).toBe(false);
}

describe('run refuses a bad key file, an open endpoint without a key or a folder as --db before anything starts', () => {
  it.each(CASES)('simulator: %s', async (_name, args, message) => {
    const { dir, db } = setUp();
    const flags = args(dir);
    // --duration: without the check the simulator starts, and the refusal comes seconds later.
    const r = await runCli(['run', ...flags, ...(flags.includes('--db') ? [] : ['--db', db]), '--duration', '1'], { cwd: dir });
    expectRefused(r, message, db);
  }, 20_000);

  it.each(CASES)('--camera: %s, the camera never asked', async (_name, args, message) => {
    const { dir, db } = setUp();
    const camera = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(100)));
    const flags = args(dir);
    const r = await runCli(['run', '--camera', camera.url, ...flags, ...(flags.includes('--db') ? [] : ['--db', db]), '--duration', '1'], { cwd: dir });
    expectRefused(r, message, db);
    expect(r.stderr).not.toContain('no config given');
    expect(camera.requests).toHaveLength(0);
  }, 20_000);

  it.each(CASES)('--config: %s, the database not created', async (_name, args, message) => {
    const { dir, db } = setUp();
    const camera = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(100)));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ db, cameras: [{ id: 'c', url: camera.url, roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] }] }));
    const r = await runCli(['run', '--config', file, ...args(dir), '--duration', '1'], { cwd: dir });
    expectRefused(r, message, db);
    expect(camera.requests).toHaveLength(0);
  }, 20_000);

  it('takes the same in a config file: a folder as "db", an open endpoint without "zeromqKeyFile"', async () => {
    const { dir, db } = setUp();
    for (const [keys, message] of [
      [{ db: join(dir, 'folder') }, FOLDER_DB],
      [{ db, channel: 'zeromq', zeromqEndpoint: 'tcp://0.0.0.0:0' }, OPEN_ENDPOINT],
      [{ db, channel: 'zeromq', zeromqKeyFile: join(dir, 'missing.key') }, NO_SUCH_KEY],
    ] as const) {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ ...keys, cameras: [{ id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] }] }));
      expectRefused(await runCli(['run', '--config', file, '--duration', '1'], { cwd: dir }), message, db);
    }
  }, 20_000);

  it('a --db path through a file: refused in one line naming the file, not with the stat error and its stack', async () => {
    // Before: "traffic-counter: ENOTDIR: not a directory, stat '…/plain/counts.db'" and the stack, status 1.
    const { dir } = setUp();
    writeFileSync(join(dir, 'plain'), 'a file\n');
    for (const db of [join(dir, 'plain', 'counts.db'), join(dir, 'plain', 'sub', 'counts.db')]) {
      const r = await runCli(['run', '--db', db, '--duration', '1'], { cwd: dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(`traffic-counter: ${db}: ${join(dir, 'plain')} is a file, not a folder; give a database file path in a folder (--db, or "db" in the config) [TC_ERR_CONFIG]\n`);
    }
    // The store, used as a library, says the same.
    expect(() => CountStore.open(join(dir, 'plain', 'counts.db'))).toThrow(StoreError);
    expect(() => CountStore.open(join(dir, 'plain', 'counts.db'))).toThrow(`${join(dir, 'plain')} is a file, not a folder`);
  }, 20_000);

  it('Daemon.start, used as a library, refuses a missing key file or an open endpoint before the database is created', async () => {
    const { dir, db } = setUp();
    const camera = { id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] };
    for (const [keys, message] of [
      [{ zeromqKeyFile: join(dir, 'missing.key') }, /zeromqKeyFile \S+missing\.key: no such file/],
      [{ zeromqEndpoint: 'tcp://0.0.0.0:0' }, /lets any machine that reaches it in as a decoder/],
    ] as const) {
      // Before: the store opened first, leaving counts.db (and its lock) behind the refusal.
      await expect(Daemon.start(validateConfig({ db, channel: 'zeromq', ...keys, cameras: [camera] }))).rejects.toThrow(message);
      expect(existsSync(db)).toBe(false);
    }
  }, 20_000);

  it('still counts with a valid key file, and with a --db file in a folder not made yet', async () => {
    const { dir } = setUp();
    const key = join(dir, 'good.key');
    expect((await runCli(['zeromq-key', key])).code).toBe(0);
    const db = join(dir, 'new', 'counts.db');
    const r = await runCli(['run', '--channel', 'zeromq', '--zeromq-endpoint', 'tcp://127.0.0.1:0', '--zeromq-key-file', key, '--db', db, '--duration', '1'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('simulated camera at');
    expect(r.stderr).toMatch(/over the zeromq-tcp channel \(decoders connect to tcp:\/\/127\.0\.0\.1:\d+ with --key-file/);
    expect(existsSync(db)).toBe(true);
  }, 30_000);
});

describe('run --http with its port in use', () => {
  it('is refused before the simulator starts, the camera is asked or the database is made', async () => {
    // Before: the simulator started and the database was created, with a row for the minute (0 vehicles, uptime
    // -, monitored 0%), then the port was found taken.
    const { dir, db } = setUp();
    const port = await takenPort();
    const message = `traffic-counter: http API: --http (httpPort) ${port}: the port is already in use on 127.0.0.1; choose another port, or 0 for any free port [TC_ERR_USAGE]\n`;
    const r = await runCli(['run', '--http', String(port), '--db', db, '--duration', '1'], { cwd: dir });
    expectRefused(r, /the port is already in use/, db);
    expect(r.stderr).toBe(message);

    const camera = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(100)));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ db, httpPort: port, cameras: [{ id: 'c', url: camera.url, roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] }] }));
    const c = await runCli(['run', '--config', file, '--duration', '1'], { cwd: dir });
    expectRefused(c, /the port is already in use/, db);
    expect(c.stderr).toBe(message);
    const p = await runCli(['run', '--camera', camera.url, '--http', String(port), '--db', db, '--duration', '1'], { cwd: dir });
    expectRefused(p, /the port is already in use/, db);
    expect(camera.requests).toHaveLength(0);
  }, 30_000);
});

it('a database another traffic-counter counts into: refused before the simulator or the camera probe starts, and run once it is free', async () => {
  // Before: the simulator printed its URL (or --camera asked the camera, up to 15 s) and then the store refused.
  const { db } = setUp();
  const first = CountStore.open(db);
  onTestFinished(() => first.close());
  const camera = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(100)));
  for (const source of [[], ['--camera', camera.url]]) {
    const r = await runCli(['run', ...source, '--db', db, '--duration', '1']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`another traffic-counter \\(pid ${process.pid} on host .+\\) is counting into this database; stop it first.* \\[TC_ERR_STORE\\]\\n$`));
    expect(r.stderr).not.toContain('simulated camera at');
  }
  expect(camera.requests).toHaveLength(0);
  first.close();
  const r = await runCli(['run', '--db', db, '--duration', '1']);
  expect(r.code, r.stderr).toBe(0);
}, 30_000);
