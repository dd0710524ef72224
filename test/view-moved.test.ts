// A camera turned away from the view its ROI and lines were drawn on (a pan-tilt-zoom camera moved to another
// preset) counts wrong without a sound: the simulated road at 2 fps, turned by 3° (about 60 px), counted 51 where
// 33 crossed in the next minute. The analyzer now notices that the picture's edges no longer match the learnt
// view, and by how much it moved; the daemon says so in its log (once) and health (status "moved"), and says when
// the camera is back. Light changes, shadows and traffic are not a move.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { ViewCheck } from '../dist/src/analyze/view-check.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon } from '../dist/src/daemon.js';
import { createScene } from '../dist/src/source/camera-sim/index.js';
import { formatCounts, parseQueryParams, queryCounts } from '../dist/src/store/index.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

const T0 = Date.UTC(2024, 0, 1);
const FPS = 2;
const YAW = -0.33; // the simulator's default pose
type View = { moved: boolean; shiftPx?: readonly [number, number]; sinceMs?: number } | undefined;

/** The scene of `scenario` at 2 fps, its camera turned by `turns[k].yaw` from `turns[k].at` s; the view check each second. */
function watch(scenario: 'default' | 'illumination-step' | 'hard-shadows' | 'dense', untilSec: number, turns: { at: number; yaw: number }[] = []) {
  const scenes = new Map<number, ReturnType<typeof createScene>>();
  const scene = (yaw: number) => {
    let s = scenes.get(yaw);
    if (!s) scenes.set(yaw, (s = createScene({ seed: 7, scenario, pose: { yaw: YAW + yaw } })));
    return s;
  };
  const first = scene(0);
  const camera = validateConfig({ cameras: [first.cameraConfig()] }, { requireUrl: false }).cameras[0]!;
  const analyzer = new CameraAnalyzer(camera, 'cameras[0]');
  const buf = new Uint8Array(first.width * first.height * 4);
  const views: { t: number; view: View }[] = [];
  for (let i = 0; i <= untilSec * FPS; i++) {
    const t = i / FPS;
    const yaw = turns.filter((x) => x.at <= t).at(-1)?.yaw ?? 0;
    scene(yaw).render(t, buf);
    analyzer.process({ width: first.width, height: first.height, data: buf, timeMs: T0 + t * 1000 });
    if (i % FPS === 0) views.push({ t, view: analyzer.viewState() });
  }
  return views;
}

