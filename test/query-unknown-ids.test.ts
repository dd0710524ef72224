// A camera or line id the database has never had is refused, naming the ids it has (a typo used to print an
// empty table, as if the camera had seen no traffic): `query` exits 2, the HTTP API answers 400.
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountStore } from '../dist/src/store/index.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

const T0 = Date.UTC(2024, 4, 1, 8, 0);

function countsDb(): string {
  const db = join(tempDir(), 'counts.db');
  const store = CountStore.open(db);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: [{ id: 'north', from: [0, 0], to: [10, 0] }] });
  // cam2 is known from its counts alone (a store fed events without registering the camera).
  const base = { trackId: 1, vehicleClass: 'car', areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1, direction: 'in' } as const;
  store.addEvents([
    { ...base, cameraId: 'cam1', lineId: 'north', timeMs: T0 },
    { ...base, cameraId: 'cam2', lineId: 'south', timeMs: T0 },
  ]);
  store.close();
  return db;
}

test('query --camera with an id the database does not have exits 2 and lists the cameras it has', async () => {
  const db = countsDb();
  const r = await runCli(['query', '--db', db, '--bucket', 'hour', '--camera', 'cam3']);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`traffic-counter: --camera "cam3": no such camera in ${db}; its cameras are "cam1", "cam2" [TC_ERR_QUERY]\n`);

  const line = await runCli(['query', '--db', db, '--bucket', 'hour', '--camera', 'cam1', '--line', 'south']);
  expect(line.code).toBe(2);
  expect(line.stderr).toContain(`--line "south": camera "cam1" has no such line in ${db}; the lines are "north"`);
});

test('a known camera with nothing in the time range still answers with no rows', async () => {
  const db = countsDb();
  const r = await runCli(['query', '--db', db, '--bucket', 'hour', '--camera', 'cam2', '--from', '2025-01-01', '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual([]);
});

test('GET /api/counts?camera=ID of an unknown camera answers 400 with the cameras the database has', async () => {
  const dbPath = countsDb();
  const server = await startHttpServer({ dbPath, port: 0 });
  onTestFinished(() => server.close());
  const res = await fetch(`${server.url}/api/counts?bucket=hour&camera=cam3`);
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: { code: 'TC_ERR_QUERY', message: `camera "cam3": no such camera in ${dbPath}; its cameras are "cam1", "cam2"` } });
  const ok = await fetch(`${server.url}/api/counts?bucket=hour&camera=cam1&line=north`);
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { rows: unknown[] }).rows).toHaveLength(1);
});
