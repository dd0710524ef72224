// MjpegStreamSource reads a live multipart/x-mixed-replace stream from a local camera: it yields the newest
// frame when pulled (older unread ones are dropped and counted) and reconnects when the stream ends.
import type { ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { MjpegStreamSource } from '../dist/src/source/mjpeg-stream-source.js';
import { makeJpeg, startCamera, until } from './helpers/source-http.js';

const opts = { cameraId: 'cam1', pollIntervalMs: 20, timeoutMs: 2_000, maxBodyBytes: 1 << 20, backoffInitialMs: 10, backoffMaxMs: 40 };

/** Writes one multipart part; returns how many bytes that was. */
function writePart(res: ServerResponse, jpeg: Buffer, boundary = 'frame'): number {
  const head = `--${boundary}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`;
  res.write(head);
  res.write(jpeg);
  res.write('\r\n');
  return head.length + jpeg.length + 2;
}

describe('MJPEG stream source', () => {
  it('yields the newest frame when pulled and counts the ones it had to drop', async () => {
    const images = Array.from({ length: 6 }, (_, i) => makeJpeg(i * 20));
    let stream: ServerResponse | undefined;
    const cam = await startCamera((_req, res) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary="frame"' });
      writePart(res, images[0]);
      stream = res;
    }, '/video.mjpg');
    const source = new MjpegStreamSource({ ...opts, url: cam.url });
    onTestFinished(() => source.close());
    const it = source.frames();

    const first = await it.next();
    expect(Buffer.from(first.value!.jpeg)).toEqual(images[0]);

    // Five more frames arrive while the consumer is busy; only the last is kept.
    const bytesBefore = source.stats().bytes;
    let written = 0;
    for (const img of images.slice(1)) written += writePart(stream!, img);
    await until(() => source.stats().bytes - bytesBefore >= written);

    const second = await it.next();
    expect(Buffer.from(second.value!.jpeg)).toEqual(images[5]);
    expect(second.value!.seq).toBe(2);
    expect(source.stats().dropped).toBe(4);
    expect(source.stats().frames).toBe(2);
    await it.return!();
  });

  it('skips a part byte-identical to the last one and reports it unchanged (a frozen stream), across reconnections', async () => {
    const [still, next] = [makeJpeg(3), makeJpeg(90)];
    let stream: ServerResponse | undefined;
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      writePart(res, still);
      if (n === 0) res.end('--frame--\r\n'); // hangs up after one frame; the new connection starts on it again
      else stream = res;
    }, '/video.mjpg');
    const unchanged: number[] = [];
    const source = new MjpegStreamSource({ ...opts, url: cam.url, onUnchanged: (t) => unchanged.push(t) });
    onTestFinished(() => source.close());
    const it = source.frames();

    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(still);
    // The reconnection's first part, then two more, are that picture again.
    await until(() => source.stats().identicalSkipped === 1);
    for (const k of [2, 3]) {
      writePart(stream!, still);
      await until(() => source.stats().identicalSkipped === k);
    }
    writePart(stream!, next);
    const second = await it.next();
    expect(Buffer.from(second.value!.jpeg)).toEqual(next);
    expect(second.value!.seq).toBe(2);
    expect(unchanged).toHaveLength(3);
    expect(source.stats().frames).toBe(2);
    expect(source.stats().dropped).toBe(0);
    await it.return!();
  });

  it('reconnects after the stream ends, reporting TC_ERR_SOURCE_STREAM', async () => {
    const images = [makeJpeg(1), makeJpeg(2)];
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace;boundary=frame' });
      writePart(res, images[Math.min(n, 1)]);
      if (n === 0) res.end('--frame--\r\n'); // first connection: one frame, then the camera hangs up
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({ ...opts, url: cam.url, onError: (e) => errors.push(e) });
    onTestFinished(() => source.close());
    const it = source.frames();

    const a = await it.next();
    const b = await it.next();

    expect([a.value!.jpeg, b.value!.jpeg].map((j) => Buffer.from(j))).toEqual(images);
    expect(cam.requests).toHaveLength(2);
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_STREAM']);
    await it.return!();
  });

  it('says a stream cut mid-part was streaming (frames sent, reconnecting), not to check the host and port', async () => {
    const images = [makeJpeg(1), makeJpeg(2), makeJpeg(3)];
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace;boundary=frame' });
      if (n > 0) {
        writePart(res, images[2]);
        return;
      }
      writePart(res, images[0]);
      writePart(res, images[1]);
      // The third part is cut in its middle: the camera (or a proxy) drops the connection.
      res.write(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${images[2].length}\r\n\r\n`);
      res.write(images[2].subarray(0, images[2].length >> 1), () => setTimeout(() => res.socket?.destroy(), 50));
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({ ...opts, url: cam.url, onError: (e) => errors.push(e) });
    onTestFinished(() => source.close());
    const it = source.frames();
    await it.next();
    await until(() => errors.length > 0);
    expect(errors[0]!.code).toBe('TC_ERR_SOURCE_NETWORK');
    expect(errors[0]!.message).toMatch(/MJPEG stream \S+ answered HTTP 200 and sent 2 frames \(\d+ bytes\), then the connection broke .*reconnecting/);
    expect(errors[0]!.message).not.toMatch(/check the host and port/);
    await it.return!();
  });

  it('skips a part over maxBodyBytes with TC_ERR_SOURCE_TOO_LARGE and keeps the connection', async () => {
    const small = makeJpeg(7);
    const cam = await startCamera((_req, res) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      writePart(res, Buffer.alloc(50_000, 1));
      writePart(res, small);
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({ ...opts, maxBodyBytes: 10_000, url: cam.url, onError: (e) => errors.push(e) });
    onTestFinished(() => source.close());
    const it = source.frames();

    const frame = await it.next();

    expect(Buffer.from(frame.value!.jpeg)).toEqual(small);
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_TOO_LARGE']);
    expect(errors[0].message).toContain('maxBodyBytes=10000');
    expect(cam.requests).toHaveLength(1);
    await it.return!();
  });

  /** A camera streaming `first(res)` on its one connection, and a source reading it with its warnings; `stream()` writes on. */
  async function streamingCamera(first: (res: ServerResponse) => void) {
    let stream: ServerResponse | undefined;
    const cam = await startCamera((_req, res) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      first(res);
      stream = res;
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({ ...opts, url: cam.url, onError: (e) => errors.push(e) });
    onTestFinished(() => source.close());
    return { cam, errors, source, it: source.frames(), stream: () => stream };
  }

  it('reads every frame of a camera whose Content-Length headers are too long, with a TC_ERR_SOURCE_PART_LENGTH warning each', async () => {
    const images = Array.from({ length: 4 }, (_, i) => makeJpeg(i * 40 + 5));
    const writeLong = (res: ServerResponse, jpeg: Buffer): void => {
      res.write(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length + 30}\r\n\r\n`);
      res.write(jpeg);
      res.write('\r\n');
    };
    const { cam, errors, source, it, stream: current } = await streamingCamera((res) => writeLong(res, images[0]));
    // Each part is cut once the next one's delimiter came: the pull for frame k is answered after part k + 1 is sent.
    const first = it.next();
    await until(() => current() !== undefined);
    const stream = current();
    writeLong(stream!, images[1]);
    for (let k = 0; k < 3; k++) {
      const frame = await (k === 0 ? first : it.next());
      expect(Buffer.from(frame.value!.jpeg)).toEqual(images[k]);
      if (k < 2) writeLong(stream!, images[k + 2]);
    }
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_PART_LENGTH', 'TC_ERR_SOURCE_PART_LENGTH', 'TC_ERR_SOURCE_PART_LENGTH']);
    expect(errors[0].message).toMatch(/^camera cam1: GET .* an MJPEG part whose Content-Length \(\d+ bytes\) is longer than its JPEG \(\d+ bytes\).*; the part was cut there and the stream read on \(fix the camera's firmware/);
    expect(cam.requests).toHaveLength(1);
    expect(source.stats().errorsByCode).toEqual({ TC_ERR_SOURCE_PART_LENGTH: 3 });
    await it.return!();
  });

  it('loses only a partial frame whose Content-Length is the whole frame\'s, not the next one with it, and says so', async () => {
    const images = Array.from({ length: 3 }, (_, i) => makeJpeg(i * 40 + 7));
    const { cam, errors, source, it, stream: current } = await streamingCamera((res) => writePart(res, images[0]));
    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(images[0]);
    const stream = current();
    // The camera announces image 1 whole but sends 100 bytes fewer, without its end, then image 2.
    stream!.write(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${images[1].length}\r\n\r\n`);
    stream!.write(images[1].subarray(0, images[1].length - 100));
    stream!.write('\r\n');
    writePart(stream!, images[2]);
    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(images[2]);
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_PART_LENGTH']);
    expect(errors[0].message).toBe(
      `camera cam1: GET ${cam.url} sent a partial frame: an MJPEG part announced ${images[1].length} bytes (Content-Length) but the next part ` +
        `began after ${images[1].length - 100}, before the JPEG's end; that frame was dropped and the stream read on from the next part ` +
        `(if this repeats, check the camera's load and the network to it, or its firmware)`,
    );
    expect(source.stats().dropped).toBe(0);
    await it.return!();
  });

  // Skipping oversized parts is no frame: a stream of nothing but those is one failure (TC_ERR_SOURCE_TOO_LARGE, with
  // backoff), whatever their size. Parts over 2 x maxBodyBytes + 64 KiB read as TC_ERR_SOURCE_STREAM ("no complete
  // frame") after each TC_ERR_SOURCE_TOO_LARGE before; smaller ones kept the connection and read frozen.
  for (const size of [50_000, 200_000]) {
    it(`gives up on a stream whose every part is over maxBodyBytes (${size} bytes) as TC_ERR_SOURCE_TOO_LARGE only`, async () => {
      const cam = await startCamera((_req, res) => {
        res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
        const timer = setInterval(() => writePart(res, Buffer.alloc(size, 1)), 20);
        res.on('close', () => clearInterval(timer));
      }, '/video.mjpg');
      const errors: SourceError[] = [];
      const source = new MjpegStreamSource({ ...opts, maxBodyBytes: 10_000, url: cam.url, onError: (e) => errors.push(e) });
      onTestFinished(() => source.close());
      const ac = new AbortController();
      const reading = source.frames(ac.signal).next();
      await until(() => source.stats().consecutiveFailures >= 2);
      ac.abort();
      expect((await reading).done).toBe(true);

      expect(new Set(errors.map((e) => e.code))).toEqual(new Set(['TC_ERR_SOURCE_TOO_LARGE']));
      expect(source.stats().lastError!.message).toMatch(new RegExp(String.raw`^camera cam1: .* sent only MJPEG frames too large to keep \(the latest ${size} bytes\), over the limit maxBodyBytes=10000; raise`));
      expect(source.stats().frames).toBe(0);
    });
  }

  it('tells the user to switch to snapshot mode when the URL serves single images', async () => {
    const cam = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(1)));
    const ac = new AbortController();
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({
      ...opts,
      url: cam.url,
      onError: (e) => {
        errors.push(e);
        ac.abort();
      },
    });
    onTestFinished(() => source.close());

    const result = await source.frames(ac.signal).next();

    expect(result.done).toBe(true);
    expect(errors[0].code).toBe('TC_ERR_SOURCE_STREAM');
    expect(errors[0].message).toContain('"snapshot"');
  });

  it('reports a stalled stream as TC_ERR_SOURCE_TIMEOUT and reconnects', async () => {
    const image = makeJpeg(3);
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      if (n === 0) res.write('--frame\r\nContent-Length: 9999\r\n\r\nhalf'); // then silence
      else writePart(res, image);
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({ ...opts, timeoutMs: 200, url: cam.url, onError: (e) => errors.push(e) });
    onTestFinished(() => source.close());
    const it = source.frames();

    const frame = await it.next();

    expect(Buffer.from(frame.value!.jpeg)).toEqual(image);
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_TIMEOUT']);
    await it.return!();
  });

  it('gives up a stream that trickles bytes but completes no frame (stuck mid-part) as TC_ERR_SOURCE_TIMEOUT, and reconnects', async () => {
    const [first, second] = [makeJpeg(3), makeJpeg(60)];
    const cam = await startCamera((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      if (n > 0) {
        writePart(res, second);
        return;
      }
      writePart(res, first);
      // The next part starts, then one byte every 50 ms: never idle for timeoutMs, never a frame.
      res.write(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${first.length}\r\n\r\n`);
      let i = 0;
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(first.subarray(i, ++i))), 50);
      res.on('close', () => clearInterval(t));
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({ ...opts, timeoutMs: 400, url: cam.url, onError: (e) => errors.push(e) });
    onTestFinished(() => source.close());
    const it = source.frames();

    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(first);
    await until(() => errors.length > 0);
    expect(errors[0]!.code).toBe('TC_ERR_SOURCE_TIMEOUT');
    expect(errors[0]!.message).toMatch(/MJPEG stream \S+ sent \d+ bytes but no complete frame for \d+\.\d s \(twice timeoutMs=400 plus pollIntervalMs=20\); reconnecting/);
    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(second);
    expect(cam.requests).toHaveLength(2);
    await it.return!();
  });

  it('keeps a slow stream whose frames each take a while to arrive after a pause shorter than timeoutMs', { timeout: 20_000 }, async () => {
    // A camera sending a frame every 2.2 s (pollIntervalMs left below that), each frame's bytes spread over 1.2 s
    // (a slow link): idle 1.0 s at most (timeoutMs 1.5 s), each frame complete 1.2 s after its first byte, but 2.2 s
    // after the one before, past timeoutMs plus pollIntervalMs (1.8 s): it was cut and made again at every frame.
    // (Idle 0.7 s against 0.8 s left too little for a loaded machine's late timers: a CI run saw it stall.)
    const images = Array.from({ length: 8 }, (_, i) => makeJpeg(i * 30));
    const cam = await startCamera((_req, res) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      writePart(res, images[0]!);
      let k = 1;
      const timers: NodeJS.Timeout[] = [];
      const sendSlowly = (): void => {
        const jpeg = images[k++ % images.length]!;
        const part = Buffer.concat([Buffer.from(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`), jpeg, Buffer.from('\r\n')]);
        const pieces = 6;
        for (let j = 0; j < pieces; j++) {
          timers.push(setTimeout(() => res.destroyed || res.write(part.subarray(Math.floor((j * part.length) / pieces), Math.floor(((j + 1) * part.length) / pieces))), j * 240));
        }
      };
      let t: NodeJS.Timeout | undefined;
      timers.push(setTimeout(() => { sendSlowly(); t = setInterval(sendSlowly, 2_200); }, 600));
      res.on('close', () => { clearInterval(t); timers.forEach(clearTimeout); });
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({ ...opts, timeoutMs: 1_500, pollIntervalMs: 300, url: cam.url, onError: (e) => errors.push(e) });
    onTestFinished(() => source.close());
    const it = source.frames();
    let delivered = 0;
    const reading = (async () => {
      while (!(await it.next()).done) delivered++;
    })();
    await until(() => delivered >= 4 || errors.length > 0);
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(cam.requests).toHaveLength(1);
    await it.return!();
    await reading;
  });

  it('gives up on a stream with no delimiter line within its first 256 KiB with TC_ERR_SOURCE_STREAM (not after 16 MB)', async () => {
    const cam = await startCamera((_req, res) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      // Not MJPEG at all: a megabyte of text lines, none a "--token" line; then the connection stays open.
      res.write('frame\r\n'.repeat(1 << 17));
    }, '/video.mjpg');
    const ac = new AbortController();
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({
      ...opts,
      maxBodyBytes: 8 * 1024 * 1024,
      url: cam.url,
      onError: (e) => {
        errors.push(e);
        ac.abort();
      },
    });
    onTestFinished(() => source.close());

    expect((await source.frames(ac.signal).next()).done).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_STREAM']);
    expect(errors[0].message).toMatch(/^camera cam1: .* without an MJPEG delimiter line .*boundary=frame.*check that the URL is an MJPEG stream$/);
    expect(source.stats().bytes).toBeLessThan(1 << 20);
  });

  it('still takes a part up to maxBodyBytes, without Content-Length, once a delimiter line came', async () => {
    const big = Buffer.concat([makeJpeg(5), Buffer.alloc(700_000, 0x55)]);
    const cam = await startCamera((_req, res) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      res.write(`--frame\r\nContent-Type: image/jpeg\r\n\r\n`);
      res.write(big);
      res.write('\r\n--frame\r\n');
    }, '/video.mjpg');
    const errors: SourceError[] = [];
    const source = new MjpegStreamSource({ ...opts, maxBodyBytes: 1 << 20, url: cam.url, onError: (e) => errors.push(e) });
    onTestFinished(() => source.close());
    const it = source.frames();

    expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(big);
    expect(errors).toEqual([]);
    await it.return!();
  });

  // The daemon's uptime: one slot expected per poll interval, one received per frame. Stopping the daemon between
  // a slot and the part due for it must not read as the camera missing it (a snapshot poll cut short is withdrawn
  // the same way), while a stream that was down when the daemon stopped stays expected-not-received.
  describe('when its own shutdown ends the stream', () => {
    async function stopAfterSecondSlot(sendAfterSlot: boolean, down = false) {
      const images = [makeJpeg(10), makeJpeg(200)];
      let stream: ServerResponse | undefined;
      const cam = await startCamera((_req, res, n) => {
        if (down && n > 0) return void res.writeHead(503).end();
        res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
        writePart(res, images[0]);
        if (down) res.end('--frame--\r\n'); // the stream ends; reconnections get 503
        else stream = res;
      }, '/video.mjpg');
      const slots: number[] = [];
      const cancelled: number[] = [];
      const errors: SourceError[] = [];
      const source = new MjpegStreamSource({
        ...opts, pollIntervalMs: 1_000, url: cam.url,
        onSlot: (t) => slots.push(t), onSlotCancelled: (t) => cancelled.push(t), onError: (e) => errors.push(e),
      });
      onTestFinished(() => source.close());
      const it = source.frames();
      expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(images[0]);
      await until(() => slots.length >= 2 && (!down || errors.length > 0));
      if (sendAfterSlot) {
        writePart(stream!, images[1]);
        expect(Buffer.from((await it.next()).value!.jpeg)).toEqual(images[1]);
      }
      await source.close();
      await it.return!();
      return { slots, cancelled };
    }

    it('withdraws the slot whose part was still due', async () => {
      const { slots, cancelled } = await stopAfterSecondSlot(false);
      expect(cancelled).toEqual([slots.at(-1)]);
    });

    it('withdraws nothing when the part for the last slot came', async () => {
      const { cancelled } = await stopAfterSecondSlot(true);
      expect(cancelled).toEqual([]);
    });

    it('withdraws nothing when the stream was down', async () => {
      const { cancelled } = await stopAfterSecondSlot(false, true);
      expect(cancelled).toEqual([]);
    });
  });
});
