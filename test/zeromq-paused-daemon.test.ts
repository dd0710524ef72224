// The zeromq channel's ROUTER in a daemon that is stopped (SIGSTOP: a VM paused, a debugger) while a remote decoder
// keeps announcing itself, gives up on it (heartbeat timeout) and reconnects. libzmq 4.3.5 aborted the daemon
// (`Assertion failed: !_io_error (stream_engine_base.cpp:310)`) once it was continued: the decoder's 'ready' messages
// and heartbeat PINGs had piled up in the kernel, the first two filled the receive pipe (high-water mark 2) and input
// stopped with the PINGs still in the engine's buffer; the connection then failed (the decoder had closed it), and
// when the channel read the pipe the engine resumed input, answered a buffered PING with a write on the failed
// connection and asserted. The channel's ROUTER now holds 64 messages per connection, more than a decoder sends on
// one connection during a pause, so input does not stop.
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';

const CHILD = `
import { ZeromqChannel } from ${JSON.stringify(pathToFileURL(resolve('dist/src/channel/zeromq-channel.js')).href)};
const ch = new ZeromqChannel({ maxInFlight: 8, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
await ch.start();
console.log('endpoint ' + ch.endpoint);
for (;;) if (!(await ch.next())) break;
`;

/** The next zeromq socket event of this type. */
const nextEvent = (events: import('zeromq').Observer, type: string): Promise<void> =>
  new Promise((res) => events.on(type as 'handshake', () => res()));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ready = JSON.stringify({ type: 'ready', decoder: 'jpeg-js', pid: 1, host: 'paused-daemon-test' });

test('a daemon stopped while a remote decoder announces itself, times out and reconnects keeps running', { timeout: 30_000 }, async () => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
  const endpoint = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /endpoint (\S+)/.exec(out);
      if (m) res(m[1]!);
    });
    child.once('exit', () => rej(new Error(`child exited: ${stderr}`)));
  });
  const { Dealer } = await import('zeromq');
  // A decoder's heartbeats, faster: PINGs every 0.1 s, the connection given up after 1 s without traffic.
  const dealer = new Dealer({ linger: 0, heartbeatInterval: 100, heartbeatTimeout: 1_000, routingId: 'paused-daemon-test' });
  onTestFinished(() => dealer.close());
  const connected = nextEvent(dealer.events, 'handshake');
  dealer.connect(endpoint);
  await connected;
  await dealer.send([ready]);
  await sleep(300);
  child.kill('SIGSTOP');
  const lost = nextEvent(dealer.events, 'disconnect');
  for (let i = 0; i < 6; i++) {
    await dealer.send([ready]);
    await sleep(50);
  }
  await lost;
  await sleep(300);
  child.kill('SIGCONT');
  await sleep(3_000);
  expect({ exitCode: child.exitCode, signal: child.signalCode, stderr: stderr.match(/Assertion failed.*/)?.[0] }).toEqual({ exitCode: null, signal: null, stderr: undefined });
});
