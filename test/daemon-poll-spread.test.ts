// Snapshot cameras polled at the same instant send their JPEGs to the decoders all at once, and with fewer frames
// in flight than cameras the channel drops some every round although the decoders are mostly idle (6 cameras at
// 2 fps, one jpeg-js decoder: 38% of five cameras' frames dropped). The daemon spreads the cameras' polls over the
// poll interval, and each camera keeps its place in it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon, pollStartDelays } from '../dist/src/daemon.js';
import { SlotClock } from '../dist/src/source/slot-clock.js';
import { createScene } from '../dist/src/source/camera-sim/index.js';
import { tempDir } from './helpers/temp-dir.js';

describe('spreading the cameras polls', () => {
  it('gives the k-th of n snapshot cameras k/n of its poll interval, and MJPEG streams none', () => {
    const snap = (pollIntervalMs: number) => ({ kind: 'snapshot' as const, pollIntervalMs });
    const mjpeg = { kind: 'mjpeg' as const, pollIntervalMs: 500 };
    expect(pollStartDelays([snap(500), snap(500), snap(500), snap(500)])).toEqual([0, 125, 250, 375]);
    expect(pollStartDelays([mjpeg, snap(1000), mjpeg, snap(1000)])).toEqual([0, 0, 0, 500]);
    expect(pollStartDelays([snap(300)])).toEqual([0]);
    // Spread over 2 s at most: a camera polled every 10 minutes is not first polled minutes after the start.
    expect(pollStartDelays([snap(600_000), snap(600_000)])).toEqual([0, 1000]);
    expect(pollStartDelays([])).toEqual([]);
  });

  it('a slot clock with an offset has its first slot that much later, and refuses a negative one', () => {
    let now = 10_000;
    const ticks: number[] = [];
    const clock = new SlotClock({ intervalMs: 100, now: () => now, offsetMs: 40, onSlot: (t: number) => ticks.push(t) });
    expect(clock.start()).toBe(10_040);
    expect(ticks).toEqual([]); // slot 0 is not due yet
    now = 10_140;
    expect(clock.slotAtOrAfter(now)).toBe(10_140);
    expect(clock.slotAtOrAfter(10_141)).toBe(10_240);
    clock.halt();
    expect(() => new SlotClock({ intervalMs: 100, now: () => 0, offsetMs: -1 })).toThrow(/offsetMs/);
  });

  it('polls each camera at its own place in the interval, and keeps it', { timeout: 30_000 }, async () => {
    const jpeg = createScene({ seed: 3, scenario: 'empty' }).encodeJpeg(0).jpeg;
    const polls = new Map<string, number[]>();
    const server = createServer((req, res) => {
      polls.set(req.url!, [...(polls.get(req.url!) ?? []), Date.now()]);
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const P = 800;
    const scene = createScene({ seed: 3, scenario: 'empty' });
    const cameras = Array.from({ length: 4 }, (_, i) => ({ ...scene.cameraConfig(), id: `cam${i}`, url: `${base}/cam${i}.jpg`, pollIntervalMs: P }));
    const config = validateConfig({ db: join(tempDir(), 'counts.db'), decoders: 1, cameras });
    const daemon = await Daemon.start(config, { log: { info() {}, warn() {} } });
    onTestFinished(() => daemon.close());
    const wanted = 4;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      if (cameras.every((c) => (polls.get(`/cam${c.id.slice(3)}.jpg`)?.length ?? 0) >= wanted)) break;
    }
    const times = cameras.map((_, i) => polls.get(`/cam${i}.jpg`) ?? []);
    for (const t of times) expect(t.length, JSON.stringify(times)).toBeGreaterThanOrEqual(wanted);
    // Nominally 200 ms apart (P/4), in the cameras' order; a timer late by up to 100 ms still passes.
    for (let i = 1; i < times.length; i++) {
      const gap = times[i]![0]! - times[i - 1]![0]!;
      expect(gap, JSON.stringify(times)).toBeGreaterThanOrEqual(100);
      expect(gap, JSON.stringify(times)).toBeLessThanOrEqual(300);
    }
    // Each camera's later polls stay on its own grid (first poll + k·P), so the cameras stay apart.
    for (const t of times) {
      for (let k = 1; k < wanted; k++) expect(Math.abs(t[k]! - t[0]! - k * P), JSON.stringify(times)).toBeLessThanOrEqual(100);
    }
  });
});
