// A second Ctrl-C while the daemon closes forces the exit, and used to lose what the analyzer held: the crossings of a
// start-up still buffering its frames (the first 20 s or 40 frames of a camera) were never counted. Daemon.closeNow()
// counts and stores them at once, without waiting for the decoders, also when it comes between the steps of the
// frame that ends the start-up (which empties the buffer in its first step).
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { spawnCameraSim } from '../dist/src/cli/spawn-camera-sim.js';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { CountStore } from '../dist/src/store/index.js';
import { until } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

const START_UP_FRAMES = 40;

/** The simulated camera counted with a start-up of START_UP_FRAMES frames (20 s at its 2 fps); its truth so far. */
async function startOnSim(): Promise<{ daemon: Daemon; db: string; crossed: () => Promise<number> }> {
  const sim = await spawnCameraSim(7);
  onTestFinished(() => sim.close());
  const simConfig = (await (await fetch(`${sim.url}/config.json`)).json()) as Record<string, unknown>;
  const cameras = (simConfig.cameras as Record<string, unknown>[]).map((c) => ({
    ...c,
    analyzer: { ...(c.analyzer as object | undefined), bootstrapSec: 600, bootstrapMinFrames: START_UP_FRAMES, bootstrapMaxFrames: START_UP_FRAMES },
  }));
  const db = join(tempDir(), 'counts.db');
  const daemon = await Daemon.start(validateConfig({ ...simConfig, cameras, db }), { log: { info: () => {}, warn: () => {} } });
  onTestFinished(() => daemon.close());
  const crossed = async (): Promise<number> => {
    const truth = (await (await fetch(`${sim.url}/truth.json`)).json()) as { lines: Record<string, { in: number; out: number }> };
    return Object.values(truth.lines).reduce((s, l) => s + l.in + l.out, 0);
  };
  return { daemon, db, crossed };
}

function stored(db: string): number {
  const store = CountStore.open(db);
  const counted = store.totals().reduce((s, l) => s + l.in + l.out, 0);
  store.close();
  return counted;
}

it('closeNow() during the start-up stores the crossings of the frames it buffered', { timeout: 60_000 }, async () => {
  const { daemon, db, crossed } = await startOnSim();
  // Still in its start-up: nothing counted yet, while the sim's vehicles have crossed.
  await until(() => daemon.stats().cameras[0]!.framesAnalysed >= 24);
  expect(daemon.stats().cameras[0]!.status).toBe('learning');
  expect(await crossed()).toBeGreaterThan(0);

  daemon.closeNow();
  expect(stored(db)).toBeGreaterThan(0);
});

it('closeNow() between the steps of the frame that ends the start-up stores its crossings too', { timeout: 90_000 }, async () => {
  // As a signal would come: between two steps of that frame, after the first (which takes the frames out of the
  // start-up's buffer). Before, those frames were in neither the buffer nor the counts, and none was stored.
  let frames = 0;
  let fired: Promise<void> | undefined;
  let daemon: Daemon | undefined;
  const steps = CameraAnalyzer.prototype.steps;
  CameraAnalyzer.prototype.steps = function* (this: CameraAnalyzer, frame: Parameters<typeof steps>[0]) {
    const last = ++frames === START_UP_FRAMES;
    for (const events of steps.call(this, frame)) {
      yield events;
      fired ??= last ? new Promise<void>((r) => setImmediate(() => (daemon!.closeNow(), r()))) : undefined;
    }
  };
  onTestFinished(() => void (CameraAnalyzer.prototype.steps = steps));
  const started = await startOnSim();
  daemon = started.daemon;
  await until(() => fired !== undefined);
  await fired;
  expect(await started.crossed()).toBeGreaterThan(0);
  expect(stored(started.db)).toBeGreaterThan(0);
});
