// How much of each bucket was monitored (the daemon running with the camera configured, whether or not it answered).
// Uptime is over the time the daemon ran only: an hour it ran for one minute of read 100% uptime with one minute's
// vehicles, indistinguishable from a fully counted hour. Each expected frame (poll slot) adds its poll interval to the
// bucket's monitored_ms, and the reader divides by the bucket's real length.
import path from 'node:path';
import { expect, onTestFinished, test, vi } from 'vitest';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { startHttpServer } from '../dist/src/server/index.js';
import { type CameraRegistration, CountReader, CountStore, SCHEMA_VERSION, formatCounts, parseQueryParams, queryCounts } from '../dist/src/store/index.js';
import { TimeZone } from '../dist/src/store/time-zone.js';
import { tempDir } from './helpers/temp-dir.js';
import { oldDatabase } from './helpers/old-database.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 4, 1, 8, 0);
const LINES = [{ id: 'a', from: [0, 0], to: [10, 0] }] as const;
const CAR = { cameraId: 'cam1', lineId: 'a', trackId: 1, vehicleClass: 'car', areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1 } as const;

/** Every poll slot from `fromMs` for `ms`, each expected and answered. */
function monitor(store: CountStore, intervalMs: number, fromMs: number, ms: number): void {
  for (let t = fromMs; t < fromMs + ms; t += intervalMs) store.addFrameTicks('cam1', t, { expected: 1, received: 1 });
}

function reader(file: string): (raw: Record<string, string>) => ReturnType<CountReader['query']> {
  const r = new CountReader(file);
  onTestFinished(() => r.close());
  return (raw) => r.query(parseQueryParams(raw, 'cli'));
}

test('an hour the daemon ran for one minute of reads 100% uptime but 2% monitored, in the table, CSV and JSON', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  const store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 500, lines: LINES });
  monitor(store, 500, T0 + 10 * 60_000, 60_000);
  store.addEvents([{ ...CAR, direction: 'in', timeMs: T0 + 10 * 60_000 + 5_000 }]);
  store.close();
  const q = reader(file);

  const [hour] = q({ bucket: 'hour' });
  expect(hour).toMatchObject({ total: 1, framesExpected: 120, uptime: 1, monitoredMs: 60_000 });
  expect(hour!.monitored).toBeCloseTo(1 / 60, 10);
  // The minute it ran is fully monitored, its day 1/1440.
  expect(q({ bucket: 'minute' }).map((r) => [r.start.slice(11, 16), r.monitoredMs, r.monitored])).toEqual([['08:10', 60_000, 1]]);
  expect(q({ bucket: 'day' })[0]!.monitored).toBeCloseTo(1 / 1440, 10);
  expect(q({ bucket: '15min' }).map((r) => [r.start.slice(11, 16), r.monitoredMs, r.monitored])).toEqual([['08:00', 60_000, 1 / 15]]);

  const table = formatCounts([hour!], 'table').split('\n');
  expect(table[0]).toMatch(/\suptime  monitored$/);
  expect(table[2]).toMatch(/\s1\s+100\.0%\s+2%$/);
  const csv = formatCounts([hour!], 'csv').split('\r\n');
  expect(csv[0]).toMatch(/,monitored_ms,monitored$/);
  expect(csv[1]!.split(',').slice(-2).map(Number)).toEqual([60_000, 1 / 60]);
  expect(JSON.parse(formatCounts([hour!], 'json'))[0]).toMatchObject({ uptime: 1, monitoredMs: 60_000, monitored: 1 / 60 });
});

test('monitored time follows each run\'s poll interval, and a poll cut short by the shutdown takes its slot back', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  let store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 500, lines: LINES });
  monitor(store, 500, T0, 60_000);
  store.close();
  // Restarted with another poll interval, and stopped in the middle of a poll.
  store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 2_000, lines: LINES });
  monitor(store, 2_000, T0 + 20 * 60_000, 10 * 60_000);
  store.addFrameTicks('cam1', T0 + 30 * 60_000, { expected: 1 });
  store.withdrawExpected('cam1', T0 + 30 * 60_000);
  store.close();

  const [hour] = reader(file)({ bucket: 'hour' });
  // 120 slots of 0.5 s and 300 of 2 s: frames_expected alone (420) says nothing of the time.
  expect(hour).toMatchObject({ framesExpected: 420, uptime: 1, monitoredMs: 11 * 60_000 });
  expect(hour!.monitored).toBeCloseTo(11 / 60, 10);
});

