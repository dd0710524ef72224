// run with a zeromqEndpoint bound on every interface (tcp://0.0.0.0:0): its start line told remote decoders to
// "connect to tcp://0.0.0.0:42513", an address that sends a decoder on another host to itself. It now names the port
// as bound with HOST to fill in, and this machine's name and addresses to fill it with.
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runCli, startCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

test('the start line of run on tcp://0.0.0.0 names this host for the decoders, not 0.0.0.0', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const key = join(dir, 'zeromq.key');
  expect((await runCli(['zeromq-key', key])).code).toBe(0);
  const r = await runCli(['run', '--channel', 'zeromq', '--zeromq-endpoint', 'tcp://0.0.0.0:0', '--zeromq-key-file', key, '--db', join(dir, 'counts.db'), '--duration', '1']);
  expect(r.code, r.stderr).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.includes('counting 1 camera(s)')) ?? '';
  expect(line).toMatch(new RegExp(`decoders connect to tcp://HOST:[1-9]\\d* with --key-file and a copy of ${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; HOST: this machine's name \\(${hostname()}\\)`));
  expect(line).not.toContain('0.0.0.0');
  const ipv4 = Object.values(networkInterfaces()).flat().find((a) => a !== undefined && !a.internal && a.family === 'IPv4');
  if (ipv4 !== undefined) expect(line).toContain(ipv4.address);
});

test('the start line of run --http-host 0.0.0.0 names this host and loopback, not http://0.0.0.0', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const r = await runCli(['run', '--http', '0', '--http-host', '0.0.0.0', '--db', join(dir, 'counts.db'), '--duration', '1']);
  expect(r.code, r.stderr).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.includes('HTTP API and dashboard on')) ?? '';
  const port = /http:\/\/HOST:([1-9]\d*)\//.exec(line)?.[1];
  expect(port, line).toBeDefined();
  expect(line).toContain(`on this machine http://127.0.0.1:${port}/; from others HOST: this machine's name (${hostname()})`);
  expect(line).not.toContain('0.0.0.0');
});

test('camera-sim --host 0.0.0.0 gives its URLs with HOST and what to put for it, not http://0.0.0.0', { timeout: 30_000 }, async () => {
  const cli = startCli(['camera-sim', '--host', '0.0.0.0', '--port', '0']);
  for (let i = 0; i < 300 && !cli.stdout().includes('HOST: '); i++) await new Promise((r) => setTimeout(r, 50));
  const out = cli.stdout();
  const port = /listening on http:\/\/HOST:([1-9]\d*)\n/.exec(out)?.[1];
  expect(port, out).toBeDefined();
  expect(out).toContain(`  snapshot http://HOST:${port}/snapshot.jpg\n`);
  expect(out).toContain(`  config   http://HOST:${port}/config.json\n`);
  expect(out).toContain(`  HOST: this machine's name (${hostname()})`);
  expect(out).not.toContain('0.0.0.0');
  // What the line says for this machine reaches it.
  expect((await fetch(`http://127.0.0.1:${port}/snapshot.jpg`)).status).toBe(200);
  cli.proc.kill('SIGTERM');
  expect((await cli.done).code).toBe(0);
});