describe('the view check', () => {
  it('finds a camera turned by 3° within 30 s, with the shift (about 60 px to the left), and the camera turned back', { timeout: 60_000 }, () => {
    const views = watch('default', 150, [{ at: 70, yaw: 0.05 }, { at: 115, yaw: 0 }]);
    const at = (t: number): View => views.find((v) => v.t === t)!.view;
    // Known from the end of start-up and a few checks on (each of 20 frames), and right until the turn.
    expect(views.filter((v) => v.t < 70 && v.view !== undefined).length).toBeGreaterThan(5);
    expect(views.filter((v) => v.t < 70).every((v) => !v.view?.moved)).toBe(true);
    expect(at(100)?.moved).toBe(true);
    const [dx, dy] = at(100)!.shiftPx!;
    // The turn moves the picture 0.05 × 1216 px (the focal length) = 61 px; the check works in 8-px cells.
    expect(dx).toBeGreaterThanOrEqual(-80);
    expect(dx).toBeLessThanOrEqual(-40);
    expect(Math.abs(dy)).toBeLessThanOrEqual(16);
    // Since when: within one check (20 frames, 10 s here) of the turn, not when the second check confirmed it.
    const since = (at(100)!.sinceMs! - T0) / 1000;
    expect(since).toBeGreaterThanOrEqual(70 - 10);
    expect(since).toBeLessThanOrEqual(70 + 10);
    expect(at(148)?.moved).toBe(false);
  });

  it('follows a view whose structure changes slowly (dusk, dawn, roadworks), and still finds a sudden change', () => {
    // Textures of 64x48 working pixels: the learnt view fades into another one over 40 checks (800 frames), then
    // jumps to a third. Judged against the view learnt at start-up only, the fade would read as a move half way.
    const W = 64, H = 48;
    const texture = (seed: number) => Float32Array.from({ length: W * H }, (_, i) => ((Math.sin(i * 12.9898 + seed * 78.233) * 43758.5453) % 1 + 1) % 1 * 200);
    const [a, b, c] = [texture(1), texture(2), texture(3)];
    const planes = (v: Float32Array) => ({ r: v, g: v, b: v });
    const mix = (w: number) => planes(a.map((x, i) => (1 - w) * x + w * b[i]!));
    const check = new ViewCheck(W, H, new Uint8Array(W * H).fill(1), 4);
    check.setReference(planes(a));
    let t = 0;
    const run = (frames: number, p: (k: number) => ReturnType<typeof planes>) => {
      const moved: number[] = [];
      for (let k = 0; k < frames; k++) {
        const cur = p(k);
        check.observe(cur, cur, (t += 500));
        if (check.state()?.moved) moved.push(k);
      }
      return moved;
    };
    expect(run(100, () => planes(a))).toEqual([]);
    expect(check.state()?.baseline).toBeGreaterThan(0.99);
    expect(run(800, (k) => mix(k / 800))).toEqual([]);
    expect(run(60, () => planes(c)).length).toBeGreaterThan(0);
  });

  it('does not judge a view with no lasting structure (noise only), whatever comes next', () => {
    const W = 64, H = 48;
    let seed = 1;
    const noise = () => Float32Array.from({ length: W * H }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 200);
    const planes = (v: Float32Array) => ({ r: v, g: v, b: v });
    const check = new ViewCheck(W, H, new Uint8Array(W * H).fill(1), 4);
    check.setReference(planes(noise()));
    const seen: unknown[] = [];
    for (let k = 0; k < 2000; k++) {
      check.observe(planes(noise()), planes(noise()), k * 500);
      seen.push(check.state());
    }
    // Judged, such a view scores about 0 at every check, and a score a little under its baseline's 0.35 reads as moved.
    expect(seen.filter((s) => s !== undefined)).toEqual([]);
  });

  it.each(['illumination-step', 'hard-shadows', 'dense'] as const)('does not take %s for a move', { timeout: 60_000 }, (scenario) => {
    const views = watch(scenario, 150);
    expect(views.filter((v) => v.view !== undefined).length).toBeGreaterThan(60);
    expect(views.filter((v) => v.view?.moved).map((v) => v.t)).toEqual([]);
  });
});

