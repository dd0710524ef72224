// The HTTP API on 127.0.0.1: counts as JSON or CSV, health, dashboard, and 400s naming the bad parameter.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountStore } from '../dist/src/store/index.js';
import type { MetricsSource } from '../dist/src/server/format-metrics.js';
import { cameraStats } from './helpers/camera-stats.js';

const T0 = Date.UTC(2024, 4, 1, 8, 0);

type LatestImage = (id: string) => { jpeg: Uint8Array; capturedAt: number } | null | undefined;

async function setup(opts: { stats?: () => MetricsSource; withDb?: boolean; latestImage?: LatestImage } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-http-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const dbPath = path.join(dir, 'counts.db');
  if (opts.withDb !== false) {
    const store = CountStore.open(dbPath);
    store.registerCamera({ id: 'cam1', pollIntervalMs: 1000, lines: [{ id: 'a', from: [0, 0], to: [10, 0] }, { id: 'b', from: [0, 5], to: [10, 5] }] });
    for (let s = 0; s < 120; s++) store.addFrameTicks('cam1', T0 + s * 1000, { expected: 1, received: s < 60 ? 1 : 0 });
    const base = { cameraId: 'cam1', trackId: 1, vehicleClass: 'car', areaPx: 1, bbox: [0, 0, 1, 1], speedPxPerS: 1, framesSeen: 1 } as const;
    store.addEvents([
      { ...base, lineId: 'a', direction: 'in', timeMs: T0 + 5_000 },
      { ...base, lineId: 'a', direction: 'out', timeMs: T0 + 6_000 },
      { ...base, lineId: 'b', direction: 'in', timeMs: T0 + 61_000 },
    ]);
    store.close();
  }
  const server = await startHttpServer({ dbPath, port: 0, stats: opts.stats, latestImage: opts.latestImage });
  onTestFinished(() => server.close());
  return { server, dbPath };
}

test('binds to 127.0.0.1 on a random port by default', async () => {
  const { server } = await setup();
  expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  expect(server.port).toBeGreaterThan(0);
});

