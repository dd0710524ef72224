// Counts in local time (--tz, tz=): the roll-ups are stored per UTC minute, hour and day, but a city reports its own
// days and hours. A local day is midnight to midnight there, 25 hours on the night the clocks fall back; an hour of
// India (UTC+05:30) straddles two UTC hours; a from/to without a zone is local time.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountReader, CountStore, parseQueryParams } from '../dist/src/store/index.js';
import { TimeZone } from '../dist/src/store/time-zone.js';
import type { QueryError } from '../dist/src/errors.js';
import { CLI } from './helpers/run-cli.js';

// Monitored one frame a minute from 2026-10-24 20:00 to 2026-10-26 02:00 UTC, across the night Berlin's clocks go
// back (2026-10-25 01:00 UTC, 03:00 CEST → 02:00 CET).
const FIRST = Date.UTC(2026, 9, 24, 20, 0);
const LAST = Date.UTC(2026, 9, 26, 2, 0);
const CROSSINGS = ['2026-10-24T21:59Z', '2026-10-24T22:00Z', '2026-10-25T00:30Z', '2026-10-25T01:30Z', '2026-10-25T22:59Z', '2026-10-25T23:00Z'];

function countDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-tz-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const dbPath = path.join(dir, 'counts.db');
  const store = CountStore.open(dbPath);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 60_000, lines: [{ id: 'a', from: [0, 0], to: [10, 0] }] });
  for (let t = FIRST; t < LAST; t += 60_000) store.addFrameTicks('cam1', t, { expected: 1, received: 1 });
  const base = { cameraId: 'cam1', lineId: 'a', trackId: 1, areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1, direction: 'in', vehicleClass: 'car' } as const;
  store.addEvents(CROSSINGS.map((iso) => ({ ...base, timeMs: Date.parse(iso) + 5_000 })));
  store.close();
  return dbPath;
}

test('local days run midnight to midnight in the zone, 25 hours when the clocks go back, and lose no count', () => {
  const reader = new CountReader(countDb());
  onTestFinished(() => reader.close());
  const q = (raw: Record<string, string>) => reader.query(parseQueryParams(raw, 'cli')).map((r) => [r.start, r.in, r.framesExpected]);

  expect(q({ bucket: 'day', tz: 'Europe/Berlin' })).toEqual([
    // 22:00–24:00 CEST
    ['2026-10-24T00:00:00+02:00', 1, 120],
    // 23:59 CEST on the 24th is the 24th; midnight, both 02:30s and 23:59 CET are the 25th, 25 hours long.
    ['2026-10-25T00:00:00+02:00', 4, 25 * 60],
    ['2026-10-26T00:00:00+01:00', 1, 180],
  ]);
  // The stored UTC days: the same six crossings and frames, cut elsewhere.
  expect(q({ bucket: 'day' })).toEqual([
    ['2026-10-24T00:00:00.000Z', 2, 240],
    ['2026-10-25T00:00:00.000Z', 4, 1440],
    ['2026-10-26T00:00:00.000Z', 0, 120],
  ]);
  // Local hours: 02:00 comes twice that night, each its own bucket; from/to without a zone are Berlin time.
  expect(q({ bucket: 'hour', tz: 'Europe/Berlin', from: '2026-10-25T01:00', to: '2026-10-25T04:00' })).toEqual([
    ['2026-10-25T01:00:00+02:00', 0, 60],
    ['2026-10-25T02:00:00+02:00', 1, 60],
    ['2026-10-25T02:00:00+01:00', 1, 60],
    ['2026-10-25T03:00:00+01:00', 0, 60],
  ]);
  // A local day is left out whole when it starts before `from`.
  expect(q({ bucket: 'day', tz: 'Europe/Berlin', from: '2026-10-25' })).toEqual([
    ['2026-10-25T00:00:00+02:00', 4, 25 * 60],
    ['2026-10-26T00:00:00+01:00', 1, 180],
  ]);
});

