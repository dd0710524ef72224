// Camera, line and time filters, and the row limit that protects the HTTP API.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { CountStore, parseQueryParams, queryCounts } from '../dist/src/store/index.js';

test('camera, line and time filters select buckets whose start is in [from, to)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-filter-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'counts.db');
  const store = CountStore.open(file);
  const base = Date.UTC(2024, 0, 1, 0);
  const events = [];
  for (const cameraId of ['cam1', 'cam2']) {
    for (const lineId of ['a', 'b']) {
      for (let h = 0; h < 4; h++) {
        events.push({ cameraId, lineId, direction: 'out' as const, timeMs: base + h * 3_600_000 + 60_000, trackId: h, vehicleClass: 'car' as const, areaPx: 1, bbox: [0, 0, 1, 1] as const, speedPxPerS: 1, framesSeen: 1 });
      }
    }
  }
  store.addEvents(events);
  store.close();

  const rows = queryCounts(file, parseQueryParams({ bucket: 'hour', camera: 'cam2', line: 'b', from: '2024-01-01T01:00Z', to: '2024-01-01T03:00Z' }, 'cli'));
  expect(rows.map((r) => `${r.cameraId}/${r.lineId} ${r.start.slice(11, 13)} ${r.out}`)).toEqual(['cam2/b 01 1', 'cam2/b 02 1']);
  expect(() => queryCounts(file, parseQueryParams({ bucket: 'hour' }, 'http'), { maxRows: 15 })).toThrow(/more than 15 rows/);
  expect(queryCounts(file, parseQueryParams({ bucket: 'hour' }, 'http'), { maxRows: 16 })).toHaveLength(16);
});
