// What the daemon says at start about a configuration changed between runs against the counts already stored.
// A camera renamed only in case between runs (cam1, now Cam1) leaves its counts under the old id, which the
// database, the API and `query` tell apart by case: two cameras where the user meant one. A line drawn elsewhere
// under the same id has its counts from before and after added up. Each is said once, naming the fix; nothing is
// renamed.
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import type { LineConfig } from '../dist/src/config/config-types.js';
import { CountStore } from '../dist/src/store/index.js';
import { makeJpeg, startCamera } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

const line: LineConfig = { id: 'north', from: [0, 8], to: [16, 8] };

/** Starts a daemon on `db` with one camera `id` (counting `lines`); returns what it warned at start. */
async function warningsAtStart(db: string, id: string, url: string, lines: LineConfig[] = [line], configFile?: string): Promise<string[]> {
  const config = validateConfig({ db, cameras: [{ id, url, pollIntervalMs: 1000, roi: [[0, 0], [16, 0], [16, 16], [0, 16]], lines }] });
  const warned: string[] = [];
  const daemon = await Daemon.start(config, { log: { info: () => {}, warn: (m: string) => warned.push(m) }, ...(configFile === undefined ? {} : { configFile }) });
  onTestFinished(() => daemon.close());
  await daemon.close();
  return warned;
}

it('warns once at start when the database holds a configured camera id in another case, renaming nothing', { timeout: 30_000 }, async () => {
  const db = join(tempDir(), 'counts.db');
  const store = CountStore.open(db);
  for (const id of ['cam1', 'old']) store.registerCamera({ id, pollIntervalMs: 1000, lines: [line] });
  await store.close();
  const cam = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(1)));

  // The same id as before, and an unconfigured one the database keeps (cameras come and go): nothing to say.
  expect(await warningsAtStart(db, 'cam1', cam.url)).toEqual([]);

  const warned = await warningsAtStart(db, 'Cam1', cam.url);
  expect(warned).toEqual([
    `camera Cam1: the database ${db} already holds camera "cam1", the same id but for case (renamed between runs?); ` +
      'the two are counted apart, so the API and `query` show two cameras: set cameras[0].id back to "cam1" to go on ' +
      `counting under it, or read its history with \`traffic-counter query --db ${db} --bucket day --camera cam1\``,
  ]);
  // Nothing renamed: both ids stay, each with its own counts.
  const after = CountStore.open(db);
  expect(after.cameraIds()).toEqual(['Cam1', 'cam1', 'old']);
  await after.close();
  // Said at the first start after the rename only: set back as advised, or kept, nothing more is said (both ids
  // are in the database for good; a warning at every start, about the id just left, would only confuse).
  expect(await warningsAtStart(db, 'cam1', cam.url)).toEqual([]);
  expect(await warningsAtStart(db, 'Cam1', cam.url)).toEqual([]);
});

it('warns once at start when a line is drawn elsewhere than the database last counted it under its id', { timeout: 30_000 }, async () => {
  const db = join(tempDir(), 'counts.db');
  const cam = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(1)));
  expect(await warningsAtStart(db, 'cam1', cam.url)).toEqual([]);
  // The same ends written with other decimals: the same line.
  expect(await warningsAtStart(db, 'cam1', cam.url, [{ id: 'north', from: [0.2, 8], to: [16, 8.1] }])).toEqual([]);

  const moved: LineConfig = { id: 'north', from: [0, 12], to: [16, 12] };
  expect(await warningsAtStart(db, 'cam1', cam.url, [moved, { id: 'south', from: [0, 4], to: [16, 4] }])).toEqual([
    `camera cam1 line north: drawn at (0, 12) → (16, 12), where the database ${db} last counted it at (0.2, 8) → (16, 8.1); ` +
      'its counts from before and from now are added up under one id: give the line a new id to count it apart (the old one\'s history stays)',
  ]);
  // Said at the first start after the move only.
  expect(await warningsAtStart(db, 'cam1', cam.url, [moved])).toEqual([]);
});

it('warns once at start when a line of a stored camera is renamed only in case (helper 40: nb, then NB, said nothing)', { timeout: 30_000 }, async () => {
  const db = join(tempDir(), 'counts.db');
  const cam = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(1)));
  expect(await warningsAtStart(db, 'cam1', cam.url)).toEqual([]);
  const renamed: LineConfig = { ...line, id: 'North' };
  expect(await warningsAtStart(db, 'cam1', cam.url, [{ id: 'south', from: [0, 4], to: [16, 4] }, renamed])).toEqual([
    `camera cam1 line North: the database ${db} already holds line "north" of this camera, the same id but for case ` +
      '(renamed between runs?); the two are counted apart, so the API and `query` show two lines: set ' +
      'cameras[0].lines[1].id back to "north" to go on counting under it, or read its history with ' +
      `\`traffic-counter query --db ${db} --bucket day --camera cam1 --line north\``,
  ]);
  // Nothing renamed, and said at the first start after the rename only.
  const after = CountStore.open(db);
  expect(after.lineIds('cam1')).toEqual(['North', 'north', 'south']);
  await after.close();
  expect(await warningsAtStart(db, 'cam1', cam.url, [renamed])).toEqual([]);
  expect(await warningsAtStart(db, 'cam1', cam.url)).toEqual([]);
  // Another camera's line of that name in another case is no rename.
  expect(await warningsAtStart(db, 'cam2', cam.url, [{ ...line, id: 'NORTH' }])).toEqual([]);
});

it('names the config file whose key the rename warnings point at, as other messages about a camera\'s keys do', { timeout: 30_000 }, async () => {
  const db = join(tempDir(), 'counts.db');
  const cam = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(1)));
  expect(await warningsAtStart(db, 'cam1', cam.url)).toEqual([]);
  const warned = await warningsAtStart(db, 'Cam1', cam.url, [{ ...line, id: 'North' }], '/etc/tc/cameras.json');
  expect(warned).toHaveLength(1);
  expect(warned[0]).toContain('set cameras[0].id in --config /etc/tc/cameras.json back to "cam1" to go on counting under it');
  expect(await warningsAtStart(db, 'cam1', cam.url, [{ ...line, id: 'North' }], '/etc/tc/cameras.json')).toEqual([
    expect.stringContaining('set cameras[0].lines[0].id in --config /etc/tc/cameras.json back to "north" to go on counting under it'),
  ]);
});