test('a bucket is measured against its whole length, the one in progress too, whenever it is asked', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  const store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines: LINES });
  monitor(store, 1_000, T0, 30 * 60_000);
  store.close();
  const q = reader(file);
  // Watched 08:00-08:30: the hour holds half an hour's traffic, its day 30 minutes of 24 hours, whether the hour
  // is over or not (an export at 08:30 must not read as a full hour), and its quarters are whole.
  vi.useFakeTimers({ now: T0 + 30 * 60_000, toFake: ['Date'] });
  try {
    expect(q({ bucket: 'hour' }).map((r) => r.monitored)).toEqual([0.5]);
    expect(q({ bucket: 'day' }).map((r) => r.monitored)).toEqual([1 / 48]);
    expect(q({ bucket: '15min' }).map((r) => r.monitored)).toEqual([1, 1]);
  } finally {
    vi.useRealTimers();
  }
  expect(q({ bucket: 'hour' }).map((r) => r.monitored)).toEqual([0.5]);
});

test('local days and hours are measured by their real length: 23 and 25 hours when the clocks change, half-hour zones from quarters', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  const store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 60_000, lines: LINES });
  // Berlin's 2026-03-29 runs from 2026-03-28T23:00Z to 2026-03-29T22:00Z (23 h): all of it monitored.
  monitor(store, 60_000, Date.UTC(2026, 2, 28, 23), 23 * HOUR);
  // Berlin's 2026-10-25 runs from 2026-10-24T22:00Z to 2026-10-25T23:00Z (25 h): its first 24 h monitored.
  monitor(store, 60_000, Date.UTC(2026, 9, 24, 22), 24 * HOUR);
  // India (UTC+05:30): 2026-05-01 10:00–10:30 local, 04:30–05:00 UTC, half of a local hour that straddles two UTC hours.
  monitor(store, 60_000, Date.UTC(2026, 4, 1, 4, 30), 30 * 60_000);
  store.close();
  const q = reader(file);

  const days = q({ bucket: 'day', tz: 'Europe/Berlin', from: '2026-03-29', to: '2026-10-26' });
  expect(days.map((r) => [r.start, r.monitoredMs! / HOUR, r.monitored])).toEqual([
    ['2026-03-29T00:00:00+01:00', 23, 1],
    ['2026-05-01T00:00:00+02:00', 0.5, 0.5 / 24],
    ['2026-10-25T00:00:00+02:00', 24, 24 / 25],
  ]);
  expect(q({ bucket: 'hour', tz: 'Asia/Kolkata', from: '2026-05-01T10:00', to: '2026-05-01T11:00' }).map((r) => [r.start, r.monitoredMs, r.monitored])).toEqual([
    ['2026-05-01T10:00:00+05:30', 30 * 60_000, 0.5],
  ]);
  // Where the clocks change in an hour, the local hours on either side are cut at the change (Chatham: 02:00–02:45
  // +12:45, then 03:45–04:00 +13:45).
  const chatham = new TimeZone('Pacific/Chatham');
  const at = Date.parse('2026-09-26T13:15Z');
  expect([chatham.bucketEnd(HOUR, at) - at, chatham.bucketEnd(HOUR, at + 45 * 60_000) - at]).toEqual([45 * 60_000, 60 * 60_000]);
});

