// Crossing events roll up into minute, hour and day buckets on UTC boundaries.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { CountStore, formatCounts, parseQueryParams } from '../dist/src/store/index.js';

function tempDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-rollups-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'counts.db');
}

function ev(cameraId: string, lineId: string, direction: 'in' | 'out', timeMs: number, vehicleClass: CrossingEvent['vehicleClass'] = 'car'): CrossingEvent {
  return { cameraId, lineId, direction, timeMs, trackId: 1, vehicleClass, areaPx: 900, bbox: [10, 20, 30, 30], speedPxPerS: 50, framesSeen: 6 };
}

const LINES = [
  { id: 'north', from: [0, 100] as const, to: [640, 100] as const },
  { id: 'south', from: [0, 600] as const, to: [640, 600] as const },
];

test('events on both sides of a UTC midnight land in the right minute, hour and day buckets', () => {
  const file = tempDb();
  const store = CountStore.open(file, { flushIntervalMs: 60_000 });
  onTestFinished(() => store.close());
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: LINES });

  const midnight = Date.UTC(2024, 3, 1); // 2024-04-01T00:00:00Z
  const events = [
    ev('cam1', 'north', 'in', midnight - 30_000), // 23:59:30 on 31 March
    ev('cam1', 'north', 'out', midnight - 15_000, 'heavy'), // 23:59:45
    ev('cam1', 'north', 'in', midnight + 10_000), // 00:00:10 on 1 April
    ev('cam1', 'north', 'in', midnight + 59_999), // still 00:00
    ev('cam1', 'south', 'out', midnight + 30 * 60_000), // 00:30:00
    ev('cam1', 'south', 'in', midnight + 3_600_000 + 1), // 01:00:00.001
  ];
  store.addEvents(events);
  store.flush();

  const q = (bucket: string) => store.query(parseQueryParams({ bucket }, 'cli'));
  const key = (r: { start: string; lineId: string; in: number; out: number }) => `${r.start} ${r.lineId} ${r.in}/${r.out}`;

  // Each bucket is the floor of the event time; no frame ticks, so only buckets with crossings exist.
  const minute = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString();
  expect(q('minute').map(key)).toEqual([
    `${minute(midnight - 30_000)} north 1/1`,
    `${minute(midnight)} north 2/0`,
    `${minute(midnight + 30 * 60_000)} south 0/1`,
    `${minute(midnight + 3_600_000)} south 1/0`,
  ]);
  expect(q('hour').map(key)).toEqual([
    `${new Date(midnight - 3_600_000).toISOString()} north 1/1`,
    `${new Date(midnight).toISOString()} north 2/0`,
    `${new Date(midnight).toISOString()} south 0/1`,
    `${new Date(midnight + 3_600_000).toISOString()} south 1/0`,
  ]);
  expect(q('day').map(key)).toEqual([
    '2024-03-31T00:00:00.000Z north 1/1',
    '2024-04-01T00:00:00.000Z north 2/0',
    '2024-04-01T00:00:00.000Z south 1/1',
  ]);
  // Every bucket size accounts for every event exactly once.
  for (const b of ['minute', 'hour', 'day']) {
    expect(q(b).reduce((n, r) => n + r.total, 0)).toBe(events.length);
  }
});

test('frame ticks over a monitored hour give a row for every line, zero where nothing crossed', () => {
  const file = tempDb();
  const store = CountStore.open(file, { flushIntervalMs: 60_000 });
  onTestFinished(() => store.close());
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: LINES });

  const t0 = Date.UTC(2024, 5, 10, 8, 58, 0); // spans the 09:00 hour boundary
  for (let s = 0; s < 180; s++) store.addFrameTicks('cam1', t0 + s * 1000, { expected: 1, received: 1 });
  store.addEvents([ev('cam1', 'north', 'in', t0 + 90_000)]);
  store.flush();

  const minutes = store.query(parseQueryParams({ bucket: 'minute' }, 'cli'));
  // 3 monitored minutes x 2 lines, ordered by start then line.
  expect(minutes.map((r) => `${r.start.slice(11, 16)} ${r.lineId} ${r.total} ${r.uptime}`)).toEqual([
    '08:58 north 0 1',
    '08:58 south 0 1',
    '08:59 north 1 1',
    '08:59 south 0 1',
    '09:00 north 0 1',
    '09:00 south 0 1',
  ]);
  const hours = store.query(parseQueryParams({ bucket: 'hour' }, 'cli'));
  expect(hours.map((r) => `${r.start.slice(11, 16)} ${r.lineId} ${r.total} ${r.framesExpected}`)).toEqual([
    '08:00 north 1 120',
    '08:00 south 0 120',
    '09:00 north 0 60',
    '09:00 south 0 60',
  ]);
});

test('counts split by vehicle class add up to the counts; --by-class shows the split in the table and CSV', () => {
  const store = CountStore.open(tempDb(), { flushIntervalMs: 60_000 });
  onTestFinished(() => store.close());
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: LINES });
  const t = Date.UTC(2024, 3, 1, 8, 0);
  store.addEvents([
    ev('cam1', 'north', 'in', t + 1_000, 'car'),
    ev('cam1', 'north', 'in', t + 2_000, 'car'),
    ev('cam1', 'north', 'in', t + 3_000, 'heavy'),
    ev('cam1', 'north', 'in', t + 4_000, 'two-wheeler'),
    ev('cam1', 'north', 'out', t + 5_000, 'unknown'),
    ev('cam1', 'north', 'out', t + 6_000, 'car'),
  ]);
  store.flush();

  for (const bucket of ['minute', 'hour', 'day']) {
    const [r] = store.query(parseQueryParams({ bucket, line: 'north' }, 'cli'));
    expect(r!.byClass).toEqual({ car: { in: 2, out: 1 }, heavy: { in: 1, out: 0 }, 'two-wheeler': { in: 1, out: 0 }, unknown: { in: 0, out: 1 } });
    expect([r!.in, r!.out]).toEqual([4, 2]);
  }

  const p = parseQueryParams({ bucket: 'hour', line: 'north', format: 'csv', byClass: 'true' }, 'cli');
  const csv = formatCounts(store.query(p), p.format, p.byClass).trimEnd().split('\r\n');
  expect(csv[0]!.split(',').slice(10, 18)).toEqual(['in_car', 'out_car', 'in_heavy', 'out_heavy', 'in_two_wheeler', 'out_two_wheeler', 'in_unknown', 'out_unknown']);
  expect(csv[1]!.split(',').slice(10, 18)).toEqual(['2', '1', '1', '0', '1', '0', '0', '1']);

  const rows = store.query(parseQueryParams({ bucket: 'hour', line: 'north' }, 'cli'));
  const withClasses = formatCounts(rows, 'table', true).split('\n');
  expect(withClasses[0]).toMatch(/^start \(UTC\)\s+camera\s+line\s+in\s+out\s+total\s+in_car\s+out_car\s+in_heavy\s+out_heavy\s+in_two_wheeler\s+out_two_wheeler\s+in_unknown\s+out_unknown\s+uptime\s+monitored$/);
  // Events without frame accounting: nothing expected, monitored time unknown.
  expect(withClasses[2]).toMatch(/\s4\s+2\s+6\s+2\s+1\s+1\s+0\s+1\s+0\s+0\s+1\s+-\s+\?$/);
  expect(formatCounts(rows, 'table').split('\n')[0]).not.toMatch(/in_car/);
});
