// A remote decoder (`traffic-counter decoder --connect tcp://…`) killed with -9 says no 'bye'. Before, the daemon
// told it only when it next sent it a job, as "cannot send to decoder … (Host unreachable)", blaming the network (or,
// idle, forgot it without a word after 5 s of silence); one killed while decoding held back the frames behind its own
// for decodeTimeoutMs (10 s), then was told as a camera's frames too slow to decode ("raise decodeTimeoutMs"). The
// daemon now says at once that the decoder went away, naming it (host/pid/…) and the frame it held.
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { CLI } from './helpers/run-cli.js';
import { LIMITS, makeJpeg } from './helpers/jpeg-fixtures.js';
import { warnings } from './helpers/warnings.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function waitFor(what: string, cond: () => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A child process (killed after the test), and its stdout so far. */
function child(args: string[]): { proc: ChildProcess; out: () => string } {
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  onTestFinished(() => void proc.kill('SIGKILL'));
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { proc, out: () => out };
}

async function kill9(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
}

function tcpChannel(): ZeromqChannel {
  // decodeTimeoutMs beyond waitFor's 20 s: a frame dropped in this test was not dropped by the timeout.
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0', decodeTimeoutMs: 60_000 });
  onTestFinished(() => ch.close());
  return ch;
}

test('an idle remote decoder killed with -9 is told as gone, by its name, not as the network', async () => {
  const seen = warnings();
  const ch = tcpChannel();
  await ch.start();
  const decoder = child([CLI, 'decoder', '--connect', ch.endpoint]);
  await waitFor('the decoder to connect', () => ch.decoderCount === 1);
  await kill9(decoder.proc);
  const name = `${hostname()}/${decoder.proc.pid}/`;
  await waitFor(`a warning naming decoder ${name}`, () => seen.some((w) => w.includes(name)));
  expect(seen.find((w) => w.includes(name))).toMatch(
    new RegExp(`^zeromq channel: remote decoder ${name}[0-9a-f]{8} went away: its connection closed without a goodbye \\(the decoder was stopped or killed, or its host or link went down\\); 0 remote decoder\\(s\\) connected now$`),
  );
  expect(ch.decoderCount).toBe(0);
  // A frame now waits for a decoder: none is sent to the one gone ("Host unreachable").
  ch.submit({ cameraId: 'cam', seq: 0, capturedAt: 0, jpeg: makeJpeg(160, 90, 0).jpeg }, LIMITS);
  await new Promise((r) => setTimeout(r, 500));
  expect(seen.filter((w) => /unreachable/i.test(w))).toEqual([]);
});

test('a remote decoder killed with -9 while decoding: its frame is dropped at once, and it is told as gone', async () => {
  const seen = warnings();
  const ch = tcpChannel();
  await ch.start();
  // A decoder that takes its job and is killed before it answers.
  const script = `
    import { Dealer } from 'zeromq';
    const d = new Dealer({ routingId: 'slowhost/4242/0badcafe', linger: 0 });
    d.connect(${JSON.stringify(ch.endpoint)});
    await d.send(JSON.stringify({ type: 'ready', decoder: 'jpeg-js', pid: 4242, host: 'slowhost' }));
    await d.receive();
    console.log('job');
    setInterval(() => {}, 1000);
  `;
  const decoder = child(['--input-type=module', '-e', script]);
  await waitFor('the decoder to connect', () => ch.decoderCount === 1);
  ch.submit({ cameraId: 'cam', seq: 7, capturedAt: 7, jpeg: makeJpeg(160, 90, 0).jpeg }, LIMITS);
  await waitFor('the decoder to take the job', () => decoder.out().includes('job'));
  await kill9(decoder.proc);
  await waitFor('the frame to be dropped', () => ch.stats().dropped === 1);
  expect(seen).toContain(
    'zeromq channel: remote decoder slowhost/4242/0badcafe went away: its connection closed without a goodbye (the decoder was stopped or killed, or its host or link went down); its camera cam frame 7 is dropped; 0 remote decoder(s) connected now',
  );
  expect(seen.filter((w) => /did not answer|decodeTimeoutMs|unreachable/i.test(w))).toEqual([]);
});
