// A decoder that hangs (stopped with SIGSTOP, or a decode thread stuck) is killed after decodeTimeoutMs and replaced,
// its frame dropped and counted, and frames flow again; one that is only slow is left alone. On ipc a stopped decoder
// used to stop all counting for good (4 cameras at 500 ms, one decoder: frames analysed flat for 72 s, never
// replaced), and on shared a stuck thread held its slot and its share of the decoders for good.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, onTestFinished, test } from 'vitest';
import type { FrameChannel } from '../dist/src/channel/frame-channel.js';
import type { ChannelOutput } from '../dist/src/channel/messages.js';
import { IpcChannel } from '../dist/src/channel/ipc-channel.js';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { SharedMemoryChannel } from '../dist/src/channel/shared-memory-channel.js';
import { LIMITS, makeJpeg, sha1 } from './helpers/jpeg-fixtures.js';
import { tempDir } from './helpers/temp-dir.js';
import { warnings } from './helpers/warnings.js';

const SMALL = Array.from({ length: 8 }, (_, k) => makeJpeg(160, 90, k));
/** A shared-channel decoder thread that hangs on camera 'hang' and sleeps 1.5 s on camera 'slow' (see the file). */
const HANGING_WORKER = fileURLToPath(new URL('./fixtures/hanging-decode-worker.mjs', import.meta.url));

interface Case {
  readonly label: string;
  make(decodeTimeoutMs: number): FrameChannel;
  /** Makes the decoder hang on the next frame, and returns the camera id to send it under. */
  hang(ch: FrameChannel): string;
  /** Makes the decoder take `ms` longer on the next frame, and returns the camera id to send it under. */
  slow(ch: FrameChannel, ms: number): string;
}

/** SIGSTOPs the process's only decoder (SIGCONT after `ms`, if given); the stop is undone when the test ends. */
function stopDecoder(ch: FrameChannel, ms?: number): void {
  const pid = (ch as IpcChannel | ZeromqChannel).decoderPids()[0]!;
  process.kill(pid, 'SIGSTOP');
  const resume = (): void => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // Killed meanwhile: nothing to resume.
    }
  };
  if (ms !== undefined) setTimeout(resume, ms);
  onTestFinished(resume);
}

const byProcess = { hang: (ch: FrameChannel) => (stopDecoder(ch), 'cam'), slow: (ch: FrameChannel, ms: number) => (stopDecoder(ch, ms), 'cam') };

const CASES: Case[] = [
  { label: 'ipc-advanced', make: (t) => new IpcChannel({ maxInFlight: 4, decoders: 1, decoder: 'jpeg-js', decodeTimeoutMs: t }), ...byProcess },
  { label: 'zeromq ipc://', make: (t) => new ZeromqChannel({ maxInFlight: 4, decoders: 1, decoder: 'jpeg-js', decodeTimeoutMs: t }), ...byProcess },
  {
    label: 'shared',
    make: (t) => new SharedMemoryChannel({ maxInFlight: 4, decoders: 1, decoder: 'jpeg-js', decodeTimeoutMs: t, decoderFile: HANGING_WORKER }),
    hang: () => 'hang',
    slow: () => 'slow',
  },
];

async function open(c: Case, decodeTimeoutMs: number): Promise<FrameChannel> {
  const ch = c.make(decodeTimeoutMs);
  onTestFinished(() => ch.close(1_000));
  await ch.start();
  return ch;
}

function submit(ch: FrameChannel, cameraId: string, seq: number): void {
  ch.submit({ cameraId, seq, capturedAt: 1_700_000_000_000 + seq, jpeg: SMALL[seq]!.jpeg }, LIMITS);
}

