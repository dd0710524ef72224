// A daemon whose database refuses writes (a full disk, a file made read-only, another process holding a write lock)
// counts into memory only. Before, /api/health said ok (200) and had no word of it, /metrics neither, and the log
// said the failure at every flush, once a second (helper 26): a Docker HEALTHCHECK or a load balancer saw a healthy
// daemon. Now health answers 503 with a store warning, /metrics says traffic_counter_store_failing 1, the log says it
// once and says when writes work again, and nothing counted meanwhile is lost. And `run` whose last write fails
// ends with status 1 (it ended 0 after "closed without writing 7 events": a supervisor saw a clean stop).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon } from '../dist/src/daemon.js';
import { startHttpServer } from '../dist/src/server/http-server.js';
import { Database } from '../dist/src/store/sqlite-driver.js';
import { scene, serveSceneCamera, until } from './helpers/scene-camera.js';
import { startCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';


it('says a database that refuses writes in /api/health (503), /metrics and once in the log, and when it works again', { timeout: 120_000 }, async () => {
  const url = await serveSceneCamera();
  const db = join(tempDir(), 'counts.db');
  const config = validateConfig({ db, flushIntervalMs: 200, cameras: [{ ...scene.cameraConfig(), id: 'cam1', url, pollIntervalMs: 200 }] });
  const warned: string[] = [];
  const infos: string[] = [];
  const daemon = await Daemon.start(config, { log: { info: (m: string) => infos.push(m), warn: (m: string) => warned.push(m) } });
  onTestFinished(() => daemon.close().catch(() => {}));
  const http = await startHttpServer({ dbPath: db, stats: () => daemon.stats() });
  onTestFinished(() => http.close());
  const health = async (): Promise<{ status: number; body: { ok: boolean; store: { ok: boolean; warnings: { message: string }[] } } }> => {
    const res = await fetch(`${http.url}/api/health`);
    return { status: res.status, body: (await res.json()) as never };
  };
  const metrics = async (): Promise<string> => (await fetch(`${http.url}/metrics`)).text();

  await until('a frame analysed', () => daemon.stats().cameras[0]!.framesAnalysed > 0);
  expect((await health()).status).toBe(200);
  expect(await metrics()).toContain('traffic_counter_store_failing 0\n');

  // Another connection holds the write lock: every flush fails (after SQLite's busy wait).
  const other = new Database(db);
  other.exec('BEGIN IMMEDIATE');
  let held = true;
  onTestFinished(() => {
    if (held) other.exec('ROLLBACK');
    other.close();
  });
  await until('health 503', async () => (await health()).status === 503);
  const h = await health();
  expect(h.body.ok).toBe(false);
  expect(h.body.store.ok).toBe(false);
  expect(h.body.store.warnings.map((w) => w.message)).toEqual([expect.stringMatching(new RegExp(`^database ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: writes have failed for \\d+ s .*kept in memory`))]);
  expect(await metrics()).toContain('traffic_counter_store_failing 1\n');
  // Two failed flushes at least, said once.
  await until('two failed flushes', () => daemon.stats().store.failedFlushes >= 2);
  expect(warned.filter((m) => m.startsWith('store: ')), JSON.stringify(warned)).toHaveLength(1);
  const countedWhileFailing = daemon.stats().cameras[0]!.framesAnalysed;

  other.exec('ROLLBACK');
  held = false;
  await until('"writes work again" in the log', () => infos.some((m) => /^store: .*: writes work again after \d+ failed attempt\(s\) over \d+ s/.test(m)));
  const back = await health();
  expect([back.status, back.body.ok, back.body.store.warnings]).toEqual([200, true, []]);
  expect(await metrics()).toContain('traffic_counter_store_failing 0\n');

  // Nothing counted meanwhile was lost: what the daemon analysed is in the database once it closes.
  await daemon.close();
  const check = new Database(db, { readonly: true });
  onTestFinished(() => void check.close());
  const received = check.prepare("SELECT SUM(frames_received) FROM frames_minute WHERE camera_id = 'cam1'").pluck().get() as number;
  expect(received).toBeGreaterThanOrEqual(countedWhileFailing);
});

it('says a database file deleted or replaced under the daemon, in /api/health and once in the log', { timeout: 60_000 }, async () => {
  const url = await serveSceneCamera();
  const dir = tempDir();
  const db = join(dir, 'counts.db');
  const config = validateConfig({ db, flushIntervalMs: 200, cameras: [{ ...scene.cameraConfig(), id: 'cam1', url, pollIntervalMs: 200 }] });
  const warned: string[] = [];
  const daemon = await Daemon.start(config, { log: { info() {}, warn: (m: string) => warned.push(m) } });
  onTestFinished(() => daemon.close().catch(() => {}));
  const http = await startHttpServer({ dbPath: db, stats: () => daemon.stats() });
  onTestFinished(() => http.close());
  await until('a frame analysed', () => daemon.stats().cameras[0]!.framesAnalysed > 0);
  expect(daemon.stats().store.ok).toBe(true);

  // Deleted (helper 26: 28 crossings went with it while health said ok).
  for (const f of ['counts.db', 'counts.db-wal', 'counts.db-shm']) rmSync(join(dir, f), { force: true });
  const res = await fetch(`${http.url}/api/health`);
  expect(res.status).toBe(503);
  const body = (await res.json()) as { ok: boolean; store: { warnings: { message: string }[] } };
  expect(body.ok).toBe(false);
  expect(body.store.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^database .*counts\.db was deleted while the daemon wrote to it; .*restart it/)]);
  await until('the log', () => warned.some((m) => /counts\.db was deleted while the daemon wrote to it/.test(m)), 15_000);

  // Another file put in its place: said as such in health; the log said it once.
  writeFileSync(db, 'another file');
  expect(daemon.stats().store.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/counts\.db was replaced by another file while the daemon wrote to it/)]);
  await new Promise((r) => setTimeout(r, 6_000));
  expect(warned.filter((m) => m.includes('while the daemon wrote to it'))).toHaveLength(1);
});

