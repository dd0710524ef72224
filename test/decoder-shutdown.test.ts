// Ctrl-C (SIGINT) on a remote `traffic-counter decoder` ends it cleanly: exit 0 and nothing on stderr but its own
// status lines (connecting, connected, lost). zeromq used to hold the exit and print "Waiting for queued ZeroMQ
// messages to be delivered" when no analyzer was there to take them; an analyzer that is there still hears at once
// that the decoder left.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { startCli } from './helpers/run-cli.js';

async function waitFor(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Exit 0, nothing on stdout, and on stderr these status lines only (after their time stamps). */
function expectQuietStop(result: { code: number | null; stdout: string; stderr: string }, endpoint: string, said: string[]): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: '' });
  const lines = result.stderr.split('\n').filter(Boolean).map((l) => l.replace(/^\S+Z {2}/, ''));
  expect(lines).toEqual([`decoder (jpeg-js) connecting to ${endpoint}; Ctrl-C to stop`, ...said]);
}

async function analyzer(): Promise<ZeromqChannel> {
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close(100));
  await ch.start();
  return ch;
}

test('with its analyzer up, the analyzer hears at once that the decoder left', async () => {
  const ch = await analyzer();
  const dec = startCli(['decoder', '--connect', ch.endpoint]);
  await waitFor('the decoder to connect', () => ch.decoderCount === 1);
  dec.proc.kill('SIGINT');
  // Well before any heartbeat timeout: the decoder's 'bye' got through.
  await waitFor('the decoder to leave', () => ch.decoderCount === 0, 1_000);
  expectQuietStop(await dec.done, ch.endpoint, [`connected to the analyzer at ${ch.endpoint}; decoding its frames`]);
});

test('after its analyzer has gone, it stops at once without a warning', async () => {
  const ch = await analyzer();
  const dec = startCli(['decoder', '--connect', ch.endpoint]);
  await waitFor('the decoder to connect', () => ch.decoderCount === 1);
  await ch.close(100);
  // The decoder keeps announcing itself, to an analyzer that is not there.
  await new Promise((r) => setTimeout(r, 1_500));
  const t0 = Date.now();
  const endpoint = ch.endpoint;
  dec.proc.kill('SIGINT');
  expectQuietStop(await dec.done, endpoint, [
    `connected to the analyzer at ${endpoint}; decoding its frames`,
    `lost the analyzer at ${endpoint}; waiting for it to come back`,
  ]);
  // Under the 1 s the decoder lingers for an analyzer that is connected.
  expect(Date.now() - t0).toBeLessThan(900);
});

test('with no analyzer ever reached, it stops at once without a warning', async () => {
  // A loopback port that was free a moment ago: nothing listens there.
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  const dec = startCli(['decoder', '--connect', `tcp://127.0.0.1:${port}`]);
  await new Promise((r) => setTimeout(r, 1_500));
  const t0 = Date.now();
  dec.proc.kill('SIGINT');
  expectQuietStop(await dec.done, `tcp://127.0.0.1:${port}`, []);
  expect(Date.now() - t0).toBeLessThan(900);
});
