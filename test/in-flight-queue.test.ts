// The queue every channel shares: a frame's decode limits travel on its entry, and every way an entry leaves
// (dropped on overflow, abandoned after a decoder crash, dropped at close) leaves nothing behind.
import { describe, expect, test, vi } from 'vitest';
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

  test('a lowered bound (decoder hosts gone) drains through delivery: a submit drops one frame, never a batch', async () => {
    const q = new InFlightQueue(8);
    const cams = (s: number): JpegFrame => ({ ...frame(s), cameraId: `cam${s % 4}` });
    const es = Array.from({ length: 8 }, (_, s) => q.push(cams(s), LIMITS)!);
    // Six decoded and waiting for the analyzer, two at decoders.
    for (const e of es.slice(0, 6)) {
      q.toDecoder(e, 1);
      q.complete(e.id, { kind: 'frame', frame: { cameraId: e.frame.cameraId, seq: e.frame.seq, capturedAt: 0, width: 1, height: 1, scale: 1, data: new Uint8Array(4), decodeMs: 0, release() {} } });
    }
    q.toDecoder(es[6]!, 2);
    q.toDecoder(es[7]!, 3);
    q.max = 2;
    expect(q.push(cams(8), LIMITS)).toBeDefined();
    expect(q.stats('test', 0)).toMatchObject({ dropped: 1, inFlight: 8, maxInFlight: 2 });
    // The analyzer takes the five decoded frames left; the queue then holds the two at decoders and the new one.
    for (let k = 0; k < 5; k++) expect((await q.next())?.kind).toBe('frame');
    expect(q.size).toBe(3);
    // Still over the bound: the next submit drops one (not a frame at a decoder), and the queue does not grow.
    q.push(cams(9), LIMITS);
    expect(q.stats('test', 0)).toMatchObject({ dropped: 2, inFlight: 3 });
  });

  test('a frame at a decoder on trial holds back later frames until its overtakeAfter, then is dropped; once answered it is delivered in order', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const q = new InFlightQueue(4);
      const done = (id: number, seq: number): void =>
        q.complete(id, { kind: 'frame', frame: { cameraId: 'cam', seq, capturedAt: 0, width: 1, height: 1, scale: 1, data: new Uint8Array(4), decodeMs: 0, release() {} } });
      const seqs: number[] = [];
      const take = (): void => void q.next().then((o) => o?.kind === 'frame' && seqs.push(o.frame.seq));
      const [a, b, c] = [0, 1, 2].map((s) => q.push(frame(s), LIMITS)!);
      q.toDecoder(a!, 1);
      a!.overtakeAfter = Date.now() + 250;
      q.toDecoder(b!, 2);
      q.toDecoder(c!, 2);
      take();
      done(b!.id, 1);
      await new Promise((r) => setImmediate(r));
      expect(seqs).toEqual([]); // within its time, frame 0 is waited for
      vi.setSystemTime(Date.now() + 250);
      q.overtakeStalled();
      await new Promise((r) => setImmediate(r));
      expect(seqs).toEqual([1]);
      expect(q.stats('test', 0)).toMatchObject({ dropped: 1, delivered: 1 });
      // An answer for the dropped frame is ignored; a frame handed to a trusted decoder is never overtaken.
      done(a!.id, 0);
      const d = q.push(frame(3), LIMITS)!;
      q.toDecoder(d, 1);
      take();
      done(d.id, 3); // c (seq 2) is ahead of it and not overtakable
      q.overtakeStalled();
      await new Promise((r) => setImmediate(r));
      expect(seqs).toEqual([1]);
      done(c!.id, 2);
      take();
      await new Promise((r) => setImmediate(r));
      expect(seqs).toEqual([1, 2, 3]);
    } finally {
      vi.useRealTimers();
    }
  });

  test('after many drops, abandons and a close, no entry is retained, and each drop is told with its frame', async () => {
    const told: number[] = [];
    const q = new InFlightQueue(3, (f) => told.push(f.seq));
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
    // Every frame but the one delivered (998), once each: those dropped for room, the crashed one, the unfinished one.
    expect(told.sort((a, b) => a - b)).toEqual(Array.from({ length: 1_000 }, (_, s) => s).filter((s) => s !== 998));
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

  test('a camera whose frames hang decoders twice in a row is skipped for 10 decode timeouts, doubling, until one of its frames is decoded', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const q = new InFlightQueue(8);
      const cam = (cameraId: string, seq: number): JpegFrame => ({ cameraId, seq, capturedAt: seq, jpeg: new Uint8Array(1) });
      const decoded = (f: JpegFrame) => ({ kind: 'frame' as const, frame: { cameraId: f.cameraId, seq: f.seq, capturedAt: 0, width: 1, height: 1, scale: 1 as const, data: new Uint8Array(4), decodeMs: 1, release() {} } });
      /** Submits a frame of `cameraId`: what became of it (sent to the decoder, or answered at once). */
      const send = async (cameraId: string, seq: number): Promise<'decoder' | string> => {
        const e = q.push(cam(cameraId, seq), LIMITS)!;
        if (e.state === 'pending') {
          q.toDecoder(e);
          return 'decoder';
        }
        const out = await q.next();
        return out?.kind === 'error' ? out.failure.code : 'frame';
      };
      let seq = 0;
      expect(await send('cam', seq++)).toBe('decoder'); // another camera: skipping 'big' lets its frames through
      q.complete(q.decoding()[0]!.id, decoded(cam('cam', 0)));
      expect((await q.next())?.kind).toBe('frame');
      expect(await send('big', seq++)).toBe('decoder');
      q.hung(q.decoding()[0]!.id, 1_000); // one hang: maybe the decoder's, not the camera's
      expect(await send('cam', seq++)).toBe('decoder'); // the decoders work for another camera meanwhile
      q.complete(q.decoding()[0]!.id, decoded(cam('cam', seq - 1)));
      expect((await q.next())?.kind).toBe('frame');
      expect(await send('big', seq++)).toBe('decoder');
      q.hung(q.decoding()[0]!.id, 1_000);
      expect(await send('big', seq++)).toBe('TC_ERR_DECODE_TIMEOUT');
      expect(await send('cam', seq++)).toBe('decoder'); // the other cameras' frames are decoded as ever
      q.complete(q.decoding()[0]!.id, decoded(cam('cam', seq - 1)));
      expect((await q.next())?.kind).toBe('frame');
      vi.setSystemTime(Date.now() + 9_900);
      expect(await send('big', seq++)).toBe('TC_ERR_DECODE_TIMEOUT');
      vi.setSystemTime(Date.now() + 200); // 10 s on: one frame is tried, and hangs again; 20 s this time
      expect(await send('big', seq++)).toBe('decoder');
      const waiting = q.push(cam('big', seq++), LIMITS)!; // queued behind it: skipped too when it hangs
      q.hung(q.decoding()[0]!.id, 1_000);
      expect(waiting.state).toBe('done');
      expect((await q.next())?.kind).toBe('error');
      vi.setSystemTime(Date.now() + 19_900);
      expect(await send('big', seq++)).toBe('TC_ERR_DECODE_TIMEOUT');
      vi.setSystemTime(Date.now() + 200);
      expect(await send('big', seq++)).toBe('decoder');
      q.complete(q.decoding()[0]!.id, decoded(cam('big', seq - 1))); // decoded in time: the camera is trusted again
      expect((await q.next())?.kind).toBe('frame');
      expect(await send('big', seq++)).toBe('decoder');
      q.hung(q.decoding()[0]!.id, 1_000);
      expect(await send('big', seq++)).toBe('decoder');
      expect(q.stats('test', 0)).toMatchObject({ dropped: 4, decodeErrors: 4 });
    } finally {
      vi.useRealTimers();
    }
  });

  test('frames of every camera hanging in turn (decoders stopped, the machine swapping) skip no camera: the decoders were at fault', async () => {
    // Two cameras, then a stall: each camera's frames hung twice with nothing answered between, and both cameras were
    // skipped for 10 decode timeouts once the decoders were back, losing 10 s of counts on every camera.
    const q = new InFlightQueue(8);
    const cam = (cameraId: string, seq: number): JpegFrame => ({ cameraId, seq, capturedAt: seq, jpeg: new Uint8Array(1) });
    const decoded = (f: JpegFrame) => ({ kind: 'frame' as const, frame: { cameraId: f.cameraId, seq: f.seq, capturedAt: 0, width: 1, height: 1, scale: 1 as const, data: new Uint8Array(4), decodeMs: 1, release() {} } });
    let seq = 0;
    for (const id of ['a', 'b']) {
      const e = q.push(cam(id, seq++), LIMITS)!;
      q.toDecoder(e);
      q.complete(e.id, decoded(e.frame));
      expect((await q.next())?.kind).toBe('frame');
    }
    for (const id of ['a', 'b', 'a', 'b', 'a']) {
      const e = q.push(cam(id, seq++), LIMITS)!;
      expect(e.state).toBe('pending');
      q.toDecoder(e);
      q.hung(e.id, 1_000);
    }
    // The decoders are back: both cameras' frames go to them.
    for (const id of ['a', 'b']) expect(q.push(cam(id, seq++), LIMITS)!.state, `camera ${id}`).toBe('pending');
    expect(q.stats('test', 0)).toMatchObject({ dropped: 5, decodeErrors: 0 });
  });

  test('a camera alone is never skipped for hung frames: there is no other camera to keep its frame rate for', async () => {
    const q = new InFlightQueue(8);
    const frame = (seq: number): JpegFrame => ({ cameraId: 'only', seq, capturedAt: seq, jpeg: new Uint8Array(1) });
    for (let seq = 0; seq < 5; seq++) {
      const e = q.push(frame(seq), LIMITS)!;
      expect(e.state).toBe('pending'); // sent to a decoder every time, however many hung before it
      q.toDecoder(e);
      q.hung(e.id, 1_000);
    }
    expect(q.stats('test', 0)).toMatchObject({ dropped: 5, decodeErrors: 0 });
  });

  test('a frame dropped as hung counts in its camera\'s share: when full, that camera\'s waiting frame goes, not another\'s', () => {
    const q = new InFlightQueue(3);
    const cam = (cameraId: string, seq: number): JpegFrame => ({ cameraId, seq, capturedAt: seq, jpeg: new Uint8Array(1) });
    const big = q.push(cam('big', 0), LIMITS)!;
    q.toDecoder(big);
    q.hung(big.id, 1_000);
    const bigWaiting = q.push(cam('big', 1), LIMITS)!;
    const other = [q.push(cam('cam', 2), LIMITS)!, q.push(cam('cam', 3), LIMITS)!];
    // Full: 'cam' holds more frames, but 'big' had a decoder for a whole timeout and 'cam' nothing.
    q.push(cam('cam', 4), LIMITS);
    expect(q.get(bigWaiting.id)).toBeUndefined();
    expect(other.every((e) => q.get(e.id) === e)).toBe(true);
  });

  describe('when full (more frames come than the decoders and the analyzer take)', () => {
    const camFrame = (cameraId: string, seq: number): JpegFrame => ({ cameraId, seq, capturedAt: seq, jpeg: new Uint8Array(1) });
    const decoded = (f: JpegFrame) => ({ kind: 'frame' as const, frame: { cameraId: f.cameraId, seq: f.seq, capturedAt: f.capturedAt, width: 1, height: 1, scale: 1 as const, data: new Uint8Array(4), decodeMs: 1, release() {} } });

    /**
     * 8 cameras polled in lock-step rounds of 8 frames, for 400 rounds, into a queue of `max` frames: `decoders`
     * decoders take the oldest waiting frames (at once when idle), finish `decodes` a round, and the analyzer takes
     * at most `analysed` a round. Returns the frames each camera had delivered.
     */
    async function rounds(max: number, decoders: number, decodes: number, analysed: number): Promise<number[]> {
      const q = new InFlightQueue(max);
      const cams = Array.from({ length: 8 }, (_, i) => `cam${i}`);
      const delivered = new Map<string, number>(cams.map((c) => [c, 0]));
      const pump = () => {
        while (q.decoding().length < decoders) {
          const e = q.nextPending();
          if (!e) return;
          q.toDecoder(e);
        }
      };
      let tokens = 0;
      let wake: (() => void) | undefined;
      const consumer = (async () => {
        for (;;) {
          while (tokens === 0) await new Promise<void>((r) => (wake = r));
          const out = await q.next();
          if (out === null) return;
          tokens--;
          if (out.kind === 'frame') delivered.set(out.frame.cameraId, delivered.get(out.frame.cameraId)! + 1);
        }
      })();
      for (let round = 0; round < 400; round++) {
        for (const c of cams) q.submit(camFrame(c, round), LIMITS, pump);
        for (const e of q.decoding().slice(0, decodes)) q.complete(e.id, decoded(e.frame));
        pump();
        tokens = analysed;
        wake?.();
        for (let k = 0; k < 3 * analysed + 3; k++) await new Promise((r) => setImmediate(r));
        tokens = 0;
      }
      tokens = Infinity;
      wake?.();
      q.dropUnfinished();
      q.close();
      await consumer;
      return [...delivered.values()];
    }

    test.each([
      // [max, decoders, decoded a round, analysed a round, frames a camera gets]
      [4, 1, 1, 8, 50], // one decoder, the bottleneck (dropping the oldest of all: 0 0 0 0 1 398 0 0)
      [8, 4, 4, 8, 200], // four decoders, the bottleneck
      [4, 2, 2, 1, 50], // the analyzer the bottleneck: decoded frames wait for it
      [8, 4, 4, 1, 50],
    ])('every camera keeps its share: max %i, %i decoder(s) decoding %i and the analyzer taking %i a round', async (max, decoders, dec, ana, share) => {
      const counts = await rounds(max, decoders, dec, ana);
      // Each camera gets its eighth, within 10% (before: the cameras polled last in each round took everything).
      expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(8 * share - 8);
      expect(Math.min(...counts), String(counts)).toBeGreaterThanOrEqual(0.9 * share);
      expect(Math.max(...counts), String(counts)).toBeLessThanOrEqual(1.1 * share);
    });

    test('a frame at a decoder is not dropped; when every frame is, the new one is', () => {
      const q = new InFlightQueue(2);
      const a0 = q.push(camFrame('a', 0), LIMITS)!;
      q.toDecoder(a0);
      const b0 = q.push(camFrame('b', 0), LIMITS)!;
      // Full. Each camera holds one frame not at a decoder, a's new one counted, and neither had one delivered: among
      // equals the new frame's camera gives up its oldest such frame, the new one itself. Not b's waiting frame, not
      // a's at the decoder.
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