test('a database from before monitored time (schema version 2) reads it as unknown, and keeps it unknown where old rows continue', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  const old = oldDatabase(file, 2);
  // Its camera and line registered, as the daemon does (a line missing from the lines table is one added at the restart).
  old.prepare("INSERT INTO cameras (id, poll_interval_ms, updated_ms) VALUES ('cam1', 1000, 0)").run();
  old.prepare("INSERT INTO lines (camera_id, line_id, from_x, from_y, to_x, to_y) VALUES ('cam1', 'a', 0, 0, 10, 0)").run();
  for (const [table, start] of [['minute', T0], ['hour', T0], ['day', Date.UTC(2024, 4, 1)]] as const) {
    old.prepare(`INSERT INTO counts_${table} (camera_id, line_id, bucket_start_ms, in_count, in_car) VALUES ('cam1', 'a', ?, 7, 7)`).run(start);
    old.prepare(`INSERT INTO frames_${table} (camera_id, bucket_start_ms, frames_expected, frames_received) VALUES ('cam1', ?, 120, 120)`).run(start);
  }
  old.close();
  // One-shot reads: no connection is held open while the daemon upgrades the file.
  const q = (raw: Record<string, string>) => queryCounts(file, parseQueryParams(raw, 'cli'));
  const unknown = { in: 7, framesExpected: 120, uptime: 1, monitoredMs: null, monitored: null };
  // Read as it is (a reader never migrates): not 0%, not 100%.
  expect(q({ bucket: 'hour' })).toEqual([expect.objectContaining(unknown)]);
  expect(q({ bucket: '15min' })).toEqual([expect.objectContaining(unknown)]);
  const table = formatCounts(q({ bucket: 'hour' }), 'table').trimEnd().split('\n');
  expect(table[2]).toMatch(/\s100\.0%\s+\?$/);
  expect(table.at(-1)).toMatch(/^\? monitored: unknown in 1 of these rows/);
  expect(formatCounts(q({ bucket: 'hour' }), 'csv').split('\r\n')[1]).toMatch(/,,$/);

  // The daemon upgrades it in place, keeping every count: the minute it continues stays unknown (a part of the
  // minute is not the whole), and so do its quarter, hour and day, local or UTC; minutes of its own are known.
  const store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines: LINES });
  store.addFrameTicks('cam1', T0 + 30_000, { expected: 1, received: 1 });
  monitor(store, 1_000, T0 + 60_000, 60_000);
  monitor(store, 1_000, T0 + HOUR, 60_000);
  store.close();
  const check = new Database(file, { readonly: true });
  onTestFinished(() => void check.close());
  expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  const read = (raw: Record<string, string>) => q(raw).map((r) => [r.in, r.framesExpected, r.monitored]);
  expect(q({ bucket: 'minute' }).map((r) => [r.in, r.framesExpected, r.monitoredMs])).toEqual([[7, 121, null], [0, 60, 60_000], [0, 60, 60_000]]);
  expect(read({ bucket: '15min' })).toEqual([[7, 181, null], [0, 60, 1 / 15]]);
  expect(read({ bucket: 'hour' })).toEqual([[7, 181, null], [0, 60, 1 / 60]]);
  expect(read({ bucket: 'day' })).toEqual([[7, 241, null]]);
  // Berlin's day summed from the UTC hours: one unknown hour makes the day unknown.
  expect(read({ bucket: 'day', tz: 'Europe/Berlin' })).toEqual([[7, 241, null]]);
});