/** The next output within `ms`, or an error saying what did not come. */
async function nextWithin(ch: FrameChannel, what: string, ms: number): Promise<ChannelOutput> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no frame within ${ms} ms after ${what} (stats ${JSON.stringify(ch.stats())})`)), ms);
  });
  try {
    const out = (await Promise.race([ch.next(), late]))!;
    if (out.kind === 'frame') out.frame.release();
    return out;
  } finally {
    clearTimeout(timer);
  }
}

describe.each(CASES)('channel $label', (c) => {
  test('a hung decoder is killed after decodeTimeoutMs and replaced; its frame is dropped and counted, and frames flow again', async () => {
    const said = warnings();
    const ch = await open(c, 1_000);
    submit(ch, 'cam', 0);
    expect((await nextWithin(ch, 'the first frame', 10_000)).kind).toBe('frame');

    const cam = c.hang(ch);
    const hungAt = Date.now();
    submit(ch, cam, 1);
    submit(ch, 'cam', 2); // waits behind the hung decoder's frame
    const out = await nextWithin(ch, 'the decoder hung', 15_000);
    expect(out.kind === 'frame' && [out.frame.cameraId, out.frame.seq]).toEqual(['cam', 2]);
    expect(Date.now() - hungAt).toBeGreaterThanOrEqual(1_000); // not before the timeout
    for (let s = 3; s < 6; s++) {
      submit(ch, 'cam', s);
      const next = await nextWithin(ch, `frame ${s} was submitted to the replaced decoder`, 10_000);
      expect(next.kind === 'frame' && next.frame.seq).toBe(s);
    }
    expect(ch.stats()).toMatchObject({ submitted: 6, delivered: 5, dropped: 1, decodeErrors: 0, inFlight: 0 });
    expect(ch.stats().decoderRestarts).toBeGreaterThanOrEqual(1);
    // Naming the camera and frame it held, and the fix should that camera's frames be this slow to decode (it named
    // only the decoder).
    const hung = said.find((w) => / did not answer within 1000 ms/.test(w));
    expect(hung).toContain(`did not answer within 1000 ms on camera ${cam} frame 1 (a JPEG of ${SMALL[1]!.jpeg.length} bytes)`);
    expect(hung).toContain(`if camera ${cam}'s frames are this slow to decode (very large JPEGs), raise decodeTimeoutMs`);
  });

  test('a camera whose frames hang the decoder twice in a row is skipped for a while (TC_ERR_DECODE_TIMEOUT), so the other cameras keep theirs', async () => {
    // Before, each of its frames held the decoder for decodeTimeoutMs and counted for nothing in its camera's share,
    // so its frames went first: beside the simulator, 1 simulator frame was analysed in 70 s.
    const said = warnings();
    const ch = await open(c, 1_000);
    // Its frames hang the decoder (ipc, zeromq: the decoder is stopped as it gets one; shared: the thread hangs).
    const slowCam = (): string => (c.hang(ch) === 'cam' ? 'big' : 'hang');
    let slow = '';
    for (const s of [0, 2]) {
      slow = slowCam();
      submit(ch, slow, s);
      submit(ch, 'cam', s + 1);
      const out = await nextWithin(ch, `frame ${s} hung the decoder`, 15_000);
      expect(out.kind === 'frame' && [out.frame.cameraId, out.frame.seq]).toEqual(['cam', s + 1]);
    }
    expect(said.filter((w) => / did not answer within 1000 ms/.test(w))).toHaveLength(2);
    // Its next frames are answered at once, not sent to a decoder (the decoder would not hang on them now).
    submit(ch, slow, 4);
    submit(ch, 'cam', 5);
    const skipped = await nextWithin(ch, 'a frame of the slow camera', 10_000);
    expect(skipped.kind === 'error' && [skipped.failure.cameraId, skipped.failure.seq, skipped.failure.code]).toEqual([slow, 4, 'TC_ERR_DECODE_TIMEOUT']);
    expect(skipped.kind === 'error' && skipped.failure.message).toMatch(
      new RegExp(`^camera ${slow} frame 4 not decoded: 2 of the camera's frames in a row took longer than decodeTimeoutMs=1000 ms to decode .* skipped for 10 s .*raise decodeTimeoutMs, use a faster decoder \\(jpeg-turbo\\) or lower the camera's resolution$`),
    );
    const next = await nextWithin(ch, 'frame 5', 10_000);
    expect(next.kind === 'frame' && [next.frame.cameraId, next.frame.seq]).toEqual(['cam', 5]);
    expect(said.filter((w) => / did not answer within 1000 ms/.test(w))).toHaveLength(2);
    expect(ch.stats()).toMatchObject({ submitted: 6, delivered: 3, dropped: 2, decodeErrors: 1, inFlight: 0 });
  });

  test('a decoder that is only slow, well within decodeTimeoutMs, is left alone', async () => {
    const ch = await open(c, 4_000);
    submit(ch, 'cam', 0);
    expect((await nextWithin(ch, 'the first frame', 10_000)).kind).toBe('frame');
    const cam = c.slow(ch, 1_500);
    submit(ch, cam, 1);
    submit(ch, 'cam', 2);
    // Meanwhile the channel names the decoder that holds it and the frame (what a close says it waits for).
    let held = ch.framesAtDecoders();
    for (const end = Date.now() + 1_000; held.length === 0 && Date.now() < end; held = ch.framesAtDecoders()) await new Promise((r) => setTimeout(r, 20));
    expect(held.map((h) => [h.frame.cameraId, h.frame.seq])).toEqual([[cam, 1]]);
    expect(held[0]!.decoder).toMatch(c.label === 'shared' ? /^decoder thread \d+$/ : /^decoder 0 \(pid \d+\)$/);
    for (const s of [1, 2]) {
      const out = await nextWithin(ch, 'a slow decode', 10_000);
      expect(out.kind === 'frame' && out.frame.seq).toBe(s);
    }
    expect(ch.stats()).toMatchObject({ delivered: 3, dropped: 0, decoderRestarts: 0 });
  });
});

