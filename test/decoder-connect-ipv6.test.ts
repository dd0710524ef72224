// `traffic-counter decoder --connect tcp://[::1]:PORT`: the daemon binds IPv6 endpoints (zeromqEndpoint
// tcp://[::1]:P or tcp://[::]:P) and the decoder's socket connects to them, but the command refused the address:
// "--connect: must be tcp://HOST:PORT …, got "tcp://[::1]:5555"". It now connects and decodes.
import { spawn } from 'node:child_process';
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { CLI } from './helpers/run-cli.js';
import { LIMITS, makeJpeg, sha1 } from './helpers/jpeg-fixtures.js';

test('a decoder given an IPv6 endpoint connects and decodes', { timeout: 60_000 }, async (ctx) => {
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://[::1]:0' });
  onTestFinished(() => ch.close());
  try {
    await ch.start();
  } catch (err) {
    // A machine without IPv6 loopback.
    ctx.skip(`no IPv6 loopback: ${(err as Error).message}`);
  }
  expect(ch.endpoint).toMatch(/^tcp:\/\/\[::1\]:\d+$/);
  const proc = spawn(process.execPath, [CLI, 'decoder', '--connect', ch.endpoint], { stdio: ['ignore', 'ignore', 'pipe'] });
  onTestFinished(() => void proc.kill('SIGKILL'));
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const end = Date.now() + 20_000;
  const connected = `connected to the analyzer at ${ch.endpoint}`;
  while ((ch.decoderCount === 0 || !stderr.includes(connected)) && proc.exitCode === null && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  expect({ decoders: ch.decoderCount, stderr: stderr.replace(/^\S+ {2}/gm, '') }).toEqual({
    decoders: 1,
    stderr: expect.stringContaining(connected),
  });
  const jpeg = makeJpeg(160, 90, 0);
  ch.submit({ cameraId: 'cam', seq: 0, capturedAt: 0, jpeg: jpeg.jpeg }, LIMITS);
  const out = await ch.next();
  expect(out?.kind === 'frame' && sha1(out.frame.data)).toBe(jpeg.sha1);
});
