// Camera ids, and a camera's line ids, that differ only in case (sim and SIM) are refused like the same id twice:
// they name counts in one database, in the API's URLs and in `query`, which tell them apart by case alone.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfigFile, validateConfig } from '../dist/src/config/validate-config.js';
import { CountStore, parseQueryParams, queryCounts } from '../dist/src/store/index.js';
import { configErrorOf } from './helpers/config-error.js';
import { tempDir } from './helpers/temp-dir.js';

const camera = (id: string, lineIds = ['north']) => ({
  id,
  roi: [[0, 0], [100, 0], [100, 100], [0, 100]],
  lines: lineIds.map((lineId, i) => ({ id: lineId, from: [0, 10 + i], to: [100, 10 + i] })),
});

it('refuses two camera ids that differ only in case, naming the file, both cameras and the fix', () => {
  const file = join(tempDir(), 'config.json');
  writeFileSync(file, JSON.stringify({ cameras: [camera('sim'), camera('main-st'), camera('SIM')] }));
  expect(configErrorOf(() => loadConfigFile(file, { requireUrl: false }))).toBe(
    `--config ${file}: cameras[2].id: "SIM" differs from cameras[0].id "sim" only in case, easily taken for one another ` +
      '(the database, the API and `query --camera` tell ids apart by case): rename one',
  );
  // The same id twice keeps its own message.
  expect(configErrorOf(() => validateConfig({ cameras: [camera('sim'), camera('sim')] }, { requireUrl: false }))).toBe(
    'cameras[1].id: "sim" is used twice; camera ids must be unique',
  );
});

it('refuses two line ids of one camera that differ only in case; other cameras may use the same line id', () => {
  expect(configErrorOf(() => validateConfig({ cameras: [camera('sim', ['north', 'south', 'North'])] }, { requireUrl: false }))).toBe(
    'cameras[0].lines[2].id: "North" differs from cameras[0].lines[0].id "north" only in case, easily taken for one another ' +
      '(the database, the API and `query --line` tell ids apart by case): rename one',
  );
  const config = validateConfig({ cameras: [camera('sim', ['north']), camera('cam2', ['North']), camera('cam3', ['north'])] }, { requireUrl: false });
  expect(config.cameras.map((c) => c.lines[0]!.id)).toEqual(['north', 'North', 'north']);
});

it('query matches ids by case, as before: the wrong case is refused, naming the id the database has', () => {
  const db = join(tempDir(), 'counts.db');
  const store = CountStore.open(db);
  store.registerCamera({ id: 'sim', pollIntervalMs: 1000, lines: [{ id: 'north', from: [0, 0], to: [10, 0] }] });
  store.close();
  const query = (camera: string) => queryCounts(db, parseQueryParams({ bucket: 'hour', camera }, 'cli'), { source: 'cli' });
  expect(query('sim')).toEqual([]);
  expect(() => query('SIM')).toThrow(
    `--camera "SIM": no such camera in ${db}; its cameras are "sim"`,
  );
});
