// Errors about a camera's config keys that come after the config is loaded (its analyzer refusing it at start, its
// first frames showing the ROI past the frame's edge) name the config file the camera came from, as the errors found
// while loading it do: before, run --config FILE said "cameras[0].roi: …" and left the user to guess which file.
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { makeJpeg, startCamera, until } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

const FILE = '/etc/traffic-counter/cameras.json';

function config(db: string, url: string, roi: number[][]) {
  return validateConfig({ db, cameras: [{ id: 'gate', url, pollIntervalMs: 1000, roi, lines: [{ id: 'l', from: [0, 5], to: [10, 5] }] }] });
}

it('names the config file in a camera\'s error at start (run --config), and not without one', { timeout: 30_000 }, async () => {
  const db = join(tempDir(), 'counts.db');
  const tiny = config(db, 'http://127.0.0.1:9/snapshot.jpg', [[0, 0], [10, 0], [10, 10]]);
  await expect(Daemon.start(tiny, { configFile: FILE })).rejects.toThrow(new RegExp(`^--config ${FILE}: cameras\\[0\\]\\.roi: covers only 3 working pixels`));
  await expect(Daemon.start(tiny)).rejects.toThrow(/^cameras\[0\]\.roi: covers only 3 working pixels/);
});

it('names the config file when the first frame shows the camera\'s ROI past the frame\'s edge', { timeout: 30_000 }, async () => {
  const cam = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(1))); // 16x16
  const warned: string[] = [];
  const daemon = await Daemon.start(config(join(tempDir(), 'counts.db'), cam.url, [[0, 0], [40, 0], [40, 40], [0, 40]]), {
    configFile: FILE,
    log: { info: () => {}, warn: (m: string) => warned.push(m) },
  });
  onTestFinished(() => daemon.close());
  await until(() => warned.some((w) => w.includes('analyzer rejected')));
  const said = warned.find((w) => w.includes('analyzer rejected'))!;
  expect(said).toMatch(new RegExp(`^camera gate: analyzer rejected frame 1: --config ${FILE}: cameras\\[0\\]\\.roi(\\[\\d\\])?: `));
  expect(daemon.stats().cameras[0]!.lastError).toMatch(new RegExp(`^--config ${FILE}: cameras\\[0\\]\\.roi`));
  await daemon.close();
});
