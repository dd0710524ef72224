// `replay` and `eval` are run with the daemon's own config. One that leaves decoding to remote decoders
// (zeromq, decoders 0) waited forever for them, and the zeromq endpoint it names may be held by the running
// daemon: a replay decodes here, over its own private socket, and says so.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, onTestFinished, test } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

test('replay with a remote-decoders config whose endpoint is taken decodes here and counts every frame', async () => {
  const dir = tempDir();
  const frames = join(dir, 'frames');
  mkdirSync(frames);
  const frame = jpeg.encode({ data: new Uint8Array(64 * 48 * 4).fill(120), width: 64, height: 48 }, 90).data;
  for (let i = 1; i <= 5; i++) writeFileSync(join(frames, `f${i}.jpg`), frame);
  // The daemon's endpoint, held as a running daemon would hold it.
  const daemon = createServer();
  await new Promise<void>((resolve) => daemon.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => daemon.close(() => resolve())));
  const { port } = daemon.address() as AddressInfo;
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      channel: 'zeromq',
      zeromqEndpoint: `tcp://127.0.0.1:${port}`,
      decoders: 0,
      cameras: [{ id: 'c', roi: [[0, 0], [64, 0], [64, 48], [0, 48]], lines: [{ id: 'l', from: [0, 24], to: [64, 24] }] }],
    }),
  );

  const r = await runCli(['replay', '--config', config, '--frames', frames, '--json']);
  expect(r.code, r.stderr).toBe(0);
  expect((JSON.parse(r.stdout) as { frames: number }).frames).toBe(5);
  expect(r.stderr).toContain('traffic-counter: note: "decoders": 0 in the config leaves decoding to remote decoders; a replay decodes here, with 1 local decoder');
}, 30_000);