test('an hour of a zone half an hour off UTC is summed from quarter hours, not cut at UTC hours', () => {
  const reader = new CountReader(countDb());
  onTestFinished(() => reader.close());
  const q = (raw: Record<string, string>) => reader.query(parseQueryParams(raw, 'cli')).map((r) => [r.start, r.in, r.framesExpected]);
  // 21:59 and 22:00 UTC are 03:29 and 03:30 in India: one local hour, two UTC ones.
  expect(q({ bucket: 'hour', tz: 'Asia/Kolkata', from: '2026-10-25T03:00', to: '2026-10-25T04:00' })).toEqual([['2026-10-25T03:00:00+05:30', 2, 60]]);
  expect(q({ bucket: 'hour', from: '2026-10-24T21:00Z', to: '2026-10-24T23:00Z' }).map((r) => r[1])).toEqual([1, 1]);
  const days = reader.query(parseQueryParams({ bucket: 'day', tz: 'Asia/Kolkata' }, 'cli'));
  expect(days.map((r) => r.start)).toEqual(['2026-10-25T00:00:00+05:30', '2026-10-26T00:00:00+05:30']);
  expect(days.reduce((n, r) => n + r.in, 0)).toBe(CROSSINGS.length);
  expect(days.reduce((n, r) => n + r.framesExpected, 0)).toBe((LAST - FIRST) / 60_000);
});

test('where the clocks change at :45 (Chatham) or by half an hour (Lord Howe Island), the hour they change in starts at the change', () => {
  const hour = (zone: string, iso: string) => { const z = new TimeZone(zone); return z.iso(z.bucketStart(3_600_000, Date.parse(iso))); };
  // Chatham springs forward at 02:45 (+12:45) to 03:45 (+13:45): hour 03 is its last quarter only.
  expect(hour('Pacific/Chatham', '2026-09-26T13:50Z')).toBe('2026-09-27T02:00:00+12:45');
  expect(hour('Pacific/Chatham', '2026-09-26T14:05Z')).toBe('2026-09-27T03:45:00+13:45');
  expect(hour('Pacific/Chatham', '2026-09-26T14:20Z')).toBe('2026-09-27T04:00:00+13:45');
  // Lord Howe Island: 02:00 (+10:30) becomes 02:30 (+11:00) in October; 02:00 (+11:00) becomes 01:30 (+10:30) in April.
  expect(hour('Australia/Lord_Howe', '2026-10-03T15:45Z')).toBe('2026-10-04T02:30:00+11:00');
  expect(hour('Australia/Lord_Howe', '2026-10-03T15:10Z')).toBe('2026-10-04T01:00:00+10:30');
  expect(hour('Australia/Lord_Howe', '2026-04-04T15:10Z')).toBe('2026-04-05T01:30:00+10:30');
  expect(hour('Australia/Lord_Howe', '2026-04-04T14:50Z')).toBe('2026-04-05T01:00:00+11:00');
});

test('an unknown zone is refused with what to give; over HTTP too, where tz is a known parameter', async () => {
  expect(() => parseQueryParams({ bucket: 'day', tz: 'Europe/Berlim' }, 'cli')).toThrow(
    '--tz: unknown time zone "Europe/Berlim"; give an IANA time zone name such as Europe/Berlin or America/New_York, "local" for this machine\'s, or UTC (the default)',
  );
  expect(parseQueryParams({ bucket: 'day', tz: 'Etc/UTC' }, 'cli').timeZone).toBe('UTC');

  const dbPath = countDb();
  const server = await startHttpServer({ dbPath, port: 0 });
  onTestFinished(() => server.close());
  const csv = await (await fetch(`${server.url}/api/counts?bucket=day&tz=Europe/Berlin&format=csv`)).text();
  expect(csv.split('\r\n').slice(1, 4).map((line) => line.split(',').slice(1, 5))).toEqual([
    ['2026-10-24T00:00:00+02:00', 'cam1', 'a', '1'],
    ['2026-10-25T00:00:00+02:00', 'cam1', 'a', '4'],
    ['2026-10-26T00:00:00+01:00', 'cam1', 'a', '1'],
  ]);
  const table = await (await fetch(`${server.url}/api/counts?bucket=day&tz=Europe/Berlin&format=table`)).text();
  expect(table.split('\n')[0]).toMatch(/^start \(Europe\/Berlin\) +camera/);
  const bad = await fetch(`${server.url}/api/counts?bucket=day&tz=Mars/Olympus`);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: QueryError }).error.message).toMatch(/^tz: unknown time zone "Mars\/Olympus"; give an IANA time zone name/);
});

