// Uptime = frames received / frames expected per bucket, so an outage never reads as a quiet road.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { CountStore, formatCounts, parseQueryParams, queryCounts } from '../dist/src/store/index.js';

function tempDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-uptime-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'counts.db');
}

test('a minute with 120 frames expected and 60 received reads 50 % uptime', () => {
  const file = tempDb();
  const store = CountStore.open(file);
  onTestFinished(() => store.close());
  store.registerCamera({ id: 'cam1', pollIntervalMs: 500, lines: [{ id: 'l1', from: [0, 0], to: [100, 0] }] });
  const minute = Date.UTC(2024, 0, 15, 12, 0);
  for (let slot = 0; slot < 120; slot++) {
    const t = minute + slot * 500;
    store.addFrameTicks('cam1', t, { expected: 1 });
    if (slot % 2 === 0) store.addFrameTicks('cam1', t, { received: 1 });
    else store.addFrameTicks('cam1', t, { sourceErrors: 1 });
  }
  store.close();

  const [row] = queryCounts(file, parseQueryParams({ bucket: 'minute' }, 'cli'));
  expect(row).toMatchObject({ framesExpected: 120, framesReceived: 60, uptime: 0.5, total: 0 });
  expect(formatCounts([row], 'table')).toContain('50.0%');
});

test('an outage minute reads 0 counts at 0 % uptime, unlike a quiet minute at full uptime', () => {
  const file = tempDb();
  const store = CountStore.open(file);
  onTestFinished(() => store.close());
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: [{ id: 'l1', from: [0, 0], to: [100, 0] }] });
  const quiet = Date.UTC(2024, 0, 15, 12, 0);
  const outage = quiet + 60_000;
  for (let s = 0; s < 60; s++) {
    store.addFrameTicks('cam1', quiet + s * 1000, { expected: 1, received: 1 });
    store.addFrameTicks('cam1', outage + s * 1000, { expected: 1, sourceErrors: 1 });
  }
  store.close();

  const rows = queryCounts(file, parseQueryParams({ bucket: 'minute' }, 'cli'));
  expect(rows).toHaveLength(2);
  const [q, o] = rows;
  expect(q).toMatchObject({ start: new Date(quiet).toISOString(), total: 0, uptime: 1 });
  expect(o).toMatchObject({ start: new Date(outage).toISOString(), total: 0, uptime: 0, framesExpected: 60, framesReceived: 0 });
  // Not monitored at all (no row) is a third, different state: the minute after the outage.
  expect(rows.some((r) => r.start === new Date(outage + 60_000).toISOString())).toBe(false);
});

test('uptime is capped at 1 and null when no frame was expected', () => {
  const file = tempDb();
  const store = CountStore.open(file);
  onTestFinished(() => store.close());
  const t = Date.UTC(2024, 0, 15, 12, 0);
  // MJPEG cameras can deliver more frames than the nominal rate.
  store.addFrameTicks('cam1', t, { expected: 10, received: 15 });
  store.addEvents([
    { cameraId: 'cam1', lineId: 'l1', direction: 'in', timeMs: t, trackId: 1, vehicleClass: 'car', areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1 },
    // A camera with events but no frame accounting (e.g. an older replay): uptime unknown.
    { cameraId: 'cam2', lineId: 'l1', direction: 'out', timeMs: t, trackId: 2, vehicleClass: 'car', areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1 },
  ]);
  store.flush();
  const rows = store.query(parseQueryParams({ bucket: 'minute' }, 'cli'));
  expect(rows.map((r) => [r.cameraId, r.uptime])).toEqual([
    ['cam1', 1],
    ['cam2', null],
  ]);
  // Uptime "-"; monitored time unknown: the camera was never registered, so its poll interval is not known.
  expect(formatCounts(rows, 'table').split('\n')[3]).toMatch(/ -\s+\?$/);
});
