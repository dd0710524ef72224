// A second Ctrl-C while the daemon closes forces the exit, and used to lose what the analyzer held: the crossings of a
// start-up still buffering its frames (the first 20 s or 40 frames of a camera) were never counted. Daemon.closeNow()
// counts and stores them at once, without waiting for the decoders.
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { spawnCameraSim } from '../dist/src/cli/spawn-camera-sim.js';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { CountStore } from '../dist/src/store/index.js';
import { until } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

it('closeNow() during the start-up stores the crossings of the frames it buffered', { timeout: 60_000 }, async () => {
  const sim = await spawnCameraSim(7);
  onTestFinished(() => sim.close());
  const simConfig = (await (await fetch(`${sim.url}/config.json`)).json()) as Record<string, unknown>;
  const db = join(tempDir(), 'counts.db');
  // A start-up of 40 frames (20 s at the sim's 2 fps), so that it is still buffering when closeNow() comes.
  const cameras = (simConfig.cameras as Record<string, unknown>[]).map((c) => ({
    ...c,
    analyzer: { ...(c.analyzer as object | undefined), bootstrapSec: 600, bootstrapMinFrames: 40, bootstrapMaxFrames: 40 },
  }));
  const daemon = await Daemon.start(validateConfig({ ...simConfig, cameras, db }), { log: { info: () => {}, warn: () => {} } });
  onTestFinished(() => daemon.close());
  // Still in its start-up: nothing counted yet, while the sim's vehicles have crossed (its truth says how many).
  await until(() => daemon.stats().cameras[0]!.framesAnalysed >= 24);
  expect(daemon.stats().cameras[0]!.status).toBe('learning');
  const truth = (await (await fetch(`${sim.url}/truth.json`)).json()) as { lines: Record<string, { in: number; out: number }> };
  const crossed = Object.values(truth.lines).reduce((s, l) => s + l.in + l.out, 0);
  expect(crossed).toBeGreaterThan(0);

  daemon.closeNow();
  const store = CountStore.open(db);
  const counted = store.totals().reduce((s, l) => s + l.in + l.out, 0);
  store.close();
  expect(counted).toBeGreaterThan(0);
});