test('--tz local names the zone as the machine is set (TZ), not by an older alias Node knows it by, and counts in it', () => {
  const dbPath = countDb();
  const query = (tz: string): string[] =>
    execFileSync(process.execPath, [CLI, 'query', '--db', dbPath, '--bucket', 'hour', '--tz', 'local', '--from', '2026-10-25T03:00', '--to', '2026-10-25T04:00'], { encoding: 'utf8', env: { ...process.env, TZ: tz } }).split('\n');
  // Before: "start (Asia/Calcutta)" and "start (Europe/Kiev)" here, where --tz Asia/Kolkata says Asia/Kolkata.
  const india = query('Asia/Kolkata');
  expect(india[0]).toMatch(/^start \(Asia\/Kolkata\) +camera/);
  expect(india[2]).toMatch(/^2026-10-25T03:00:00\+05:30 +cam1 +a +2 /);
  expect(query(':Europe/Kyiv')[0]).toMatch(/^start \(Europe\/Kyiv\) +camera/);
  // TZ set empty runs the clock on UTC (Intl calls it "Etc/Unknown"); before: --tz: unknown time zone "local".
  expect(query('')[0]).toMatch(/^start \(UTC\) +camera/);
  // TZ set to a name no zone has (a typo) runs the clock on UTC too; before: a TypeError and its stack trace.
  const typo = query('Europe/Berlln');
  expect(typo[0]).toMatch(/^start \(UTC\) +camera/);
  expect(typo[2]).toMatch(/^2026-10-25T03:00:00\.000Z +cam1 +a /);
});

test('a local time the clocks skip is refused, naming the gap and what to give; over HTTP too (400); one they show, or a date, is read', async () => {
  const berlin = (from: string) => parseQueryParams({ bucket: 'hour', tz: 'Europe/Berlin', from }, 'cli');
  // Before: read silently as 03:30 CEST.
  expect(() => berlin('2026-03-29T02:30')).toThrow(
    '--from: 2026-03-29T02:30 is no time in Europe/Berlin: its clocks jump from 02:00 to 03:00 on 2026-03-29 (+01:00 to +02:00); give 2026-03-29T03:00 (the jump), or the time with its offset (2026-03-29T02:30+01:00 is 2026-03-29T03:30:00+02:00)',
  );
  expect(() => berlin('2026-03-29T02:00')).toThrow(/^--from: 2026-03-29T02:00 is no time in Europe\/Berlin/);
  expect(() => berlin('20260329T0259')).toThrow(/^--from: 20260329T0259 is no time in Europe\/Berlin: .*\(2026-03-29T02:59\+01:00 is 2026-03-29T03:59:00\+02:00\)$/);
  expect(() => parseQueryParams({ bucket: 'hour', tz: 'Australia/Lord_Howe', to: '2026-10-04T02:15' }, 'cli')).toThrow(
    /^--to: 2026-10-04T02:15 is no time in Australia\/Lord_Howe: its clocks jump from 02:00 to 02:30 on 2026-10-04 \(\+10:30 to \+11:00\); give 2026-10-04T02:30/,
  );
  // Times the clocks show, a time with its offset, and the same local time in UTC are read as before.
  expect(berlin('2026-03-29T01:59').fromMs).toBe(Date.parse('2026-03-29T00:59Z'));
  expect(berlin('2026-03-29T03:00').fromMs).toBe(Date.parse('2026-03-29T01:00Z'));
  expect(berlin('2026-03-29T02:30+01:00').fromMs).toBe(Date.parse('2026-03-29T01:30Z'));
  expect(berlin('2026-03-29').fromMs).toBe(Date.parse('2026-03-28T23:00Z'));
  expect(parseQueryParams({ bucket: 'hour', from: '2026-03-29T02:30' }, 'cli').fromMs).toBe(Date.parse('2026-03-29T02:30Z'));

  const server = await startHttpServer({ dbPath: countDb(), port: 0 });
  onTestFinished(() => server.close());
  const bad = await fetch(`${server.url}/api/counts?bucket=hour&tz=Europe/Berlin&to=2026-03-29T02:30`);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: QueryError }).error.message).toMatch(/^to: 2026-03-29T02:30 is no time in Europe\/Berlin: its clocks jump from 02:00 to 03:00/);
});