it('the daemon says a camera moved once in its log and as status "moved" in its health, and says when it is back', { timeout: 120_000 }, async () => {
  // The simulated camera at 2 fps, served 4 times faster (frame k from k × 125 ms after the first request, stamped
  // k × 500 ms), turned by 3° at 75 s and back at 110 s.
  const straight = createScene({ seed: 7, scenario: 'default' });
  const turned = createScene({ seed: 7, scenario: 'default', pose: { yaw: YAW + 0.05 } });
  const frames = Array.from({ length: 140 * FPS }, (_, k) => (k / FPS >= 75 && k / FPS < 110 ? turned : straight).encodeJpeg(k / FPS).jpeg);
  // On a minute's start, so that the minute buckets are 0–60 s, 60–120 s and 120–180 s of the frames' clock.
  const t0 = Math.floor((Date.now() - 200_000) / 60_000) * 60_000 - 60_000;
  let firstRequest = NaN;
  const server = createServer((_req, res) => {
    if (Number.isNaN(firstRequest)) firstRequest = Date.now();
    const k = Math.min(frames.length - 1, Math.floor((Date.now() - firstRequest) / 125));
    res.writeHead(200, { 'content-type': 'image/jpeg', 'x-sim-time': String(t0 + k * 500) }).end(frames[k]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
  const config = validateConfig({ db: join(tempDir(), 'counts.db'), decodeScale: 4, cameras: [{ ...straight.cameraConfig(), url, pollIntervalMs: 40 }] });
  const warned: string[] = [];
  const infos: string[] = [];
  const daemon = await Daemon.start(config, { log: { info: (m: string) => infos.push(m), warn: (m: string) => warned.push(m) } });
  onTestFinished(() => daemon.close());
  type Health = { status: string; warnings: { message: string }[]; lastFrameAt: number | null };
  const health = (): Health => daemon.stats().cameras[0] as unknown as Health;
  const statuses = new Set<string>();
  let movedHealth: Health | undefined;
  for (const deadline = Date.now() + 100_000; Date.now() < deadline && health().lastFrameAt !== t0 + (frames.length - 1) * 500; ) {
    await new Promise((r) => setTimeout(r, 100));
    const h = health();
    statuses.add(h.status);
    if (h.status === 'moved') movedHealth ??= h;
  }
  expect([...statuses], JSON.stringify(warned)).toContain('moved');
  expect(movedHealth!.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^camera sim: the picture no longer matches the view the ROI and lines were learnt on since \S+ \(its edges match \d+% as well as then; it matches best moved by -\d+ px across and -?\d+ px down\): .*redraw them and restart$/)]);
  expect(warned.filter((m) => m.includes('no longer matches')), JSON.stringify(warned)).toHaveLength(1);
  expect(infos).toContain('camera sim: the picture matches the view the ROI and lines were learnt on again');
  expect(health().status).toBe('counting');

  // The stored buckets say which counts were made while the view had moved: a query marks them.
  await daemon.close();
  const rows = queryCounts(config.db, parseQueryParams({ bucket: 'minute', line: straight.cameraConfig().lines[0]!.id }, 'cli'));
  // Minute buckets of the frames' own clock (t0 + k × 500 ms; the daemon's repeated answers fall at t0 + 200 s on).
  const moved = (fromSec: number) => rows.find((r) => Date.parse(r.start) === t0 + fromSec * 1000)?.framesMoved;
  expect(moved(0)).toBe(0);
  // 70 frames were taken turned (75–110 s), the second minute's. Most of them are marked: from the move's start, not
  // from its finding two checks (40 frames) later, which would mark about 40 (41 measured without that).
  expect(moved(60)).toBeGreaterThanOrEqual(60);
  expect(moved(60)).toBeLessThanOrEqual(110);
  // The mark ends when two checks found the view back (at most 40 frames after 110 s).
  expect(moved(120)).toBeLessThanOrEqual(40);
  expect(formatCounts(rows, 'table')).toMatch(/view moved: in \d+ of these rows/);
});

it('replay warns that the camera moved, with when (into the frames) and by how much', { timeout: 180_000 }, async () => {
  // 120 s at 2 fps as JPEG files, the camera turned by 3° from 70 s.
  const dir = tempDir();
  const straight = createScene({ seed: 7, scenario: 'default' });
  const turned = createScene({ seed: 7, scenario: 'default', pose: { yaw: YAW + 0.05 } });
  mkdirSync(join(dir, 'frames'));
  for (let k = 0; k < 120 * FPS; k++) writeFileSync(join(dir, 'frames', `${String(k).padStart(5, '0')}.jpg`), (k / FPS < 70 ? straight : turned).encodeJpeg(k / FPS).jpeg);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ cameras: [straight.cameraConfig()] }));
  const r = await runCli(['replay', '--config', join(dir, 'config.json'), '--frames', join(dir, 'frames'), '--fps', String(FPS)]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/traffic-counter: warning: camera sim: the picture no longer matches the view the ROI and lines were learnt on since (6\d|7\d)\.\d s into the frames \(its edges match \d+% as well as then; it matches best moved by -\d+ px across/);
});
