// `run` refuses a flag that the rest of its command line would silently ignore (it used to count on without
// it): exit 2, naming both flags and the fix, before anything starts or any database is created.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

function configFile(dir: string, extra: Record<string, unknown> = {}): string {
  const file = join(dir, 'config.json');
  // Port 9 (discard) on loopback: nothing answers, and nothing should ever be asked.
  writeFileSync(file, JSON.stringify({ ...extra, cameras: [{ id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] }] }));
  return file;
}

describe('run refuses flags that would be ignored', () => {
  it.each([
    ['--seed with --config', (f: string) => ['--config', f, '--seed', '7'], /run: --seed 7 seeds the built-in simulated camera, which runs only without --config and --camera; drop --seed, or drop --config \S+config\.json to count the simulator/],
    ['--seed with --camera', () => ['--camera', 'http://127.0.0.1:9/x.jpg', '--seed', '7'], /run: --seed 7 .*drop --seed, or drop --camera http:\/\/127\.0\.0\.1:9\/x\.jpg to count the simulator/],
    ['--zeromq-endpoint without --channel zeromq', () => ['--zeromq-endpoint', 'tcp://127.0.0.1:5555'], /run: --zeromq-endpoint tcp:\/\/127\.0\.0\.1:5555 is used only by the zeromq channel, but the channel is ipc \(the default\); add --channel zeromq, or drop --zeromq-endpoint/],
    ['--zeromq-endpoint with --channel shared', () => ['--channel', 'shared', '--zeromq-endpoint', 'tcp://127.0.0.1:5555'], /but the channel is shared \(--channel shared\); add --channel zeromq/],
    ['--zeromq-endpoint with a config whose channel is ipc', (f: string) => ['--config', f, '--zeromq-endpoint', 'tcp://127.0.0.1:5555'], /but the channel is ipc \(--config \S+config\.json, or the default\)/],
    ['--http-host without --http', () => ['--http-host', '0.0.0.0'], /run: --http-host 0\.0\.0\.0 is where the HTTP API listens, but the API is off without --http PORT; add --http PORT \(0 = any free port\), or drop --http-host/],
    ['--tls-fingerprint with --config', (f: string) => ['--config', f, '--tls-fingerprint', 'AB'], /run: --tls-fingerprint is for an https:\/\/ --camera URL only; in --config \S+config\.json, set the camera's "tlsFingerprint"/],
    ['--tls-insecure without --camera', () => ['--tls-insecure'], /run: --tls-insecure is for an https:\/\/ --camera URL only; add --camera URL/],
    ['--tls-insecure with an http:// --camera', () => ['--camera', 'http://admin:s3cret@127.0.0.1:9/x.jpg', '--tls-insecure'], /run: --tls-insecure is for an https:\/\/ --camera URL only, and http:\/\/admin:\*\*\*@127\.0\.0\.1:9\/x\.jpg is not one; drop --tls-insecure/],
    ['--seed with a --camera holding a password', () => ['--camera', 'http://admin:s3cret@127.0.0.1:9/x.jpg', '--seed', '7'], /drop --camera http:\/\/admin:\*\*\*@127\.0\.0\.1:9\/x\.jpg to count the simulator/],
    // Refused before the simulator starts or a --camera is probed (helper 40: the simulator's URL came first).
    ['--decoders 0 without --channel zeromq', () => ['--decoders', '0'], /run: --decoders 0 \(no local decoder: remote `traffic-counter decoder` processes only\) needs the zeromq channel, but the channel is ipc \(the default\); add --channel zeromq --zeromq-endpoint tcp:\/\/HOST:PORT, or give --decoders 1 or more/],
    ['--decoders 0 with --channel shared and --camera', () => ['--camera', 'http://127.0.0.1:9/x.jpg', '--channel', 'shared', '--decoders', '0'], /needs the zeromq channel, but the channel is shared \(--channel shared\)/],
    ['--decoders 0 with a config whose channel is ipc', (f: string) => ['--config', f, '--decoders', '0'], /needs the zeromq channel, but the channel is ipc \(--config \S+config\.json, or the default\)/],
    ['--channel zeromq --decoders 0 without a tcp:// endpoint, simulator', () => ['--channel', 'zeromq', '--decoders', '0'], /--decoders: 0 local decoders needs a zeromqEndpoint "tcp:\/\/HOST:PORT"/],
    ['--channel zeromq --decoders 0 without a tcp:// endpoint, --camera (not after the probe)', () => ['--camera', 'http://127.0.0.1:9/x.jpg', '--channel', 'zeromq', '--decoders', '0'], /--decoders: 0 local decoders needs a zeromqEndpoint "tcp:\/\/HOST:PORT"/],
    // A shell variable not set (`--config "$CONFIG"`): it started the simulator and counted it into the database.
    ['an empty --config', () => ['--config', ''], /run: --config given empty; give the config file, or leave --config out to count the built-in simulator/],
    ['an empty --camera', () => ['--camera', ''], /run: --camera given empty; give the camera's snapshot or MJPEG URL, or leave --camera out/],
    // An empty --zeromq-key-file left the tcp:// link unencrypted, without a word.
    ['an empty --zeromq-key-file', () => ['--channel', 'zeromq', '--zeromq-endpoint', 'tcp://127.0.0.1:0', '--zeromq-key-file', ''], /run: --zeromq-key-file given empty; give the key file written by `traffic-counter zeromq-key FILE`, or leave --zeromq-key-file out/],
    ['an empty --zeromq-endpoint', () => ['--channel', 'zeromq', '--zeromq-endpoint', ''], /run: --zeromq-endpoint given empty; give ipc:\/\/PATH or tcp:\/\/HOST:PORT/],
    ['--decoder with --decoders 0', () => ['--channel', 'zeromq', '--zeromq-endpoint', 'tcp://127.0.0.1:0', '--decoders', '0', '--decoder', 'sharp'], /run: --decoder sharp picks the local decoders' library, but --decoders 0 runs none .*drop --decoder, or give --decoders 1 or more/],
  ])('%s', async (_name, args, message) => {
    const dir = tempDir();
    const db = join(dir, 'counts.db');
    // --duration: without the check the daemon would count for a second and exit 0.
    const r = await runCli(['run', ...args(configFile(dir)), '--db', db, '--duration', '1'], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('[TC_ERR_USAGE]');
    expect(r.stderr).not.toContain('simulated camera at');
    expect(existsSync(db)).toBe(false);
  }, 20_000);

  it('takes --http-host when the config turns HTTP on (httpPort), and --zeromq-endpoint when it picks zeromq', async () => {
    const dir = tempDir();
    const db = join(dir, 'counts.db');
    const file = configFile(dir, { httpPort: 0, channel: 'zeromq' });
    const r = await runCli(['run', '--config', file, '--zeromq-endpoint', 'tcp://127.0.0.1:0', '--http', '0', '--http-host', '127.0.0.1', '--db', db, '--duration', '1'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('over the zeromq-tcp channel');
    expect(r.stderr).toMatch(/HTTP API and dashboard on http:\/\/127\.0\.0\.1:\d+\//);
    expect(r.stderr).not.toContain('is not used');
  }, 30_000);

  it('counts with a config whose channel leaves some of its keys unread, and says which at start', async () => {
    const dir = tempDir();
    const db = join(dir, 'counts.db');
    const file = configFile(dir, { channel: 'shared', zeromqEndpoint: 'tcp://127.0.0.1:5555', ipcSerialization: 'json' });
    const r = await runCli(['run', '--config', file, '--db', db, '--duration', '1'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: \S+config\.json: zeromqEndpoint "tcp:\/\/127\.0\.0\.1:5555" is not used: the channel is shared, and only the zeromq channel listens there \(set "channel": "zeromq" to use it\)/);
    expect(r.stderr).toMatch(/warning: \S+config\.json: ipcSerialization "json" is not used: the channel is shared/);
    expect(r.stderr).toContain('over the shared channel');
  }, 30_000);

  it('names --channel, not the file, when the flag picked the channel that leaves the key unread', async () => {
    const { unusedKeys } = await import('../dist/src/cli/run-command.js');
    const { validateConfig } = await import('../dist/src/config/validate-config.js');
    const camera = { id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] };
    // The file says zeromq; --channel shared overrode it.
    const config = { ...validateConfig({ cameras: [camera], channel: 'zeromq', zeromqEndpoint: 'tcp://127.0.0.1:5555' }), channel: 'shared' as const };
    expect(unusedKeys(config, 'my.json', true)).toEqual([
      'my.json: zeromqEndpoint "tcp://127.0.0.1:5555" is not used: the channel is shared (--channel shared), and only the zeromq channel listens there (give --channel zeromq to use it)',
    ]);
    expect(unusedKeys({ ...config, channel: 'zeromq' }, 'my.json', false)).toEqual([]);
  });
});

describe('a flag given twice', () => {
  it('is refused naming both values, not settled by the last one (query would answer by the hour)', async () => {
    const dir = tempDir();
    const r = await runCli(['query', '--db', join(dir, 'counts.db'), '--bucket', 'minute', '--bucket', 'hour'], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`query: --bucket given twice ("minute", then "hour"); give it once`);
    const run = await runCli(['run', '--duration', '1', '--duration', '5', '--db', join(dir, 'run.db')], { cwd: dir });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`run: --duration given twice ("1", then "5")`);
    expect(existsSync(join(dir, 'run.db'))).toBe(false);
  }, 20_000);
});
