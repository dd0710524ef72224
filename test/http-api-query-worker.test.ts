// /api/counts runs its queries in a worker thread, one at a time: a long read (a month of minutes) never holds up
// the daemon's thread or the other endpoints, too many queries at once get 503 busy, and a query over its time
// limit is stopped with 503 while a fresh worker answers the next.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { afterEach, expect, onTestFinished, test, vi } from 'vitest';
import { QueryLimitError } from '../dist/src/errors.js';
import { QueryRunner } from '../dist/src/server/query-runner.js';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountStore, parseQueryParams } from '../dist/src/store/index.js';
import { tempDir } from './helpers/temp-dir.js';

const T0 = Date.UTC(2026, 10, 1);
const DAYS = 30;
const MINUTES = DAYS * 1440;

/** A month of one camera monitored every minute, one vehicle in at the start of each hour. */
function monthDb(): string {
  const dbPath = path.join(tempDir('tc-query-worker-'), 'counts.db');
  const store = CountStore.open(dbPath);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 60_000, lines: [{ id: 'a', from: [0, 0], to: [10, 0] }] });
  const base = { cameraId: 'cam1', lineId: 'a', trackId: 1, areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1, direction: 'in', vehicleClass: 'car' } as const;
  for (let m = 0; m < MINUTES; m++) {
    store.addFrameTicks('cam1', T0 + m * 60_000, { expected: 1, received: 1 });
    if (m % 60 === 0) store.addEvents([{ ...base, timeMs: T0 + m * 60_000 + 1_000 }]);
  }
  store.close();
  return dbPath;
}

function get(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; at: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, at: performance.now() }));
      })
      .on('error', reject);
  });
}

afterEach(() => {
  vi.useRealTimers();
});

test('a month of minutes is read without holding up the thread the daemon counts on, and answered in full', async () => {
  const dbPath = monthDb();
  const server = await startHttpServer({ dbPath, port: 0 });
  onTestFinished(() => server.close());

  // The server runs on this thread, as it does in the daemon: a timer here stands for the frames being counted.
  let last = performance.now();
  let longestGap = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 5);
  onTestFinished(() => clearInterval(tick));
  const start = performance.now();
  const [c, h] = await Promise.all([get(`${server.url}/api/counts?bucket=minute&format=csv&tz=Europe/Berlin`), get(`${server.url}/api/health`)]);
  const took = c.at - start;
  clearInterval(tick);
  // With the query on this thread, the timer would wait out nearly all of it (reading and formatting 43,200 rows).
  expect(longestGap).toBeLessThan(took / 2);
  expect(h.status).toBe(200);
  expect(h.at).toBeLessThan(c.at);
  expect(c.status).toBe(200);
  const [header, ...rows] = c.body.trimEnd().split('\r\n');
  expect(rows).toHaveLength(MINUTES);
  const column = (name: string) => header!.split(',').indexOf(name);
  const sum = (name: string) => rows.reduce((s, l) => s + Number(l.split(',')[column(name)]), 0);
  expect(sum('in')).toBe(DAYS * 24);
  expect(sum('frames_received')).toBe(MINUTES);
});

test('beyond the queries it holds, /api/counts answers 503 busy with Retry-After, and the rest are answered', async () => {
  const dbPath = monthDb();
  const server = await startHttpServer({ dbPath, port: 0, maxWaitingQueries: 1 });
  onTestFinished(() => server.close());

  const heavy = `${server.url}/api/counts?bucket=minute&format=json`;
  const replies = await Promise.all([get(heavy), get(heavy), get(heavy), get(`${server.url}/api/counts?bucket=day`)]);
  const busy = replies.filter((r) => r.status === 503);
  expect(busy.length).toBeGreaterThanOrEqual(1);
  for (const r of busy) {
    expect(JSON.parse(r.body).error.code).toBe('TC_ERR_QUERY_BUSY');
    expect(r.headers['retry-after']).toBe('1');
  }
  const answered = replies.filter((r) => r.status === 200);
  expect(answered.length).toBeGreaterThanOrEqual(2);
  // Once the rush is over, queries are answered again.
  const after = await get(`${server.url}/api/counts?bucket=day&format=json`);
  expect(after.status).toBe(200);
  expect(JSON.parse(after.body).rows.reduce((s: number, r: { in: number }) => s + r.in, 0)).toBe(DAYS * 24);
});

