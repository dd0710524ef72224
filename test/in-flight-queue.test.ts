// The queue every channel shares: a frame's decode limits travel on its entry, and every way an entry leaves
// (dropped on overflow, abandoned after a decoder crash, dropped at close) leaves nothing behind.
import { describe, expect, test } from 'vitest';
import { InFlightQueue } from '../dist/src/channel/in-flight-queue.js';
import type { JpegFrame } from '../dist/src/channel/messages.js';
import { LIMITS } from './helpers/jpeg-fixtures.js';

const frame = (seq: number): JpegFrame => ({ cameraId: 'cam', seq, capturedAt: seq, jpeg: new Uint8Array(1) });

describe('InFlightQueue', () => {
  test('submit() queues the frame with its limits and pumps; after close() it does neither', () => {
    const q = new InFlightQueue(4);
    let pumps = 0;
    const other = { maxMegapixels: 1, maxDecodeMemoryMB: 8 };
    q.submit(frame(0), LIMITS, () => pumps++);
    q.submit(frame(1), other, () => pumps++);
    expect(pumps).toBe(2);
    expect(q.nextPending()?.limits).toEqual(LIMITS);
    q.nextPending()!.state = 'decoding';
    expect(q.nextPending()?.limits).toEqual(other);

    q.close();
    q.submit(frame(2), LIMITS, () => pumps++);
    expect(pumps).toBe(2);
    expect(q.stats('test', 0)).toMatchObject({ submitted: 2, inFlight: 2 });
  });

  test('after many drops, abandons and a close, no entry is retained', async () => {
    const q = new InFlightQueue(3);
    const ids = Array.from({ length: 1_000 }, (_, s) => q.push(frame(s), LIMITS).id);
    expect(q.stats('test', 0)).toMatchObject({ submitted: 1_000, dropped: 997, inFlight: 3 });
    expect(ids.slice(0, 997).every((id) => q.get(id) === undefined)).toBe(true);

    // A decoder dies with the oldest survivor; the next one is decoded and delivered; the last is unfinished at close.
    const [crashed, decoded, unfinished] = ids.slice(997);
    q.get(crashed!)!.state = 'decoding';
    q.abandon(crashed!);
    q.complete(decoded!, { kind: 'error', failure: { type: 'decode-error', cameraId: 'cam', seq: 998, capturedAt: 998, code: 'TC_ERR_DECODE_CORRUPT', message: 'bad' } });
    expect((await q.next())?.kind).toBe('error');
    expect(q.get(unfinished!)).toBeDefined();
    q.close();
    q.dropUnfinished();

    expect(await q.next()).toBeNull();
    expect(q.stats('test', 0)).toMatchObject({ submitted: 1_000, dropped: 999, decodeErrors: 1, inFlight: 0 });
    expect(ids.every((id) => q.get(id) === undefined)).toBe(true);
  });

  test('a consumer working through a backlog of ready frames lets the event loop run between frames', async () => {
    const q = new InFlightQueue(8);
    for (let s = 0; s < 5; s++) {
      const e = q.push(frame(s), LIMITS);
      q.complete(e.id, { kind: 'error', failure: { type: 'decode-error', cameraId: 'cam', seq: s, capturedAt: s, code: 'TC_ERR_DECODE_CORRUPT', message: 'x' } });
    }
    q.close();
    // Something else the thread must do (an HTTP request, a camera download, a timer), queued as the loop starts.
    let consumedWhenOtherWorkRan = -1;
    let consumed = 0;
    setImmediate(() => (consumedWhenOtherWorkRan = consumed));
    for (let out = await q.next(); out !== null; out = await q.next()) consumed++;
    expect(consumed).toBe(5);
    expect(consumedWhenOtherWorkRan).toBeGreaterThanOrEqual(0);
    expect(consumedWhenOtherWorkRan).toBeLessThan(2); // it ran before the backlog was done, not after
  });
});
