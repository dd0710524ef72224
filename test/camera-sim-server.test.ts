// The camera simulator over HTTP: snapshot frames tied to wall-clock time, conditional GET, MJPEG stream,
// truth and config endpoints, and clean shutdown.
import { get as httpGet } from 'node:http';
import jpeg from 'jpeg-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createScene, startCameraSim } from '../dist/src/source/camera-sim/index.js';
import type { CameraSimOptions } from '../dist/src/source/camera-sim/index.js';
import { validateConfig } from '../dist/src/config/validate-config.js';

const T0 = Date.UTC(2025, 0, 6, 8, 0, 0);

/** A simulator on a random loopback port with a hand-driven clock, closed after the test. */
async function startSim(opts: CameraSimOptions = {}) {
  const clock = { now: T0 };
  const sim = await startCameraSim({ seed: 21, now: () => clock.now, ...opts });
  onTestFinished(() => sim.close());
  return { sim, clock };
}

/** Reads multipart/x-mixed-replace parts until `count` JPEGs have arrived. */
async function readParts(body: ReadableStream<Uint8Array>, boundary: string, count: number): Promise<{ headers: Record<string, string>; jpeg: Buffer }[]> {
  const reader = body.getReader();
  let buf = Buffer.alloc(0);
  const parts: { headers: Record<string, string>; jpeg: Buffer }[] = [];
  while (parts.length < count) {
    const start = buf.indexOf(`--${boundary}\r\n`);
    const headEnd = start >= 0 ? buf.indexOf('\r\n\r\n', start) : -1;
    if (headEnd >= 0) {
      const headers: Record<string, string> = {};
      for (const line of buf.subarray(start, headEnd).toString('latin1').split('\r\n').slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      const len = Number(headers['content-length']);
      if (buf.length >= headEnd + 4 + len) {
        parts.push({ headers, jpeg: buf.subarray(headEnd + 4, headEnd + 4 + len) });
        buf = buf.subarray(headEnd + 4 + len);
        continue;
      }
    }
    const { value, done } = await reader.read();
    if (done) break;
    buf = Buffer.concat([buf, value]);
  }
  await reader.cancel();
  return parts;
}

describe('camera-sim server', () => {
  it('serves the frame of the current sim time as a decodable 1280x720 JPEG, on loopback', async () => {
    const { sim, clock } = await startSim();
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    clock.now = sim.startedAt + 12_345;
    const res = await fetch(`${sim.url}/snapshot.jpg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    // The frame shows the scene at (T - startedAt) / 1000 s, on a 100 ms grid.
    expect(res.headers.get('x-sim-time')).toBe(String(sim.startedAt + 12_300));
    expect(res.headers.get('last-modified')).toBe(new Date(sim.startedAt + 12_300).toUTCString());
    const body = Buffer.from(await res.arrayBuffer());
    const img = jpeg.decode(body, { useTArray: true });
    expect([img.width, img.height]).toEqual([1280, 720]);
    expect(body.equals(createScene({ seed: 21 }).encodeJpeg(12.3).jpeg)).toBe(true);
  });

  it('answers 304 when the client already has the current frame, and 200 once time moves on', async () => {
    const { sim, clock } = await startSim();
    clock.now = sim.startedAt + 5_000;
    const first = await fetch(`${sim.url}/snapshot.jpg`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    await first.arrayBuffer();
    const again = await fetch(`${sim.url}/snapshot.jpg`, { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    clock.now += 500;
    const later = await fetch(`${sim.url}/snapshot.jpg`, { headers: { 'If-None-Match': etag! } });
    expect(later.status).toBe(200);
    expect(later.headers.get('etag')).not.toBe(etag);
    await later.arrayBuffer();
  });

  it('streams MJPEG parts with Content-Type and Content-Length, each a decodable frame', async () => {
    const { sim, clock } = await startSim({ streamFps: 10 });
    const res = await fetch(`${sim.url}/stream.mjpg`);
    expect(res.status).toBe(200);
    const type = res.headers.get('content-type')!;
    expect(type).toMatch(/^multipart\/x-mixed-replace; boundary=/);
    const boundary = type.split('boundary=')[1]!;
    const interval = setInterval(() => (clock.now += 100), 20); // let sim time advance between parts
    onTestFinished(() => clearInterval(interval));
    const parts = await readParts(res.body!, boundary, 2);
    expect(parts.length).toBe(2);
    for (const p of parts) {
      expect(p.headers['content-type']).toBe('image/jpeg');
      expect(p.jpeg.length).toBe(Number(p.headers['content-length']));
      const img = jpeg.decode(p.jpeg, { useTArray: true });
      expect([img.width, img.height]).toEqual([1280, 720]);
    }
  });

  it('serves the truth up to ?until (epoch ms or ISO) and a config that counts this camera', async () => {
    const { sim, clock } = await startSim();
    clock.now = sim.startedAt + 200_000;
    const scene = createScene({ seed: 21 });
    const until = sim.startedAt + 90_000;
    const byMs = (await (await fetch(`${sim.url}/truth.json?until=${until}`)).json()) as {
      lines: Record<string, { in: number; out: number }>;
      events: { t: number; time: string; lineId: string; direction: string }[];
      until: string;
    };
    expect(byMs.lines).toEqual(scene.truthCounts(90).lines);
    expect(byMs.events.map((e) => e.t)).toEqual(scene.crossings(90).map((e) => e.t));
    expect(byMs.events.length).toBeGreaterThan(0);
    expect(Date.parse(byMs.events[0]!.time)).toBe(Math.round(sim.startedAt + byMs.events[0]!.t * 1000));
    expect(byMs.until).toBe(new Date(until).toISOString());
    const byIso = await (await fetch(`${sim.url}/truth.json?until=${new Date(until).toISOString()}`)).json();
    expect(byIso).toEqual(byMs);
    // Without until: everything up to now.
    const now = (await (await fetch(`${sim.url}/truth.json`)).json()) as { events: unknown[] };
    expect(now.events.length).toBe(scene.crossings(200).length);
    const bad = await fetch(`${sim.url}/truth.json?until=yesterday`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/until/);

    const config = validateConfig(await (await fetch(`${sim.url}/config.json`)).json());
    expect(config.cameras[0]!.url).toBe(`${sim.url}/snapshot.jpg`);
    expect(config.cameras[0]!.lines.map((l) => l.id).sort()).toEqual(Object.keys(byMs.lines).sort());
    expect((await fetch(`${sim.url}/nope`)).status).toBe(404);
    expect((await fetch(`${sim.url}/`)).headers.get('content-type')).toMatch(/text\/html/);
  });

  it('bound to every interface, names the camera in /config.json by the host it was reached by, not 0.0.0.0', async () => {
    const sim = await startCameraSim({ seed: 2, host: '0.0.0.0', port: 0 });
    onTestFinished(() => sim.close());
    const port = new URL(sim.url).port;
    // As a daemon on another machine would ask for it (curl and browsers send the Host they were given).
    const configVia = (host: string): Promise<{ cameras: { url: string }[] }> =>
      new Promise((resolve, reject) => {
        const req = httpGet({ host: '127.0.0.1', port: Number(port), path: '/config.json', headers: { host } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(JSON.parse(body)));
        });
        req.on('error', reject);
      });
    expect((await configVia(`cam-host.example:${port}`)).cameras[0]!.url).toBe(`http://cam-host.example:${port}/snapshot.jpg`);
    expect((await configVia(`[::1]:${port}`)).cameras[0]!.url).toBe(`http://[::1]:${port}/snapshot.jpg`);
    // A Host that is not a plain host[:port] is not echoed into the config.
    expect((await configVia('evil/"x')).cameras[0]!.url).toBe(`http://0.0.0.0:${port}/snapshot.jpg`);
  });

  it('close() ends open streams, stops listening and can be called twice', async () => {
    const sim = await startCameraSim({ seed: 2 });
    const res = await fetch(`${sim.url}/stream.mjpg`);
    const reader = res.body!.getReader();
    await reader.read(); // the stream is open
    await sim.close();
    await sim.close();
    // The stream ends instead of hanging.
    for (;;) {
      const { done } = await reader.read().catch(() => ({ done: true }));
      if (done) break;
    }
    await expect(fetch(`${sim.url}/snapshot.jpg`)).rejects.toThrow();
  });

  it('closes when its AbortSignal fires', async () => {
    const ac = new AbortController();
    const sim = await startCameraSim({ seed: 2, signal: ac.signal });
    onTestFinished(() => sim.close());
    ac.abort();
    await sim.close(); // resolves once the abort-triggered close has finished
    await expect(fetch(`${sim.url}/snapshot.jpg`)).rejects.toThrow();
  });
});