test('a line added at a restart within a bucket reads the part it was counted for; the line there all along, the whole', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  // Line a from 08:00, line b added at a restart at 08:30:30, half way through a minute and through the hour.
  let store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines: LINES });
  monitor(store, 1_000, T0, 30 * 60_000 + 30_000);
  store.close();
  store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines: [...LINES, { id: 'b', from: [0, 5], to: [10, 5] }] });
  monitor(store, 1_000, T0 + 30 * 60_000 + 30_000, 29 * 60_000 + 30_000);
  store.flush();
  const q = reader(file);
  const byLine = (raw: Record<string, string>) => q(raw).map((r) => [r.start.slice(11, 16), r.lineId, r.framesExpected, r.monitoredMs, r.monitored]);

  // Its frames expected are its own too: one per second it was counted for.
  expect(byLine({ bucket: 'minute', from: '2024-05-01T08:29', to: '2024-05-01T08:32' })).toEqual([
    ['08:29', 'a', 60, 60_000, 1],
    ['08:30', 'a', 60, 60_000, 1],
    ['08:30', 'b', 30, 30_000, 0.5],
    ['08:31', 'a', 60, 60_000, 1],
    ['08:31', 'b', 60, 60_000, 1],
  ]);
  expect(byLine({ bucket: 'hour' })).toEqual([
    ['08:00', 'a', 3_600, HOUR, 1],
    ['08:00', 'b', 1_770, 29.5 * 60_000, 29.5 / 60],
  ]);
  expect(byLine({ bucket: 'day' })).toEqual([
    ['00:00', 'a', 3_600, HOUR, 1 / 24],
    ['00:00', 'b', 1_770, 29.5 * 60_000, 29.5 / 1_440],
  ]);
  expect(byLine({ bucket: '15min', from: '2024-05-01T08:15' })).toEqual([
    ['08:15', 'a', 900, 15 * 60_000, 1],
    ['08:30', 'a', 900, 15 * 60_000, 1],
    ['08:30', 'b', 870, 14.5 * 60_000, 14.5 / 15],
    ['08:45', 'a', 900, 15 * 60_000, 1],
    ['08:45', 'b', 900, 15 * 60_000, 1],
  ]);
  // Local days are summed from the hours, each line's own.
  expect(q({ bucket: 'day', tz: 'Europe/Berlin' }).map((r) => [r.lineId, r.monitoredMs])).toEqual([['a', HOUR], ['b', 29.5 * 60_000]]);
  // The writer's own connection (the dashboard's) reads the same.
  expect(store.query(parseQueryParams({ bucket: 'hour' }, 'cli')).map((r) => [r.lineId, r.monitored])).toEqual([['a', 1], ['b', 29.5 / 60]]);
  store.close();
});

test('a line added at a restart within a bucket reads the uptime of the time it was counted for, not its camera\'s', () => {
  const B = { id: 'b', from: [0, 5], to: [10, 5] } as const;
  /** Line a from 08:00, the camera answering `before`; line b added at a restart at 08:00:30, the camera answering `after` to 08:01:30. */
  const run = (before: boolean, after: boolean): string => {
    const file = path.join(tempDir('tc-monitored-'), 'counts.db');
    for (const [lines, fromMs, answers] of [[LINES, T0, before], [[...LINES, B], T0 + 30_000, after]] as const) {
      const store = CountStore.open(file);
      store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines });
      for (let t = fromMs; t < fromMs + (fromMs === T0 ? 30_000 : 60_000); t += 1_000) store.addFrameTicks('cam1', t, { expected: 1, received: answers ? 1 : 0 });
      store.close();
    }
    return file;
  };
  const rows = (file: string, raw: Record<string, string>) =>
    reader(file)(raw).map((r) => [r.start.slice(11, 16), r.lineId, r.framesReceived, r.framesExpected, r.uptime, r.monitored]);

  // Camera down until b was added, answering every poll since: b read 50% uptime and 50% monitored for its first
  // minute (the camera's 30 of 60 frames), as if half its 30 s were an outage; now 100% over its own 30 s.
  const downBefore = run(false, true);
  expect(rows(downBefore, { bucket: 'minute' })).toEqual([
    ['08:00', 'a', 30, 60, 0.5, 1],
    ['08:00', 'b', 30, 30, 1, 0.5],
    ['08:01', 'a', 30, 30, 1, 0.5],
    ['08:01', 'b', 30, 30, 1, 0.5],
  ]);
  const whole = [
    ['a', 60, 90, 60 / 90, 90_000],
    ['b', 60, 60, 1, 60_000],
  ];
  const perLine = (file: string, raw: Record<string, string>) =>
    reader(file)(raw).map((r) => [r.lineId, r.framesReceived, r.framesExpected, r.uptime, r.monitoredMs]);
  for (const bucket of ['hour', 'day', '15min']) expect(perLine(downBefore, { bucket }), bucket).toEqual(whole);
  // Local buckets are summed from the UTC hours (Berlin) or quarters (India, whose 13:30 hour starts at 08:00 UTC).
  expect(perLine(downBefore, { bucket: 'day', tz: 'Europe/Berlin' })).toEqual(whole);
  expect(perLine(downBefore, { bucket: 'hour', tz: 'Asia/Kolkata' })).toEqual(whole);

  // Camera answering until b was added, down since: b read 50% uptime with 0 vehicles, a quiet road; now 0%, an outage.
  const downAfter = run(true, false);
  expect(rows(downAfter, { bucket: 'minute', to: '2024-05-01T08:01' })).toEqual([
    ['08:00', 'a', 30, 60, 0.5, 1],
    ['08:00', 'b', 0, 30, 0, 0.5],
  ]);
  for (const bucket of ['hour', 'day', '15min']) {
    expect(perLine(downAfter, { bucket }), bucket).toEqual([
      ['a', 30, 90, 1 / 3, 90_000],
      ['b', 0, 60, 0, 60_000],
    ]);
  }
  expect(perLine(downAfter, { bucket: 'day', tz: 'Europe/Berlin' }).map((r) => r.slice(0, 4))).toEqual([['a', 30, 90, 1 / 3], ['b', 0, 60, 0]]);
});

