// Closing and reopening the store (a daemon restart) accumulates counts without losing or doubling any.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { CountStore, parseQueryParams, queryCounts } from '../dist/src/store/index.js';

function ev(lineId: string, direction: 'in' | 'out', timeMs: number): CrossingEvent {
  return { cameraId: 'cam1', lineId, direction, timeMs, trackId: 7, vehicleClass: 'car', areaPx: 800, bbox: [1, 2, 3, 4], speedPxPerS: 40, framesSeen: 5 };
}
const CAM = { id: 'cam1', pollIntervalMs: 1000, lines: [{ id: 'a', from: [0, 0] as const, to: [10, 0] as const }] };

test('restart within the same minute adds to the same buckets and keeps earlier counts', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-restart-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'counts.db');
  const t = Date.UTC(2024, 6, 1, 10, 20, 5);

  const first = CountStore.open(file);
  first.registerCamera(CAM);
  first.addEvents([ev('a', 'in', t), ev('a', 'out', t + 1000)]);
  first.addFrameTicks('cam1', t, { expected: 20, received: 20 });
  first.close();
  first.close(); // second close is a no-op, not a second flush

  const second = CountStore.open(file);
  onTestFinished(() => second.close());
  second.registerCamera(CAM);
  // The daemon prints totals at start-up: they include what the previous run stored.
  expect(second.totals()).toEqual([{ cameraId: 'cam1', lineId: 'a', in: 1, out: 1 }]);
  second.addEvents([ev('a', 'in', t + 2000)]);
  second.addFrameTicks('cam1', t + 2000, { expected: 40, received: 30 });
  // Pending events show in totals before they are flushed.
  expect(second.totals()).toEqual([{ cameraId: 'cam1', lineId: 'a', in: 2, out: 1 }]);
  second.close();

  for (const bucket of ['minute', 'hour', 'day']) {
    const rows = queryCounts(file, parseQueryParams({ bucket }, 'cli'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ in: 2, out: 1, total: 3, framesExpected: 60, framesReceived: 50 });
  }
  const db = CountStore.open(file);
  onTestFinished(() => void db.close());
  expect(db.totals('cam1')).toEqual([{ cameraId: 'cam1', lineId: 'a', in: 2, out: 1 }]);
});
