// A daemon with more than ten cameras must not print Node's "possible memory leak" warning: each camera's
// source listens once on the daemon's stop signal, which is expected, not a leak.
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { tempDir } from './helpers/temp-dir.js';

it('runs 12 cameras without a MaxListenersExceededWarning', async () => {
  // A port that is listening but never answers: every camera stays in its request, listening on the signal.
  const sockets = new Set<Socket>();
  const silent = createServer((s) => void sockets.add(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  onTestFinished(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const port = (silent.address() as AddressInfo).port;

  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  onTestFinished(() => void process.off('warning', onWarning));

  const cameras = Array.from({ length: 12 }, (_, i) => ({
    id: `cam${i}`,
    url: `http://127.0.0.1:${port}/snapshot.jpg`,
    roi: [[0, 0], [100, 0], [100, 100], [0, 100]],
    lines: [{ id: 'l', from: [10, 50], to: [90, 50] }],
    timeoutMs: 60_000,
  }));
  const daemon = await Daemon.start(validateConfig({ cameras, db: join(tempDir(), 'counts.db'), decoders: 1 }));
  onTestFinished(() => daemon.close());
  await new Promise((r) => setTimeout(r, 500));
  await daemon.close();
  await new Promise((r) => setImmediate(r)); // 'warning' is emitted on the next tick
  expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
});
