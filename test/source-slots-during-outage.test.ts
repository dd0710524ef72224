// onSlot ticks once per poll interval on a fixed grid even while the camera is down and the source backs off,
// so the daemon's count of expected frames (uptime) does not slow down during an outage.
import { describe, expect, it, onTestFinished } from 'vitest';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { startCamera, take } from './helpers/source-http.js';

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