describe.each(CASES.filter((c) => c.label !== 'shared'))('channel $label', (c) => {
  test('a decoder killed as hung is restarted at once every time, not with the back-off of a crash loop', async () => {
    // A hang within 10 s of the decoder's start counted as a crash: restarts waited 100 ms, 200 ms, 400 ms … up to 5 s,
    // every camera's frames waiting meanwhile, and each hang was told twice ("… is killed and restarted", then
    // "decoder 0 exited (code null, signal SIGKILL); restarting in 200 ms").
    const said = warnings();
    const ch = await open(c, 1_000);
    submit(ch, 'cam', 0);
    expect((await nextWithin(ch, 'the first frame', 10_000)).kind).toBe('frame');
    for (const s of [1, 3, 5]) {
      submit(ch, c.hang(ch), s);
      submit(ch, 'cam', s + 1);
      const out = await nextWithin(ch, `frame ${s} hung the decoder`, 15_000);
      expect(out.kind === 'frame' && out.frame.seq).toBe(s + 1);
    }
    expect(said.filter((w) => / did not answer within 1000 ms on camera cam frame \d.*; it is hung \(stopped or stuck\), so it is killed and restarted/.test(w))).toHaveLength(3);
    expect(said.filter((w) => / exited \(code/.test(w))).toEqual([]);
    expect(ch.stats()).toMatchObject({ submitted: 7, delivered: 4, dropped: 3, decoderRestarts: 3 });
  });
});

test('shared: the slot of a thread stuck in native code is reused only once the thread is gone', async () => {
  // A thread stuck in native code is terminated only when it is back in JavaScript, and may write into its slot until
  // then: a slot given to another frame when the timeout drops its frame would have that frame's pixels overwritten.
  const fifo = join(tempDir(), 'slot-bytes');
  execFileSync('mkfifo', [fifo]);
  /** Writes to the stuck thread's pipe; never blocks (a write with no reader would stop this thread for good). */
  const feed = (bytes: Uint8Array): void => {
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK); // ENXIO when nobody reads
    try {
      writeSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
  };
  onTestFinished(() => {
    try {
      feed(new Uint8Array(1)); // frees the stuck thread if the test failed before it did
    } catch {
      // Nobody is reading any more.
    }
  });
  const ch = new SharedMemoryChannel({ maxInFlight: 4, decoders: 2, decoder: 'jpeg-js', decodeTimeoutMs: 500, decoderFile: HANGING_WORKER });
  onTestFinished(() => ch.close(1_000));
  await ch.start();
  submit(ch, 'cam', 0); // goes to slot 0 and back, so the stuck decode below takes slot 0
  expect((await nextWithin(ch, 'the first frame', 10_000)).kind).toBe('frame');
  ch.submit({ cameraId: `fifo:${fifo}`, seq: 1, capturedAt: 0, jpeg: SMALL[1]!.jpeg }, LIMITS);
  await new Promise((r) => setTimeout(r, 1_500)); // past the timeout: that frame is dropped, its thread being terminated
  expect(ch.stats()).toMatchObject({ dropped: 1, inFlight: 0 });

  submit(ch, 'cam', 2); // decoded by the other thread, and held (not released) while the stuck one writes
  const held = await Promise.race([ch.next(), new Promise<null>((r) => setTimeout(r, 10_000, null))]);
  const frame = held?.kind === 'frame' ? held.frame : undefined;
  expect(frame?.seq).toBe(2);
  feed(new Uint8Array(frame!.data.byteLength).fill(0xff));
  const end = Date.now() + 10_000;
  while (ch.stats().decoderRestarts < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  expect(ch.stats().decoderRestarts).toBeGreaterThanOrEqual(1);
  expect(sha1(frame!.data)).toBe(SMALL[2]!.sha1);
  frame!.release();

  for (let s = 3; s < 8; s++) {
    submit(ch, 'cam', s);
    const out = await nextWithin(ch, `frame ${s}`, 10_000);
    expect(out.kind === 'frame' && out.frame.seq).toBe(s);
  }
  expect(ch.stats()).toMatchObject({ submitted: 8, delivered: 7, dropped: 1, inFlight: 0 });
});
