// `run --camera URL` with no config: the daemon asks the camera for one frame to learn its size, counts it with
// a full-frame ROI and one line, and prints that config for the user to save and adapt. The config says which
// frame size its ROI and lines are in (drawnOn), so it keeps meaning the same view if the camera later comes up
// at another resolution.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCameraSim } from '../dist/src/cli/spawn-camera-sim.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

describe('run --camera URL', () => {
  it('counts the camera with a full-frame config drawn on its frame size and prints that config', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const sim = await spawnCameraSim(7);
    try {
      const db = join(dir, 'counts.db');
      const result = await runCli(['run', '--camera', `${sim.url}/snapshot.jpg`, '--db', db, '--duration', '6']);
      expect(result.code, result.stderr).toBe(0);
      const printed = /no config given: counting with this one[^\n]*\n(\{[^\n]*\})\n/.exec(result.stderr);
      expect(printed, result.stderr).not.toBeNull();
      // The printed config is one a user can save and load as it is.
      const camera = validateConfig(JSON.parse(printed![1]!)).cameras[0]!;
      expect(camera.url).toBe(`${sim.url}/snapshot.jpg`);
      expect(camera.drawnOn).toEqual([1280, 720]);
      expect(camera.roi).toEqual([[0, 0], [1280, 0], [1280, 720], [0, 720]]);
      expect(camera.lines).toEqual([{ id: 'line', from: [0, 432], to: [1280, 432] }]);
      // It ran against the camera and stored its uptime (frames came in).
      const q = await runCli(['query', '--db', db, '--bucket', 'minute', '--format', 'json']);
      expect(q.code, q.stderr).toBe(0);
      const rows = JSON.parse(q.stdout) as { framesReceived?: number; framesExpected: number }[];
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.reduce((s, r) => s + r.framesExpected, 0)).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });

  it('names a URL it cannot use as the --camera flag, its password hidden', async () => {
    const result = await runCli(['run', '--camera', 'ftp://admin:s3cret@127.0.0.1/x.jpg', '--db', join(tempDir(), 'counts.db'), '--duration', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run: --camera: must be an http:// or https:// URL, got "ftp://admin:***@127.0.0.1/x.jpg" [TC_ERR_USAGE]');
    expect(result.stderr).not.toContain('s3cret');
  });
});