test('a query over its time limit is refused with 503 and stopped; a fresh worker answers the next', async () => {
  const dbPath = monthDb();
  const runner = new QueryRunner(dbPath, { timeoutMs: 30_000, maxWaiting: 1 });
  onTestFinished(() => runner.close());
  const params = (raw: Record<string, string>) => parseQueryParams(raw, 'http');
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

  const slow = runner.run(params({ bucket: 'minute', format: 'json' }), 100_000);
  const waiting = runner.run(params({ bucket: 'hour', format: 'json' }), 100_000);
  // A third while one runs and one waits: refused at once.
  await expect(runner.run(params({ bucket: 'day' }), 100_000)).rejects.toMatchObject({ code: 'TC_ERR_QUERY_BUSY' });
  // 30 s pass with neither answered: the running one is stopped, and so is the one that waited (its 30 s count from
  // its arrival), on the fresh worker it had just been given.
  vi.advanceTimersByTime(30_000);
  for (const p of [slow, waiting]) {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryLimitError);
    expect(err).toMatchObject({ code: 'TC_ERR_QUERY_TIMEOUT', message: expect.stringMatching(/30 s.*narrow it with from\/to/) });
  }

  // The read given up is abandoned: its worker is terminated, and until it has exited it still counts as running.
  expect(runner.stats()).toMatchObject({ timedOut: 2, busy: 1 });
  const next = JSON.parse(new TextDecoder().decode(await runner.run(params({ bucket: 'day', format: 'json' }), 100_000)));
  expect(next.rows).toHaveLength(DAYS);
  expect(next.rows.every((r: { in: number }) => r.in === 24)).toBe(true);
  // Bad parameters found only by reading (an unknown line) still come back as the query error they are.
  await expect(runner.run(params({ bucket: 'day', line: 'nope' }), 100_000)).rejects.toMatchObject({ code: 'TC_ERR_QUERY', message: expect.stringContaining('nope') });
});

test('close refuses the queries still waiting, and is safe to call twice', async () => {
  const dbPath = monthDb();
  const runner = new QueryRunner(dbPath, { timeoutMs: 30_000, maxWaiting: 4 });
  const pending = [runner.run(parseQueryParams({ bucket: 'minute' }, 'http'), 100_000), runner.run(parseQueryParams({ bucket: 'hour' }, 'http'), 100_000)];
  const settled = pending.map((p) => p.then(() => 'answered', (err: unknown) => err));
  await Promise.all([runner.close(), runner.close()]);
  for (const p of settled) await expect(p).resolves.toMatchObject({ code: 'TC_ERR_QUERY_BUSY', message: expect.stringContaining('closing') });
  await expect(runner.run(parseQueryParams({ bucket: 'day' }, 'http'), 100_000)).rejects.toMatchObject({ code: 'TC_ERR_QUERY_BUSY' });
});

test('a query whose client leaves is given up: its place in the queue, or its read, goes to the next', async () => {
  const dbPath = monthDb();
  const runner = new QueryRunner(dbPath, { timeoutMs: 60_000, maxWaiting: 1 });
  onTestFinished(() => runner.close());
  const params = (raw: Record<string, string>) => parseQueryParams(raw, 'http');
  const a = new AbortController();
  const b = new AbortController();
  const first = runner.run(params({ bucket: 'minute', format: 'json' }), 100_000, a.signal).catch((e: unknown) => e);
  const second = runner.run(params({ bucket: 'minute', format: 'csv' }), 100_000, b.signal).catch((e: unknown) => e);
  expect(runner.stats()).toMatchObject({ running: 1, waiting: 1 });

  b.abort(new Error('client 2 left'));
  expect(await second).toMatchObject({ message: 'client 2 left' });
  expect(runner.stats()).toMatchObject({ running: 1, waiting: 0, abandoned: 1 });
  a.abort(new Error('client 1 left'));
  expect(await first).toMatchObject({ message: 'client 1 left' });
  expect(runner.stats()).toMatchObject({ abandoned: 2, answered: 0 });

  // The next query is answered in full (on a fresh worker, once the abandoned one has exited).
  const body = JSON.parse(new TextDecoder().decode(await runner.run(params({ bucket: 'hour', format: 'json' }), 100_000)));
  expect(body.rows).toHaveLength(DAYS * 24);
  expect(runner.stats()).toMatchObject({ running: 0, waiting: 0, answered: 1, abandoned: 2 });
});

async function health(url: string): Promise<{ queries: { running: number; waiting: number; timedOut: number; abandoned: number; answered: number } }> {
  return JSON.parse((await get(`${url}/api/health`)).body);
}

test('over HTTP: a client that hangs up gives up its query, and one over the time limit gets 503 without Retry-After', async () => {
  const dbPath = monthDb();
  const server = await startHttpServer({ dbPath, port: 0 });
  onTestFinished(() => server.close());

  const req = http.get(`${server.url}/api/counts?bucket=minute&format=json&tz=Europe/Berlin`);
  req.on('error', () => {});
  for (let i = 0; (await health(server.url)).queries.running === 0; i++) {
    if (i > 500) throw new Error('the query never started');
    await sleep(10);
  }
  req.destroy();
  for (let i = 0; (await health(server.url)).queries.abandoned === 0; i++) {
    if (i > 500) throw new Error('the query was not given up');
    await sleep(10);
  }

  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const slow = get(`${server.url}/api/counts?bucket=minute&format=csv&tz=Europe/Berlin`);
  let done = false;
  void slow.finally(() => (done = true));
  // The request reaches the server on real I/O; its 30 s pass on the fake clock.
  while (!done) {
    vi.advanceTimersByTime(30_000);
    await new Promise((r) => setImmediate(r));
  }
  const r = await slow;
  expect(r.status).toBe(503);
  expect(JSON.parse(r.body).error).toMatchObject({ code: 'TC_ERR_QUERY_TIMEOUT', message: expect.stringContaining('narrow it with from/to') });
  expect(r.headers['retry-after']).toBeUndefined();
  vi.useRealTimers();
  expect((await health(server.url)).queries).toMatchObject({ timedOut: 1, abandoned: 1, answered: 0 });
});
