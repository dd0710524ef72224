// The frames of a start-up are counted when it ends (the background is learnt from them first). Stored as received
// while they were buffered, a daemon killed before the start-up ended (kill -9, a crash loop) left minutes at 100%
// uptime with none of their vehicles (helper 26: 16 of 16 frames, 0 of 6 crossings). They are stored as received
// when the start-up ends, or when the daemon stops and counts what it holds; until then their minutes read as an
// outage does.
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon } from '../dist/src/daemon.js';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { scene, serveSceneCamera, until } from './helpers/scene-camera.js';
import { tempDir } from './helpers/temp-dir.js';

it('stores a start-up\'s frames as received once they are counted, not while they are buffered', { timeout: 60_000 }, async () => {
  const url = await serveSceneCamera();
  const db = join(tempDir(), 'counts.db');
  const config = validateConfig({ db, flushIntervalMs: 100, cameras: [{ ...scene.cameraConfig(), id: 'cam1', url, pollIntervalMs: 200 }] });
  const daemon = await Daemon.start(config);
  onTestFinished(() => daemon.close());
  const read = new Database(db, { readonly: true });
  onTestFinished(() => void read.close());
  const stored = (): { expected: number; received: number } =>
    read.prepare("SELECT COALESCE(SUM(frames_expected), 0) AS expected, COALESCE(SUM(frames_received), 0) AS received FROM frames_minute WHERE camera_id = 'cam1'").get() as { expected: number; received: number };

  // Three frames in (a start-up takes more), and flushed: expected polls are stored, received ones are not yet.
  await until('3 frames analysed', () => daemon.stats().cameras[0]!.framesAnalysed >= 3);
  expect(daemon.stats().cameras[0]!.status).toBe('learning');
  await new Promise((r) => setTimeout(r, 300));
  const during = stored();
  expect(during.expected).toBeGreaterThanOrEqual(3);
  expect(during.received).toBe(0);

  // Stopped during the start-up: its frames are counted and stored as received.
  const analysed = daemon.stats().cameras[0]!.framesAnalysed;
  await daemon.close();
  expect(stored().received).toBeGreaterThanOrEqual(analysed);
});