it('run whose last write fails exits 1 naming the database and what it could not write; what it wrote before stays', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const db = join(dir, 'counts.db');
  const config = join(dir, 'config.json');
  // Port 9 on loopback: no camera answers; every poll is still an expected frame, to be written at each flush.
  const camera = { id: 'cam1', url: 'http://127.0.0.1:9/x.jpg', pollIntervalMs: 200, roi: [[0, 0], [16, 0], [16, 16], [0, 16]], lines: [{ id: 'north', from: [0, 8], to: [16, 8] }] };
  writeFileSync(config, JSON.stringify({ db, flushIntervalMs: 200, cameras: [camera] }));
  const run = startCli(['run', '--config', config]);
  await expect.poll(run.stderr, { timeout: 30_000 }).toContain('counting 1 camera(s)');
  // The expected frames written to the database, as seen by connection `c`.
  const expectedIn = (c: InstanceType<typeof Database>): number => c.prepare("SELECT COALESCE(SUM(frames_expected), 0) FROM frames_minute WHERE camera_id = 'cam1'").pluck().get() as number;
  const expected = (): number => {
    const r = new Database(db, { readonly: true });
    try {
      return expectedIn(r);
    } finally {
      r.close();
    }
  };
  await until('expected frames written', () => expected() >= 5);

  // Another connection holds the write lock while run stops: its last flush cannot write.
  const other = new Database(db);
  onTestFinished(() => {
    if (other.inTransaction) other.exec('ROLLBACK');
    if (other.open) other.close();
  });
  other.exec('BEGIN IMMEDIATE');
  const before = expectedIn(other);
  await new Promise((r) => setTimeout(r, 500)); // more polls, pending in memory
  run.proc.kill('SIGTERM');
  const result = await run.done;
  other.exec('ROLLBACK');

  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(new RegExp(`${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: closed without writing \\d+ events and [1-9]\\d* pending buckets`));
  // What was written before the lock stays written.
  expect(expected()).toBe(before);
});
