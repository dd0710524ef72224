// onSlot ticks once per poll interval on a fixed grid even while the camera is down and the source backs off,
// so the daemon's count of expected frames (uptime) does not slow down during an outage; and the first poll asks
// for the first slot counted.
import { describe, expect, it, onTestFinished } from 'vitest';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

describe('poll slots during an outage', () => {
  it('keeps counting slots at pollIntervalMs while requests back off', { timeout: 10_000 }, async () => {
    const P = 10;
    const cam = await startCamera((_req, res) => res.writeHead(503).end());
    const ac = new AbortController();
    const slots: number[] = [];
    const source = new HttpSnapshotSource({
      cameraId: 'cam1',
      url: cam.url,
      pollIntervalMs: P,
      timeoutMs: 2_000,
      maxBodyBytes: 1 << 20,
      backoffInitialMs: 200,
      backoffMaxMs: 400,
      onSlot: (t) => {
        slots.push(t);
        if (slots.length === 40) ac.abort();
      },
    });
    onTestFinished(() => source.close());

    await take(source.frames(ac.signal), 1);

    // A timer that fired late reports every slot it overslept in one go, so a few may follow the abort.
    expect(slots.length).toBeGreaterThanOrEqual(40);
    // One slot per interval on a fixed grid: none skipped, none doubled.
    for (let i = 1; i < slots.length; i++) expect(slots[i] - slots[i - 1]).toBe(P);
    // Backing off, the source made far fewer requests than there were slots.
    const { requests, errorsByCode } = source.stats();
    expect(requests).toBeGreaterThan(0);
    expect(requests).toBeLessThan(20);
    // Every request failed (the last may still have been in flight when the test stopped).
    expect(errorsByCode.TC_ERR_SOURCE_HTTP).toBeGreaterThanOrEqual(requests - 1);
  });
});

describe('the first poll', () => {
  it('is for the slot the clock starts from, however little time passes before it', { timeout: 10_000 }, async () => {
    // A clock that moves on at every reading: before, the first request went to the next slot, a whole interval
    // later, and the first slot was counted as expected with no request for it (uptime under 100% from the start).
    let t = Date.now();
    const now = () => (t += 1);
    const cam = await startCamera((_req, res, n) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(n)));
    const slots: number[] = [];
    const source = new HttpSnapshotSource({
      cameraId: 'cam1', url: cam.url, pollIntervalMs: 60_000, timeoutMs: 2_000, maxBodyBytes: 1 << 20,
      backoffInitialMs: 200, backoffMaxMs: 400, now, onSlot: (s) => slots.push(s),
    });
    onTestFinished(() => source.close());
    const started = Date.now();
    expect(await take(source.frames(), 1)).toHaveLength(1);
    // One slot expected, one request made for it, at once (not a poll interval later).
    expect(slots).toHaveLength(1);
    expect(cam.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
