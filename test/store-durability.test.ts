// Events are durable once flushed or closed: another connection sees every field the analyzer reported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { expect, onTestFinished, test } from 'vitest';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { CountStore } from '../dist/src/store/index.js';

function tempDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-durable-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'counts.db');
}

function readEvents(file: string): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT * FROM events ORDER BY id').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const EVENT: CrossingEvent = {
  cameraId: 'cam1',
  lineId: 'gate',
  direction: 'out',
  timeMs: Date.UTC(2024, 1, 29, 17, 45, 12, 345),
  trackId: 42,
  vehicleClass: 'two-wheeler',
  areaPx: 1234,
  bbox: [100, 200, 30, 60],
  speedPxPerS: 87.5,
  framesSeen: 9,
};

test('flush() makes events visible to a second connection, with the vehicle details', () => {
  const file = tempDb();
  const store = CountStore.open(file, { flushIntervalMs: 3_600_000 });
  onTestFinished(() => store.close());
  store.addEvents([EVENT]);
  expect(readEvents(file)).toEqual([]);
  store.flush();
  expect(readEvents(file)).toEqual([
    {
      id: expect.any(Number),
      camera_id: 'cam1',
      line_id: 'gate',
      direction: 'out',
      time_ms: EVENT.timeMs,
      track_id: 42,
      vehicle_class: 'two-wheeler',
      area_px: 1234,
      bbox_x: 100,
      bbox_y: 200,
      bbox_w: 30,
      bbox_h: 60,
      speed_px_s: 87.5,
      frames_seen: 9,
    },
  ]);
});

test('close() writes what is pending, so a signal handler calling it loses nothing', () => {
  const file = tempDb();
  const store = CountStore.open(file, { flushIntervalMs: 3_600_000 });
  const events = Array.from({ length: 25 }, (_, i) => ({ ...EVENT, trackId: i, timeMs: EVENT.timeMs + i * 10_000 }));
  store.addEvents(events);
  store.close();
  expect(readEvents(file).map((r) => r.track_id)).toEqual(events.map((e) => e.trackId));
  expect(() => store.addEvents([EVENT])).toThrow(/closed/);
});

test('reaching maxBatch flushes without waiting for the timer', () => {
  const file = tempDb();
  const store = CountStore.open(file, { flushIntervalMs: 3_600_000, maxBatch: 10 });
  onTestFinished(() => store.close());
  store.addEvents(Array.from({ length: 9 }, (_, i) => ({ ...EVENT, trackId: i })));
  expect(readEvents(file)).toHaveLength(0);
  store.addEvents([{ ...EVENT, trackId: 9 }]);
  expect(readEvents(file)).toHaveLength(10);
});

test('the interval timer flushes on its own', async () => {
  const file = tempDb();
  const store = CountStore.open(file, { flushIntervalMs: 20 });
  onTestFinished(() => store.close());
  store.addEvents([EVENT]);
  await expect.poll(() => readEvents(file).length, { timeout: 5_000 }).toBe(1);
});

test('a non-finite vehicle detail is stored as NULL instead of failing the batch', () => {
  const file = tempDb();
  const store = CountStore.open(file);
  onTestFinished(() => store.close());
  store.addEvents([{ ...EVENT, speedPxPerS: Number.NaN }]);
  store.flush();
  expect(readEvents(file)[0]).toMatchObject({ speed_px_s: null, track_id: 42 });
  // Key fields are required: a bad one is refused up front, naming it.
  expect(() => store.addEvents([{ ...EVENT, timeMs: Number.NaN }])).toThrow(/events\[0\]\.timeMs/);
});
