// The zeromq channel's private ipc:// socket (no zeromqEndpoint) is a file in the temp dir, named after the daemon's
// pid. A daemon killed with -9 cannot remove it: before, each one stayed in /tmp for good (14 after a day of testing).
// The next daemon removes such files, and only those: sockets at its own name pattern whose daemon is gone and that
// nothing listens on.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { tempDir } from './helpers/temp-dir.js';

const CHANNEL = fileURLToPath(new URL('../dist/src/channel/zeromq-channel.js', import.meta.url));

/** Runs `script` in a child node with TMPDIR=`dir`; kills it with SIGKILL after its first line of output; returns that line and its pid. */
async function killedAfterFirstLine(script: string, dir: string): Promise<{ line: string; pid: number }> {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: dir } });
  onTestFinished(() => void proc.kill('SIGKILL'));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    proc.once('exit', (code) => reject(new Error(`exited with ${code} before its first line`)));
  });
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
  return { line, pid: proc.pid! };
}

/** A socket file at `path` that nothing listens on: its process was killed. Returns that process's pid. */
async function staleSocket(path: string, dir: string): Promise<number> {
  const script = `import { createServer } from 'node:net'; createServer().listen(${JSON.stringify(path)}, () => console.log('up'));`;
  const { pid } = await killedAfterFirstLine(script, dir);
  expect(lstatSync(path).isSocket()).toBe(true);
  return pid;
}

test.skipIf(process.platform === 'win32')('a daemon killed with -9 leaves its private socket; the next one removes it, and nothing else', async () => {
  const dir = tempDir();
  // A daemon on the zeromq channel with its private ipc:// socket, killed with -9.
  const daemon = await killedAfterFirstLine(
    `import { ZeromqChannel } from ${JSON.stringify(CHANNEL)};
     const ch = new ZeromqChannel({ maxInFlight: 2, decoders: 0, decoder: 'jpeg-js' });
     await ch.start();
     console.log(ch.endpoint);`,
    dir,
  );
  const left = daemon.line.replace(/^ipc:\/\//, '');
  expect(left).toMatch(new RegExp(`^${dir}/traffic-counter-${daemon.pid}-[0-9a-f]{8}\\.sock$`));
  expect(lstatSync(left).isSocket()).toBe(true);

  // Files that must stay: in use (its name's pid gone, but something listens), its daemon alive (a daemon between
  // creating its socket and listening on it), not a socket, not the daemon's name.
  const inUse = join(dir, `traffic-counter-${daemon.pid}-0000000a.sock`);
  const server = createServer();
  await new Promise<void>((r) => server.listen(inUse, r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  const aliveDaemon = join(dir, `traffic-counter-${process.ppid}-0000000b.sock`);
  await staleSocket(aliveDaemon, dir);
  const notSocket = join(dir, `traffic-counter-${daemon.pid}-0000000c.sock`);
  writeFileSync(notSocket, 'a file that only looks like a socket\n');
  const otherName = join(dir, 'other-app.sock');
  const otherPid = await staleSocket(otherName, dir);
  // A second daemon's socket left the same way, its name as this daemon gives it.
  const second = join(dir, `traffic-counter-${otherPid}-0123abcd.sock`);
  await staleSocket(second, dir);

  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  onTestFinished(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  });
  const next = new ZeromqChannel({ maxInFlight: 2, decoders: 0, decoder: 'jpeg-js' });
  onTestFinished(() => next.close());
  await next.start();

  expect({ left: existsSync(left), second: existsSync(second) }).toEqual({ left: false, second: false });
  expect({ inUse: existsSync(inUse), aliveDaemon: existsSync(aliveDaemon), notSocket: existsSync(notSocket), otherName: existsSync(otherName) }).toEqual({
    inUse: true,
    aliveDaemon: true,
    notSocket: true,
    otherName: true,
  });
  const own = next.endpoint.replace(/^ipc:\/\//, '');
  expect(lstatSync(own).isSocket()).toBe(true);
  await next.close();
  expect(existsSync(own)).toBe(false);
});
