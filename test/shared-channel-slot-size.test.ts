// The shared-memory channel has fixed-size slots: a larger frame is a decode error naming the option to raise,
// and slots are recycled, so many more frames than slots pass through.
import { expect, onTestFinished, test } from 'vitest';
import { SharedMemoryChannel } from '../dist/src/channel/shared-memory-channel.js';
import { LIMITS, makeJpeg, sha1 } from './helpers/jpeg-fixtures.js';

test('a frame larger than a slot is rejected with TC_ERR_DECODE_SIZE_MISMATCH and another channel to use', async () => {
  const ch = new SharedMemoryChannel({ maxInFlight: 2, decoders: 1, decoder: 'jpeg-js', maxFrameWidth: 320, maxFrameHeight: 180 });
  onTestFinished(() => ch.close());
  await ch.start();
  const small = makeJpeg(320, 180, 1);
  ch.submit({ cameraId: 'cam', seq: 0, capturedAt: 0, jpeg: makeJpeg(640, 360, 2).jpeg }, LIMITS);
  ch.submit({ cameraId: 'cam', seq: 1, capturedAt: 0, jpeg: small.jpeg }, LIMITS);
  const first = await ch.next();
  expect(first?.kind).toBe('error');
  if (first?.kind !== 'error') return;
  expect(first.failure.code).toBe('TC_ERR_DECODE_SIZE_MISMATCH');
  expect(first.failure.message).toMatch(/640x360/);
  // The slot size is no setting a user has: the fix named is another channel (it named maxFrameWidth/maxFrameHeight).
  expect(first.failure.message).toMatch(/takes frames of up to 57,600 pixels \(320x180\); count this camera over the ipc or zeromq channel/);
  expect(first.failure.message).not.toMatch(/maxFrame/);
  const second = await ch.next();
  expect(second?.kind === 'frame' && sha1(second.frame.data)).toBe(small.sha1);
});

test('released slots are reused: 30 frames through a ring of 4 slots, each intact', async () => {
  const ch = new SharedMemoryChannel({ maxInFlight: 2, decoders: 2, decoder: 'jpeg-js', maxFrameWidth: 160, maxFrameHeight: 90, heldFrames: 2 });
  onTestFinished(() => ch.close());
  await ch.start();
  const frames = Array.from({ length: 30 }, (_, k) => makeJpeg(160, 90, k));
  const seen: string[] = [];
  for (let s = 0; s < frames.length; s++) {
    ch.submit({ cameraId: 'cam', seq: s, capturedAt: 0, jpeg: frames[s]!.jpeg }, LIMITS);
    const out = await ch.next();
    if (out?.kind !== 'frame') throw new Error(`frame ${s}: ${JSON.stringify(out)}`);
    seen.push(sha1(out.frame.data));
    out.frame.release();
    out.frame.release(); // idempotent: must not free a slot twice
  }
  expect(seen).toEqual(frames.map((f) => f.sha1));
  expect(ch.stats()).toMatchObject({ delivered: 30, dropped: 0 });
});

test('at decodeScale 4 the slots hold quarter-size frames: a 640x360 JPEG fits a 640x360 channel in 160x90 slots', async () => {
  const ch = new SharedMemoryChannel({ maxInFlight: 2, decoders: 1, decoder: 'jpeg-js', maxFrameWidth: 640, maxFrameHeight: 360, decodeScale: 4 });
  onTestFinished(() => ch.close());
  await ch.start();
  ch.submit({ cameraId: 'cam', seq: 0, capturedAt: 0, jpeg: makeJpeg(640, 360, 3).jpeg }, LIMITS);
  const out = await ch.next();
  expect(out?.kind).toBe('frame');
  if (out?.kind !== 'frame') return;
  expect([out.frame.width, out.frame.height, out.frame.scale, out.frame.data.length]).toEqual([160, 90, 4, 160 * 90 * 4]);
  out.frame.release();
  // The ring's memory: whole slots of 160x90 RGBA, not of 640x360.
  expect(ch.sharedBytes % (160 * 90 * 4)).toBe(0);
  expect(ch.sharedBytes).toBeLessThan(640 * 360 * 4);
});

test('a frame over maxMegapixels is refused for its megapixels, not for the slot size', async () => {
  // A header claiming 65000x65000 (or a 3840x2160 camera under the default 4 MP) was told it did not fit the slot and
  // to use another channel, where the megapixel limit then refused it: the limit to raise, or a corrupt header, first.
  const ch = new SharedMemoryChannel({ maxInFlight: 2, decoders: 1, decoder: 'jpeg-js', maxFrameWidth: 320, maxFrameHeight: 180 });
  onTestFinished(() => ch.close());
  await ch.start();
  const jpeg = new Uint8Array(makeJpeg(640, 360, 4).jpeg);
  for (let i = 2; i + 9 < jpeg.length; i++) {
    if (jpeg[i] === 0xff && jpeg[i + 1] === 0xc0) {
      new DataView(jpeg.buffer).setUint16(i + 5, 65000);
      new DataView(jpeg.buffer).setUint16(i + 7, 65000);
      break;
    }
  }
  ch.submit({ cameraId: 'cam', seq: 0, capturedAt: 0, jpeg }, LIMITS);
  const out = await ch.next();
  expect(out?.kind === 'error' && [out.failure.code, out.failure.message]).toEqual([
    'TC_ERR_DECODE_TOO_LARGE',
    expect.stringMatching(/65000x65000 \(4225\.0 MP\), over the limit of 4 MP/),
  ]);
});
