// A read-only query works while the daemon's store is open and writing (WAL), and sees each flush.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { CountStore, parseQueryParams, queryCounts } from '../dist/src/store/index.js';

test('a query reads while the store is open and writing (WAL), and sees each flush', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-concurrent-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'counts.db');
  const store = CountStore.open(file, { flushIntervalMs: 3_600_000 });
  onTestFinished(() => store.close());
  const params = parseQueryParams({ bucket: 'day' }, 'cli');
  const t = Date.UTC(2024, 0, 1, 12);
  const event = { cameraId: 'cam1', lineId: 'a', direction: 'in', timeMs: t, trackId: 1, vehicleClass: 'car', areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1 } as const;
  expect(queryCounts(file, params)).toEqual([]);
  store.addEvents([event]);
  store.flush();
  expect(queryCounts(file, params).map((r) => r.in)).toEqual([1]);
  store.addEvents([event, event]);
  store.flush();
  expect(queryCounts(file, params).map((r) => r.in)).toEqual([3]);
});