test('a line added at a restart within a bucket reads the view-moved share of its own frames, not its camera\'s', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  // 08:00:00–30 the camera's view had moved (every frame), with line a only; at 08:00:30 the camera was put back and
  // line b added: b's frames all show the learnt view.
  for (const [lines, fromMs, moved] of [[LINES, T0, 1], [[...LINES, { id: 'b', from: [0, 5], to: [10, 5] }], T0 + 30_000, 0]] as const) {
    const store = CountStore.open(file);
    store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines });
    for (let t = fromMs; t < fromMs + 30_000; t += 1_000) store.addFrameTicks('cam1', t, { expected: 1, received: 1, moved });
    store.close();
  }
  // Before, b read the camera's 30 moved frames over its own 30 received: "view moved 100%" for frames that never had.
  for (const bucket of ['minute', 'hour', 'day', '15min']) {
    expect(reader(file)({ bucket }).map((r) => [r.lineId, r.framesMoved, r.framesReceived, r.viewMoved]), bucket).toEqual([['a', 30, 60, 0.5], ['b', 0, 30, 0]]);
  }
});

test('a poll cut short by the shutdown takes its slot back from every active line too; unknown stays unknown on the lines', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  let store = CountStore.open(file);
  const lines = [...LINES, { id: 'b', from: [0, 5], to: [10, 5] }] as const;
  store.registerCamera({ id: 'cam1', pollIntervalMs: 2_000, lines });
  monitor(store, 2_000, T0, 30_000);
  store.addFrameTicks('cam1', T0 + 30_000, { expected: 1 });
  // Written, then taken back at a later flush: the lines' rows exist by then.
  store.flush();
  store.withdrawExpected('cam1', T0 + 30_000);
  store.close();
  const db = new Database(file, { readonly: true });
  onTestFinished(() => void db.close());
  const stored = (): unknown[] =>
    db.prepare("SELECT 'counts_' || c.line_id, c.monitored_ms, f.monitored_ms FROM counts_hour c JOIN frames_hour f USING (camera_id, bucket_start_ms) ORDER BY 1").raw().all();
  // Both lines were counted all along: they read the camera's time (NULL stored: no write per line and slot).
  expect(stored()).toEqual([['counts_a', null, 30_000], ['counts_b', null, 30_000]]);
  expect(reader(file)({ bucket: 'minute' }).map((r) => [r.lineId, r.framesExpected, r.monitoredMs])).toEqual([['a', 15, 30_000], ['b', 15, 30_000]]);

  // A run that did not register the camera cannot tell its slots' time: its minute becomes unknown on the lines too.
  store = CountStore.open(file);
  store.addFrameTicks('cam1', T0 + 40_000, { expected: 1 });
  store.close();
  expect(reader(file)({ bucket: 'minute' }).map((r) => [r.lineId, r.framesExpected, r.monitoredMs])).toEqual([['a', 16, null], ['b', 16, null]]);
});

