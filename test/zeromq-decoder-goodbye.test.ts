// A remote decoder stopped (Ctrl-C) while its sends are held up, a large frame on its way and its announcements
// queued behind it, skipped its goodbye: the daemon then logged "went away: its connection closed without a
// goodbye" for a plain Ctrl-C (seen about 1 time in 6 with frames flowing). It now waits (up to 1 s) for room, says
// goodbye, then stops.
import { expect, onTestFinished, test } from 'vitest';
import { Router } from 'zeromq';
import { runZeromqDecoder } from '../dist/src/decode/zeromq-decoder.js';
import { makeJpeg } from './helpers/jpeg-fixtures.js';

test('a decoder stopped while its sends wait for room still says goodbye, after what it had sent', { timeout: 60_000 }, async () => {
  // The analyzer's side, reading only when the test says: a small receive queue, so the decoder's sends back up.
  const router = new Router({ receiveHighWaterMark: 1, receiveBufferSize: 4096, linger: 0 });
  onTestFinished(() => router.close());
  await router.bind('tcp://127.0.0.1:0');
  const endpoint = router.lastEndpoint!;
  const ac = new AbortController();
  const running = runZeromqDecoder({ connect: endpoint, decoder: 'jpeg-js', signal: ac.signal, announceIntervalMs: 50 });
  onTestFinished(async () => {
    ac.abort();
    await running;
  });

  const [peer, first] = await router.receive();
  expect(JSON.parse(first!.toString()).type).toBe('ready');
  // A 2.8 MP frame (11 MB decoded): far more than the socket buffers hold, so its send and the 'ready's behind it wait.
  const frame = makeJpeg(1920, 1440, 1);
  const req = { type: 'decode', cameraId: 'cam', seq: 1, capturedAt: Date.now(), limits: { maxMegapixels: 8, maxDecodeMemoryMB: 256 }, scale: 1 };
  await router.send([peer!, JSON.stringify({ type: 'decode', job: 1, req }), Buffer.from(frame.jpeg)]);
  // Not read meanwhile: the decoder decodes (about 0.5 s here) and its queue to us fills.
  await new Promise((r) => setTimeout(r, 3_000));
  ac.abort();
  await new Promise((r) => setTimeout(r, 200));

  // Now read everything the decoder sent until it closed.
  const types: string[] = [];
  const end = Date.now() + 10_000;
  router.receiveTimeout = 500;
  while (Date.now() < end && types.at(-1) !== 'bye') {
    try {
      const [, head] = await router.receive();
      types.push(JSON.parse(head!.toString()).type as string);
    } catch {
      if (types.length > 0) break; // nothing more within 0.5 s
    }
  }
  await running;
  expect(types).toContain('frame');
  expect(types.at(-1)).toBe('bye');
});
