// Remote decoders for the zeromq channel: `traffic-counter decoder --connect tcp://HOST:PORT` (runZeromqDecoder)
// connects to an analyzer that runs no local decoder, gets work only while connected, and can come and go.
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { runZeromqDecoder } from '../dist/src/decode/zeromq-decoder.js';
import { LIMITS, makeJpeg, sha1 } from './helpers/jpeg-fixtures.js';

function startDecoder(connect: string): { stop: () => Promise<void> } {
  const ac = new AbortController();
  const running = runZeromqDecoder({ connect, decoder: 'jpeg-js', signal: ac.signal });
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  onTestFinished(stop);
  return { stop };
}

async function waitFor(what: string, cond: () => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('frames are decoded by remote decoders that connect, leave and come back', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 8, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close());
  await ch.start();
  expect(ch.endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
  const frames = Array.from({ length: 6 }, (_, k) => makeJpeg(160, 90, k));
  const submit = (s: number): void => ch.submit({ cameraId: 'cam', seq: s, capturedAt: s, jpeg: frames[s]!.jpeg }, LIMITS);

  // Work submitted before any decoder is connected waits (bounded by maxInFlight) and is picked up later.
  submit(0);
  const first = startDecoder(ch.endpoint);
  const out0 = await ch.next();
  expect(out0?.kind === 'frame' && sha1(out0.frame.data)).toBe(frames[0]!.sha1);

  await first.stop(); // says 'bye': the analyzer stops counting on it at once
  await waitFor('the decoder to leave', () => ch.decoderCount === 0);

  startDecoder(ch.endpoint);
  startDecoder(ch.endpoint);
  await waitFor('two decoders', () => ch.decoderCount === 2);
  for (let s = 1; s < 6; s++) submit(s);
  for (let s = 1; s < 6; s++) {
    const out = await ch.next();
    expect(out?.kind === 'frame' && [out.frame.seq, sha1(out.frame.data)]).toEqual([s, frames[s]!.sha1]);
  }
  expect(ch.stats()).toMatchObject({ delivered: 6, dropped: 0, decoderRestarts: 0 });
});