test('GET /api/counts returns the rows with uptime, filtered by the parameters', async () => {
  const { server } = await setup();
  const res = await fetch(`${server.url}/api/counts?bucket=minute&line=a`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { rows: Record<string, unknown>[] };
  expect(body.rows).toEqual([
    expect.objectContaining({ start: new Date(T0).toISOString(), cameraId: 'cam1', lineId: 'a', in: 1, out: 1, total: 2, uptime: 1 }),
    expect.objectContaining({ start: new Date(T0 + 60_000).toISOString(), lineId: 'a', total: 0, uptime: 0 }),
  ]);
  const hour = (await (await fetch(`${server.url}/api/counts?bucket=hour&from=2024-05-01T08:00Z&to=2024-05-01T09:00Z`)).json()) as { rows: Record<string, unknown>[] };
  expect(hour.rows.map((r) => [r.lineId, r.total, r.uptime])).toEqual([
    ['a', 2, 0.5],
    ['b', 1, 0.5],
  ]);
});

test('format=csv answers text/csv with a header row', async () => {
  const { server } = await setup();
  const res = await fetch(`${server.url}/api/counts?bucket=day&format=csv`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
  const lines = (await res.text()).trimEnd().split('\r\n');
  expect(lines[0]).toMatch(/^bucket,start,camera,line,in,out,total/);
  expect(lines.slice(1).map((l) => l.split(',').slice(3, 7).join(' '))).toEqual(['a 1 1 2', 'b 1 0 1']);
});

test('byClass=1 adds in/out columns per vehicle class to the CSV; JSON rows always carry them', async () => {
  const { server } = await setup();
  const csv = (await (await fetch(`${server.url}/api/counts?bucket=day&format=csv&byClass=1`)).text()).trimEnd().split('\r\n');
  expect(csv[0]).toBe('bucket,start,camera,line,in,out,total,frames_received,frames_expected,uptime,in_car,out_car,in_heavy,out_heavy,in_two_wheeler,out_two_wheeler,in_unknown,out_unknown,frames_moved,view_moved,monitored_ms,monitored');
  expect(csv.slice(1).map((l) => l.split(',').slice(3, 5).concat(l.split(',').slice(10, 18)).join(' '))).toEqual(['a 1 1 1 0 0 0 0 0 0', 'b 1 1 0 0 0 0 0 0 0']);
  const body = (await (await fetch(`${server.url}/api/counts?bucket=day`)).json()) as { rows: { lineId: string; byClass: unknown }[] };
  expect(body.rows.map((r) => [r.lineId, r.byClass])).toEqual([
    ['a', { car: { in: 1, out: 1 }, heavy: { in: 0, out: 0 }, 'two-wheeler': { in: 0, out: 0 }, unknown: { in: 0, out: 0 } }],
    ['b', { car: { in: 1, out: 0 }, heavy: { in: 0, out: 0 }, 'two-wheeler': { in: 0, out: 0 }, unknown: { in: 0, out: 0 } }],
  ]);
});

test.each([
  ['bucket=week', /^bucket: must be one of minute, 15min, hour, day; got "week"/],
  ['', /^bucket: required/],
  ['bucket=hour&from=tomorrow', /^from: must be an ISO 8601 time/],
  ['bucket=hour&from=2024-05-02&to=2024-05-01', /^from\/to: from must be before to/],
  ['bucket=hour&camera=%3Cscript%3E', /^camera: must be a camera id/],
  ['bucket=hour&bukket=day', /^"bukket": unknown parameter/],
  ['bucket=hour&bucket=day', /^bucket: given more than once/],
  ['bucket=hour&byClass=yes', /^byClass: must be 1, true, 0 or false/],
])('bad parameters ?%s answer 400 naming the parameter', async (query, message) => {
  const { server } = await setup();
  const res = await fetch(`${server.url}/api/counts?${query}`);
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('TC_ERR_QUERY');
  expect(body.error.message).toMatch(message);
});

test('GET /api/health reports the daemon stats: its channel and a list of cameras', async () => {
  const stats = {
    channel: { channel: 'ipc', submitted: 12, delivered: 10, dropped: 1, decodeErrors: 0, decoderRestarts: 0, inFlight: 1, maxInFlight: 4 },
    cameras: [cameraStats({ id: 'cam1', framesAnalysed: 10, lastFrameAt: Date.UTC(2024, 4, 1, 8) })],
  };
  const { server } = await setup({ stats: () => stats });
  const res = await fetch(`${server.url}/api/health`);
  expect(res.status).toBe(200);
  // And the count queries this server ran: none yet.
  const queries = { running: 0, waiting: 0, answered: 0, busy: 0, timedOut: 0, abandoned: 0, sending: 0, stalled: 0 };
  expect(await res.json()).toEqual({ ok: true, ...stats, queries });
});

test('GET /api/health without a daemon reports no cameras', async () => {
  const { server } = await setup();
  expect(await (await fetch(`${server.url}/api/health`)).json()).toMatchObject({ ok: true, cameras: [] });
});

test('GET / serves the dashboard, which polls the counts API', async () => {
  const { server } = await setup();
  const res = await fetch(`${server.url}/`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await res.text();
  expect(html).toContain('/api/counts?bucket=minute');
  expect(html).toMatch(/setInterval\(refresh, 10000\)/);
});

test('GET /api/cameras/ID/latest.jpg serves the camera\'s latest image; 503 before its first, 404 for no such camera', async () => {
  const jpeg = new Uint8Array([0xff, 0xd8, 1, 2, 3, 0xff, 0xd9]);
  const images: Record<string, { jpeg: Uint8Array; capturedAt: number } | null> = { 'cam-1': { jpeg, capturedAt: T0 }, starting: null };
  const { server } = await setup({ latestImage: (id) => (Object.hasOwn(images, id) ? images[id] : undefined) });
  const res = await fetch(`${server.url}/api/cameras/cam-1/latest.jpg?t=123`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/jpeg');
  expect(res.headers.get('last-modified')).toBe(new Date(T0).toUTCString());
  expect(new Uint8Array(await res.arrayBuffer())).toEqual(jpeg);
  const head = await fetch(`${server.url}/api/cameras/cam-1/latest.jpg`, { method: 'HEAD' });
  expect(head.headers.get('content-length')).toBe(String(jpeg.length));
  const starting = await fetch(`${server.url}/api/cameras/starting/latest.jpg`);
  expect(starting.status).toBe(503);
  expect(await starting.json()).toEqual({ error: { code: 'TC_ERR_NO_IMAGE', message: 'camera "starting": no image yet; /api/health tells why (its status and warnings)' } });
  const unknown = await fetch(`${server.url}/api/cameras/${encodeURIComponent('no such')}/latest.jpg`);
  expect(unknown.status).toBe(404);
  expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe('camera "no such": no such camera; /api/health lists the cameras');
  // The dashboard may show them: its page allows images from this origin.
  expect((await fetch(`${server.url}/`)).headers.get('content-security-policy')).toContain("img-src 'self'");
  // A server over a database alone has no cameras.
  const { server: bare } = await setup();
  expect((await fetch(`${bare.url}/api/cameras/cam-1/latest.jpg`)).status).toBe(404);
});

test('before the daemon created the database, counts answer 503 and no file is created', async () => {
  const { server, dbPath } = await setup({ withDb: false });
  const res = await fetch(`${server.url}/api/counts?bucket=hour`);
  expect(res.status).toBe(503);
  expect(((await res.json()) as { error: { message: string } }).error.message).toContain(dbPath);
  expect(fs.existsSync(dbPath)).toBe(false);
});

test('close() is idempotent and stops the listener', async () => {
  const { server } = await setup();
  await Promise.all([server.close(), server.close()]);
  await server.close();
  await expect(fetch(`${server.url}/api/health`)).rejects.toThrow();
});