test('lines taken out, added and put back at restarts within a minute each read the time they were counted for', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  const B = { id: 'b', from: [0, 5], to: [10, 5] } as const;
  const run = (lines: CameraRegistration['lines'], fromMs: number, cut = false): void => {
    const store = CountStore.open(file);
    store.registerCamera({ id: 'cam1', pollIntervalMs: 2_000, lines });
    monitor(store, 2_000, fromMs, 10_000);
    if (cut) {
      // A poll the shutdown cut short: written, then taken back from the camera and from the lines holding their own.
      store.addFrameTicks('cam1', fromMs + 10_000, { expected: 1 });
      store.flush();
      store.withdrawExpected('cam1', fromMs + 10_000);
    }
    store.close();
  };
  run([...LINES, B], T0); // 08:00:00–10: a and b
  run(LINES, T0 + 10_000); // 08:00:10–20: b taken out
  run([...LINES, B], T0 + 20_000, true); // 08:00:20–30: b put back
  run([{ ...B, id: 'c' }, ...LINES], T0 + 30_000, true); // 08:00:30–40: b out again, c added
  const q = reader(file);
  for (const bucket of ['minute', 'hour', 'day', '15min']) {
    expect(q({ bucket }).map((r) => [r.lineId, r.framesExpected, r.monitoredMs]), bucket).toEqual([['a', 20, 40_000], ['b', 10, 20_000], ['c', 5, 10_000]]);
  }
  const db = new Database(file, { readonly: true });
  onTestFinished(() => void db.close());
  // The line there all along holds no time or frames of its own (it reads the camera's): no write for it per poll slot.
  for (const b of ['minute', 'hour', 'day']) {
    expect(db.prepare(`SELECT line_id, monitored_ms, frames_expected, frames_received FROM counts_${b} ORDER BY line_id`).raw().all(), b).toEqual([
      ['a', null, null, null],
      ['b', 20_000, 10, 10],
      ['c', 10_000, 5, 5],
    ]);
  }
});

test('/api/counts carries monitoredMs and monitored in JSON and CSV', async () => {
  const dbPath = path.join(tempDir('tc-monitored-'), 'counts.db');
  const store = CountStore.open(dbPath);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 500, lines: LINES });
  monitor(store, 500, T0, 90_000);
  store.close();
  const server = await startHttpServer({ dbPath, port: 0 });
  onTestFinished(() => server.close());

  const json = (await (await fetch(`${server.url}/api/counts?bucket=hour`)).json()) as { rows: Record<string, unknown>[] };
  expect(json.rows).toEqual([expect.objectContaining({ uptime: 1, monitoredMs: 90_000, monitored: 90_000 / HOUR })]);
  const csv = (await (await fetch(`${server.url}/api/counts?bucket=minute&format=csv`)).text()).trimEnd().split('\r\n');
  expect(csv.map((l) => l.split(',').slice(-2).join(' '))).toEqual(['monitored_ms monitored', '60000 1', '30000 0.5']);
});

test('a line added by a run that wrote no frames (it failed to start, or was killed) still joins at the next run within the bucket', () => {
  const file = path.join(tempDir('tc-monitored-'), 'counts.db');
  const two = [...LINES, { id: 'b', from: [0, 5], to: [10, 5] }] as const;
  let store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines: LINES });
  monitor(store, 1_000, T0, 20_000);
  store.close();
  // Line b registered, then no poll before the run stopped (its HTTP port in use, say).
  store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines: two });
  store.close();
  store = CountStore.open(file);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 1_000, lines: two });
  monitor(store, 1_000, T0 + 40_000, 20_000);
  store.close();
  const q = reader(file);
  for (const bucket of ['minute', 'hour', 'day']) {
    expect(q({ bucket }).map((r) => [r.lineId, r.monitoredMs, r.framesExpected])).toEqual([['a', 40_000, 40], ['b', 20_000, 20]]);
  }
});
