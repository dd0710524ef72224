// 15-minute buckets, the interval traffic counts are usually reported in (a peak hour factor needs them): summed
// from the minute roll-up per UTC quarter hour, counts, classes and uptime, and filtered by the quarter's start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountReader, CountStore, parseQueryParams } from '../dist/src/store/index.js';

const T0 = Date.UTC(2024, 4, 1, 8, 0);

test('15-minute buckets add up the minutes of each quarter hour, and partition the hour', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-15min-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const dbPath = path.join(dir, 'counts.db');
  const store = CountStore.open(dbPath);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: [{ id: 'a', from: [0, 0], to: [10, 0] }] });
  // 08:00–09:00 monitored, one frame a second; received except 08:20–08:30 (an outage).
  for (let s = 0; s < 3600; s++) store.addFrameTicks('cam1', T0 + s * 1000, { expected: 1, received: s >= 1200 && s < 1800 ? 0 : 1 });
  const base = { cameraId: 'cam1', lineId: 'a', trackId: 1, areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1 } as const;
  // Crossings at minutes 1, 14, 15, 31, 44, 59: two cars in, one lorry out in the first quarter's edge cases.
  const at = (min: number, direction: 'in' | 'out', vehicleClass: 'car' | 'heavy' = 'car') => ({ ...base, direction, vehicleClass, timeMs: T0 + min * 60_000 + 5_000 });
  store.addEvents([at(1, 'in'), at(14, 'out', 'heavy'), at(15, 'in'), at(31, 'in'), at(31, 'out'), at(44, 'in'), at(59, 'out')]);
  store.close();

  const reader = new CountReader(dbPath);
  onTestFinished(() => reader.close());
  const q = (raw: Record<string, string>) => reader.query(parseQueryParams(raw, 'cli'));
  const quarters = q({ bucket: '15min' });
  expect(quarters.map((r) => [r.start, r.in, r.out, r.byClass.heavy.out, r.uptime])).toEqual([
    ['2024-05-01T08:00:00.000Z', 1, 1, 1, 1],
    ['2024-05-01T08:15:00.000Z', 1, 0, 0, 5 / 15],
    ['2024-05-01T08:30:00.000Z', 2, 1, 0, 1],
    ['2024-05-01T08:45:00.000Z', 0, 1, 0, 1],
  ]);
  expect(quarters.every((r) => r.bucket === '15min' && r.framesExpected === 900)).toBe(true);
  // The quarters partition the hour.
  const [hour] = q({ bucket: 'hour' });
  expect(quarters.reduce((n, r) => n + r.total, 0)).toBe(hour!.total);
  expect(quarters.reduce((n, r) => n + r.framesReceived, 0)).toBe(hour!.framesReceived);
  // from/to select quarters by their start.
  expect(q({ bucket: '15min', from: '2024-05-01T08:15Z', to: '2024-05-01T08:45Z' }).map((r) => r.start)).toEqual(['2024-05-01T08:15:00.000Z', '2024-05-01T08:30:00.000Z']);

  const server = await startHttpServer({ dbPath, port: 0 });
  onTestFinished(() => server.close());
  const body = (await (await fetch(`${server.url}/api/counts?bucket=15min&format=json`)).json()) as { rows: { start: string; in: number }[] };
  expect(body.rows.map((r) => r.in)).toEqual([1, 1, 2, 0]);
  const bad = await fetch(`${server.url}/api/counts?bucket=week`);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { message: string } }).error.message).toBe('bucket: must be one of minute, 15min, hour, day; got "week"');
});
