// What a user watching the daemon (its log, /api/health, the dashboard) is told about each camera: counting,
// down (with the source's error), frozen on one picture, or counting on a line the ROI is too short around for
// the frame rate.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon, type CameraStats } from '../dist/src/daemon.js';
import { startHttpServer } from '../dist/src/server/http-server.js';
import { renderClip } from '../dist/src/source/camera-sim/render-clip.js';
import { tempDir } from './helpers/temp-dir.js';

/** A camera in /api/health: the daemon's CameraStats, as JSON. */
type CameraHealth = CameraStats;

describe('daemon health', () => {
  it('reports each camera as counting, frozen, down, or counting with a line the ROI is too short around, and logs each once', async () => {
    const dir = tempDir();
    // A 1-fps camera, played 2.5 times faster: frame k is served from k × 400 ms after the first request on,
    // stamped with the capture time k s (X-Sim-Time), so the analyzer sees 1 fps, as from a public snapshot
    // camera, without the test waiting 80 s. After the last frame the camera freezes on it.
    const clip = await renderClip({ dir, seed: 7, fps: 1, durationSec: 80 });
    const frameDir = join(dir, 'frames');
    const frames = readdirSync(frameDir).filter((f) => f.endsWith('.jpg')).sort().map((f) => readFileSync(join(frameDir, f)));
    const t0 = Date.now() - frames.length * 1000;
    const PLAY_MS = 400;
    let firstRequest = NaN;
    const frameNow = (): number => (Number.isNaN(firstRequest) ? 0 : Math.min(frames.length - 1, Math.floor((Date.now() - firstRequest) / PLAY_MS)));
    let flakyServed = 0;
    const server = createServer((req, res) => {
      if (req.url === '/still.jpg') {
        // A camera stuck on one picture: it answers every poll, with the same image.
        res.writeHead(200, { 'content-type': 'image/jpeg', 'x-sim-time': String(t0) }).end(frames[0]);
        return;
      }
      if (req.url === '/still.mjpg') {
        // An MJPEG camera stuck on one picture: its stream goes on, repeating the same image.
        res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
        const part = Buffer.concat([Buffer.from(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${frames[0]!.length}\r\n\r\n`), frames[0]!, Buffer.from('\r\n')]);
        res.write(part);
        const timer = setInterval(() => res.write(part), 200);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (req.url === '/flaky.jpg') {
        // Every other answer cut short: the good ones in between must not make the log tell each bad one again.
        // Small frames, each a new picture, so that this camera costs the decoder next to nothing.
        flakyServed++;
        const whole = Buffer.from(jpeg.encode({ data: new Uint8Array(64 * 48 * 4).fill(flakyServed % 250), width: 64, height: 48 }, 90).data);
        res.writeHead(200, { 'content-type': 'image/jpeg', 'x-sim-time': String(t0 + flakyServed * 500) }).end(flakyServed % 2 ? whole.subarray(0, whole.length >> 1) : whole);
        return;
      }
      if (Number.isNaN(firstRequest)) firstRequest = Date.now();
      const k = frameNow();
      res.writeHead(200, { 'content-type': 'image/jpeg', 'x-sim-time': String(t0 + k * 1000) }).end(frames[k]);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A port nothing listens on: bind one, note it, close it.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));

    const scene = (JSON.parse(readFileSync(clip.configPath, 'utf8')) as { cameras: Record<string, unknown>[] }).cameras[0]!;
    const live = { ...scene, pollIntervalMs: 50 };
    const config = validateConfig({
      db: join(dir, 'counts.db'),
      cameras: [
        { ...live, id: 'scene', url: `${base}/scene.jpg` },
        // The lines are at row 446; at 1 fps a vehicle moves 100-500 px between frames there.
        { ...live, id: 'band', url: `${base}/band.jpg`, roi: [[0, 396], [1100, 396], [1110, 496], [0, 496]] },
        { ...live, id: 'still', url: `${base}/still.jpg`, frozenAfterMs: 2000 },
        { ...live, id: 'stillStream', kind: 'mjpeg', url: `${base}/still.mjpg`, frozenAfterMs: 2000 },
        { ...live, id: 'dead', url: `http://127.0.0.1:${deadPort}/snapshot.jpg`, backoffInitialMs: 200, backoffMaxMs: 1000 },
        // Answers every poll with a new image, each refused by the decoder (over its 0.5 MP limit).
        { ...live, id: 'tooBig', url: `${base}/big.jpg`, maxMegapixels: 0.5 },
        { id: 'flaky', url: `${base}/flaky.jpg`, pollIntervalMs: 500, roi: [[0, 0], [64, 0], [64, 48], [0, 48]], lines: [{ id: 'l', from: [0, 24], to: [64, 24] }] },
      ],
    });
    const logged: string[] = [];
    const infos: string[] = [];
    // The load judgement (test/daemon-keeping-up, test/load-window) is left out: on a loaded machine this test can run
    // past a minute, with one decoder for seven cameras, and its "cannot keep up" lines are not what it checks.
    const daemon = await Daemon.start(config, { log: { info: (m: string) => infos.push(m), warn: (m: string) => logged.push(m) }, loadWindowMs: 3_600_000 });
    onTestFinished(() => daemon.close());
    const http = await startHttpServer({ dbPath: config.db, stats: () => daemon.stats(), latestImage: (id) => daemon.latestImage(id) });
    onTestFinished(() => http.close());

    const health = async (): Promise<CameraHealth[]> => {
      const res = await fetch(`${http.url}/api/health`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { cameras: CameraHealth[] }).cameras;
    };
    const byId = (cams: CameraHealth[], id: string): CameraHealth => cams.find((c) => c.id === id)!;
    // Until the last frame was served, and one of the last five analysed by both (bounded: a loaded CI machine is
    // slow). Not the last one itself: on a loaded machine the channel may drop it, and waiting for it then ran past
    // the 30 s after which the camera, repeating its last picture, is frozen (CI, 04ed0df).
    let cams = await health();
    const last = t0 + (frames.length - 1) * 1000;
    const lastServed = async (): Promise<boolean> => {
      const res = await fetch(`${http.url}/api/cameras/scene/latest.jpg`);
      return res.status === 200 && Buffer.from(await res.arrayBuffer()).equals(frames.at(-1)!);
    };
    for (const deadline = Date.now() + 150_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
      cams = await health();
      if (['scene', 'band'].every((id) => (byId(cams, id).lastFrameAt ?? 0) >= last - 4000) && (await lastServed())) break;
    }

    // Truncated frames between good ones: logged once (and every 100th), not once per bad frame.
    const flaky = byId(cams, 'flaky');
    expect(flaky.framesAnalysed).toBeGreaterThan(0);
    expect(flaky.decodeErrors).toBeGreaterThan(3);
    expect(logged.filter((m) => m.includes('camera flaky frame')), JSON.stringify(logged)).toHaveLength(1 + Math.floor((flaky.decodeErrors - 1) / 100));

    const good = byId(cams, 'scene');
    // Most frames analysed: a frame the decoders are still busy with when the next comes is dropped (latest wins).
    // At least half: on a loaded 2-core machine (CI with other test files running beside this one) one decoder
    // for seven cameras analysed 55 of 80 (0.7 failed once); a stuck camera analyses none.
    expect(good.framesAnalysed).toBeGreaterThanOrEqual(0.5 * frames.length);
    expect(byId(cams, 'band').framesAnalysed).toBeGreaterThanOrEqual(0.5 * frames.length);
    expect(good.status).toBe('counting');
    expect(good.warnings).toEqual([]);
    // The frame-size options it settled on, in /api/health and once in the log.
    expect(good.scale).toEqual({ downscale: 4, minAreaPx: 80, lineMinMarginPx: 4 });
    expect(infos.filter((m) => m.startsWith('camera scene: ')), JSON.stringify(infos)).toEqual(['camera scene: 1280x720 frames, analysed at 1/4 (minAreaPx 80, lineMinMarginPx 4)']);

    const band = byId(cams, 'band');
    expect(band.status).toBe('counting');
    for (const lineId of ['inbound', 'outbound']) {
      const w = band.warnings.find((x) => x.lineId === lineId);
      expect(w?.message, JSON.stringify(band.warnings)).toMatch(new RegExp(`camera band, line "${lineId}" at 1\\.0 fps: .*extend the ROI`));
      // The log says it once per line (checked every 60 frames analysed), not on every check; its figures are those of
      // then. On a loaded machine the camera can end with fewer than 60 frames analysed (at least 40 are asserted
      // above), and then no check has run yet: never more than once, and once when a check has run.
      const said = logged.filter((m) => m.startsWith(`camera band, line "${lineId}" at `));
      expect(said, JSON.stringify(logged)).toHaveLength(byId(cams, 'band').framesAnalysed >= 60 ? 1 : 0);
      for (const m of said) expect(m).toMatch(/ at \d+\.\d fps: .*extend the ROI/);
    }
    expect(logged.some((m) => m.startsWith('camera scene'))).toBe(false);

    const dead = byId(cams, 'dead');
    expect(dead.status).toBe('down');
    expect(dead.framesAnalysed).toBe(0);
    expect(dead.warnings).toHaveLength(1);
    expect(dead.warnings[0]!.message).toContain(`camera dead`);
    expect(dead.warnings[0]!.message).toContain(`127.0.0.1:${deadPort}`);
    expect(dead.warnings[0]!.message).toMatch(/failed attempt\(s\) in a row, retrying in \d/);

    // Its images came but none could be analysed: said in its health (it read "learning" with no warning), and
    // logged once, not for every frame.
    const tooBig = byId(cams, 'tooBig');
    expect(tooBig.framesAnalysed).toBe(0);
    expect(tooBig.status).toBe('failing');
    expect(tooBig.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^camera tooBig: no frame analysed for \d+ s although the camera answers: .*over the limit of 0\.5 MP/)]);
    expect(logged.filter((m) => m.includes('camera tooBig')), JSON.stringify(logged)).toHaveLength(1);

    const still = byId(cams, 'still');
    expect(still.status).toBe('frozen');
    expect(still.framesAnalysed).toBeLessThanOrEqual(1); // its one picture
    expect(still.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^camera still: no new image for \d+ s although it answers.*check that the camera still updates/)]);
    expect(logged.filter((m) => m.startsWith('camera still: no new image'))).toHaveLength(1);
    const stillStream = byId(cams, 'stillStream');
    expect(stillStream.status).toBe('frozen');
    expect(stillStream.framesAnalysed).toBeLessThanOrEqual(1);
    expect(logged.filter((m) => m.startsWith('camera stillStream: no new image'))).toHaveLength(1);

    // The dashboard shows these: a table of cameras and the warnings, filled from /api/health.
    const page = await (await fetch(`${http.url}/`)).text();
    expect(page).toContain('/api/health');
    expect(page).toContain('id="cameras"');

    // And each camera's latest image, with the ROI and lines (from /api/health) drawn over it: the last new image
    // the camera sent, as it sent it; none yet from the dead one.
    expect(good.view).toEqual({ roi: scene.roi, lines: scene.lines, drawnOn: [1280, 720] });
    const image = await fetch(`${http.url}/api/cameras/scene/latest.jpg`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await image.arrayBuffer()).equals(frames.at(-1)!)).toBe(true);
    const none = await fetch(`${http.url}/api/cameras/dead/latest.jpg`);
    expect(none.status).toBe(503);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('TC_ERR_NO_IMAGE');
    expect((await fetch(`${http.url}/api/cameras/nope/latest.jpg`)).status).toBe(404);
    expect(page).toContain('/latest.jpg');

    // A scraper of /metrics is told the same: each camera's status, and the scene's counts per line and direction.
    // The two are read one after the other from a live daemon: read again if a status changed in between.
    let metrics = '';
    let now: CameraHealth[] = [];
    for (let i = 0; i < 5; i++) {
      metrics = await (await fetch(`${http.url}/metrics`)).text();
      now = await health();
      if (now.every((c) => metrics.includes(`traffic_counter_camera_status{camera="${c.id}",status="${c.status}"} 1`))) break;
    }
    for (const c of now) expect(metrics, c.id).toContain(`traffic_counter_camera_status{camera="${c.id}",status="${c.status}"} 1`);
    expect(byId(now, 'dead').status).toBe('down');
    for (const l of byId(now, 'scene').counts) {
      expect(metrics).toContain(`traffic_counter_crossings_total{camera="scene",line="${l.lineId}",direction="in"} ${l.in}\n`);
      expect(metrics).toContain(`traffic_counter_crossings_total{camera="scene",line="${l.lineId}",direction="out"} ${l.out}\n`);
    }
    expect(byId(now, 'scene').counts.some((l) => l.in + l.out > 0)).toBe(true);
  }, 240_000);
});
