// A camera that flaps, failing and back every other poll, must not flood the log: its failure is said once and then
// counted as a repeat (each 100th, or after 10 minutes), its "back" said only with it. Before, each recovery reset
// the repeat count, so both lines came at every flap (83 lines a minute for one camera answering 503 to every other
// poll; helper 27). (A camera back for a minute that fails again is told at once: STEADY_MS in src/daemon.ts.)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon } from '../dist/src/daemon.js';
import { createScene } from '../dist/src/source/camera-sim/index.js';
import { tempDir } from './helpers/temp-dir.js';

it('says a flapping camera\'s failure and its recovery once, not at every flap', { timeout: 60_000 }, async () => {
  const scene = createScene({ seed: 7, scenario: 'default' });
  const frames = Array.from({ length: 10 }, (_, k) => scene.encodeJpeg(k / 2).jpeg);
  let served = 0;
  const server = createServer((_req, res) => {
    served++;
    if (served % 2 === 0) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
    else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(frames[served % frames.length]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cam1.jpg`;
  const config = validateConfig({ db: join(tempDir(), 'counts.db'), cameras: [{ ...scene.cameraConfig(), id: 'cam1', url, pollIntervalMs: 100, backoffInitialMs: 10, backoffMaxMs: 100 }] });
  const log: string[] = [];
  const daemon = await Daemon.start(config, { log: { info: (m: string) => log.push(m), warn: (m: string) => log.push(m) } });
  onTestFinished(() => daemon.close());

  for (const deadline = Date.now() + 40_000; daemon.stats().cameras[0]!.source.errors < 20; ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for 20 failed polls: ${JSON.stringify(daemon.stats().cameras[0]!.source)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const failures = log.filter((m) => m.includes('camera cam1') && m.includes('503'));
  const backs = log.filter((m) => /^camera cam1: back after/.test(m));
  expect(failures, log.join('\n')).toHaveLength(1);
  expect(backs.length, log.join('\n')).toBeLessThanOrEqual(1);
});
