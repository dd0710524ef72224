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
    const ids = Array.from({ length: 1_000 }, (_, s) => q.push(frame(s), LIMITS)!.id);
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
      const e = q.push(frame(s), LIMITS)!;
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

  describe('when full (more frames come than the decoders and the analyzer take)', () => {
    const camFrame = (cameraId: string, seq: number): JpegFrame => ({ cameraId, seq, capturedAt: seq, jpeg: new Uint8Array(1) });
    const decoded = (f: JpegFrame) => ({ kind: 'frame' as const, frame: { cameraId: f.cameraId, seq: f.seq, capturedAt: f.capturedAt, width: 1, height: 1, scale: 1 as const, data: new Uint8Array(4), decodeMs: 1, release() {} } });

    test('every camera keeps its share: cameras polled in the same order each round are not starved', async () => {
      // 8 cameras polled in lock-step rounds, one decoder that finishes one frame a round: an eighth of what comes.
      const q = new InFlightQueue(4);
      const cams = Array.from({ length: 8 }, (_, i) => `cam${i}`);
      const delivered = new Map<string, number>(cams.map((c) => [c, 0]));
      const consumer = (async () => {
        for (let out = await q.next(); out !== null; out = await q.next()) if (out.kind === 'frame') delivered.set(out.frame.cameraId, delivered.get(out.frame.cameraId)! + 1);
      })();
      for (let round = 0; round < 400; round++) {
        for (const c of cams) q.push(camFrame(c, round), LIMITS);
        const atDecoder = q.decoding()[0];
        if (atDecoder) q.complete(atDecoder.id, decoded(atDecoder.frame));
        const next = q.nextPending();
        if (next) q.toDecoder(next);
        await new Promise((r) => setImmediate(r));
      }
      q.dropUnfinished();
      q.close();
      await consumer;
      const counts = [...delivered.values()];
      // 400 frames went through in all, 50 a camera give or take one (dropping the oldest of all: 0 0 0 0 1 398 0 0).
      expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(398);
      expect(Math.min(...counts)).toBeGreaterThanOrEqual(49);
      expect(Math.max(...counts)).toBeLessThanOrEqual(51);
    });

    test('a frame at a decoder is not dropped; when every frame is, the new one is', () => {
      const q = new InFlightQueue(2);
      const a0 = q.push(camFrame('a', 0), LIMITS)!;
      q.toDecoder(a0);
      const b0 = q.push(camFrame('b', 0), LIMITS)!;
      // Full. a has had a frame decoded lately and b none: a's new frame is the one dropped, not b's waiting one,
      // and not a's at the decoder.
      expect(q.push(camFrame('a', 1), LIMITS)).toBeUndefined();
      expect([q.get(a0.id), q.get(b0.id)]).toEqual([a0, b0]);
      q.toDecoder(b0);
      // Both at decoders: the new frame is dropped, whoever sends it.
      expect(q.push(camFrame('c', 0), LIMITS)).toBeUndefined();
      expect(q.stats('test', 0)).toMatchObject({ submitted: 4, dropped: 2, inFlight: 2 });
      expect(q.decoding()).toEqual([a0, b0]);
    });

    test('among cameras with equal shares, the one holding more frames gives up its oldest', () => {
      const q = new InFlightQueue(3);
      const busy = [0, 1, 2].map((s) => q.push(camFrame('busy', s), LIMITS)!);
      const quiet = q.push(camFrame('quiet', 0), LIMITS)!;
      expect(q.get(busy[0]!.id)).toBeUndefined();
      expect([busy[1], busy[2], quiet].every((e) => q.get(e!.id) === e)).toBe(true);
      // A camera alone: its newest frame replaces its oldest, as before.
      const solo = new InFlightQueue(2);
      const frames = [0, 1, 2, 3].map((s) => solo.push(camFrame('solo', s), LIMITS)!);
      expect(frames.map((e) => solo.get(e.id) !== undefined)).toEqual([false, false, true, true]);
    });
  });
});
