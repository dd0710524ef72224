// zeromqEndpoint ipc://PATH: libzmq removes whatever is at PATH before it binds. A file named by mistake was deleted
// without a word (`run --channel zeromq --zeromq-endpoint ipc:///tmp/x/notes.txt` ran, notes.txt gone), and a second
// daemon given the same path took the socket from the first. Both are now refused, naming the path; a socket left by
// a daemon that was killed (nothing listens on it) is still reused.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

function channel(path: string): ZeromqChannel {
  const ch = new ZeromqChannel({ maxInFlight: 2, decoders: 0, decoder: 'jpeg-js', endpoint: `ipc://${path}` });
  onTestFinished(() => ch.close());
  return ch;
}

test.skipIf(process.platform === 'win32')('a file at the ipc:// path is refused and kept, by the channel and by run before it starts anything', async () => {
  const dir = tempDir();
  const notes = join(dir, 'notes.txt');
  writeFileSync(notes, 'keep me\n');
  await expect(channel(notes).start()).rejects.toThrow(`zeromq channel: cannot bind ipc://${notes}: ${notes} exists and is not a socket: binding would delete it; pick another zeromqEndpoint path`);
  expect(readFileSync(notes, 'utf8')).toBe('keep me\n');

  const r = await runCli(['run', '--channel', 'zeromq', '--zeromq-endpoint', `ipc://${notes}`, '--db', join(dir, 'c.db'), '--duration', '1']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${notes} exists and is not a socket: binding would delete it; pick another zeromqEndpoint path [TC_ERR_CHANNEL_START]`);
  expect(r.stdout + r.stderr).not.toContain('simulated camera');
  expect(readFileSync(notes, 'utf8')).toBe('keep me\n');
});

test.skipIf(process.platform === 'win32')("a second daemon on a running daemon's ipc:// path is refused; the first keeps its socket", async () => {
  const dir = tempDir();
  const path = join(dir, 'zmq.sock');
  const first = channel(path);
  await first.start();
  const inode = lstatSync(path).ino;
  const second = channel(path);
  await expect(second.start()).rejects.toThrow(`${path} is in use: another process (a traffic-counter daemon?) listens on it; pick another zeromqEndpoint path`);
  await second.close(); // as run does after a failed start: the first daemon's socket is not its to remove
  expect(lstatSync(path).ino).toBe(inode);
  // Still the first daemon's: a decoder connecting there reaches it.
  const { Dealer } = await import('zeromq');
  const decoder = new Dealer({ linger: 0 });
  onTestFinished(() => decoder.close());
  decoder.connect(`ipc://${path}`);
  await decoder.send([JSON.stringify({ type: 'ready', decoder: 'jpeg-js', pid: 1, host: 'test' })]);
  const end = Date.now() + 10_000;
  while (first.decoderCount === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  expect(first.decoderCount).toBe(1);
});

test.skipIf(process.platform === 'win32')('the socket of a daemon killed with -9 at the ipc:// path is reused', async () => {
  const dir = tempDir();
  const path = join(dir, 'zmq.sock');
  const script = `import { createServer } from 'node:net'; createServer().listen(${JSON.stringify(path)}, () => console.log('up'));`;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  onTestFinished(() => void proc.kill('SIGKILL'));
  await new Promise((r) => proc.stdout.once('data', r));
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
  expect(lstatSync(path).isSocket()).toBe(true);
  const ch = channel(path);
  await ch.start();
  expect(ch.endpoint).toBe(`ipc://${path}`);
  await ch.close();
  expect(existsSync(path)).toBe(false);
});
