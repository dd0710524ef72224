// Remote decoders for the zeromq channel: `traffic-counter decoder --connect tcp://HOST:PORT` (runZeromqDecoder)
// connects to an analyzer that runs no local decoder, gets work only while connected, and can come and go.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { runZeromqDecoder } from '../dist/src/decode/zeromq-decoder.js';
import { LIMITS, makeJpeg, sha1 } from './helpers/jpeg-fixtures.js';
import { warnings } from './helpers/warnings.js';

function startDecoder(connect: string, onStatus?: (message: string) => void): { stop: () => Promise<void> } {
  const ac = new AbortController();
  const running = runZeromqDecoder({ connect, decoder: 'jpeg-js', signal: ac.signal, onStatus });
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

/** The job id of a job message a hand-driven decoder received. */
const jobId = (msg: Buffer | undefined): number => (JSON.parse(msg!.toString('utf8')) as { job: number }).job;

/** A hand-driven decoder's answer to `job`: a 160x90 frame of camera 'cam' at `seq`. */
const frameAnswer = (job: Buffer | undefined, seq: number): [string, Buffer] => [
  JSON.stringify({ type: 'frame', job: jobId(job), header: { cameraId: 'cam', seq, capturedAt: seq, width: 160, height: 90, scale: 1, decodeMs: 1 } }),
  Buffer.alloc(160 * 90 * 4),
];

/**
 * A hand-driven decoder given frame 0 of camera 'cam', which it does not answer within decodeTimeoutMs (forgotten);
 * it then says 'ready' again and is given frame 1. Returns it and the two jobs it received.
 */
async function timedOutAndBack(ch: ZeromqChannel): Promise<{ slow: import('zeromq').Dealer; job0: Buffer | undefined; job1: Buffer | undefined }> {
  const small = makeJpeg(160, 90, 0);
  const slow = await rogueDecoder(ch);
  ch.submit({ cameraId: 'cam', seq: 0, capturedAt: 0, jpeg: small.jpeg }, LIMITS);
  const [job0] = await slow.receive();
  await waitFor('its job to time out', () => ch.decoderCount === 0 && ch.stats().dropped === 1);
  await slow.send([JSON.stringify({ type: 'ready', decoder: 'jpeg-js', pid: 1, host: 'rogue' })]);
  ch.submit({ cameraId: 'cam', seq: 1, capturedAt: 1, jpeg: small.jpeg }, LIMITS);
  const [job1] = await slow.receive();
  return { slow, job0, job1 };
}

/** A hand-driven DEALER that announces itself as a decoder, connected once the channel counts it. */
async function rogueDecoder(ch: ZeromqChannel): Promise<import('zeromq').Dealer> {
  const { Dealer } = await import('zeromq');
  const rogue = new Dealer({ linger: 0 });
  onTestFinished(() => rogue.close());
  const before = ch.decoderCount;
  rogue.connect(ch.endpoint);
  await rogue.send([JSON.stringify({ type: 'ready', decoder: 'jpeg-js', pid: 1, host: 'rogue' })]);
  await waitFor('the rogue decoder', () => ch.decoderCount === before + 1);
  return rogue;
}

/** The rogue decoder says 'bye'; a real one connects and decodes frame `seq` of camera 'cam'. */
async function leaveForRealDecoder(ch: ZeromqChannel, rogue: import('zeromq').Dealer, seq: number): Promise<void> {
  await rogue.send([JSON.stringify({ type: 'bye' })]);
  await waitFor('the rogue decoder to leave', () => ch.decoderCount === 0);
  startDecoder(ch.endpoint);
  const small = makeJpeg(160, 90, 0);
  ch.submit({ cameraId: 'cam', seq, capturedAt: seq, jpeg: small.jpeg }, LIMITS);
  const next = await ch.next();
  expect(next?.kind === 'frame' && [next.frame.seq, sha1(next.frame.data)]).toEqual([seq, small.sha1]);
}

test('frames are decoded by remote decoders that connect, leave and come back', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 8, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close());
  await ch.start();
  expect(ch.endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
  // The port bound for tcp://127.0.0.1:0 is told (the daemon's log and /api/health name it), not 0.
  expect(ch.stats().endpoint).toBe(ch.endpoint);
  expect(ch.endpoint).not.toMatch(/:0$/);
  const frames = Array.from({ length: 6 }, (_, k) => makeJpeg(160, 90, k));
  const submit = (s: number): void => ch.submit({ cameraId: 'cam', seq: s, capturedAt: s, jpeg: frames[s]!.jpeg }, LIMITS);

  // Work submitted before any decoder is connected waits (bounded by maxInFlight) and is picked up later.
  submit(0);
  const said: string[] = [];
  const first = startDecoder(ch.endpoint, (m) => said.push(m));
  const out0 = await ch.next();
  expect(said).toEqual([`connected to the analyzer at ${ch.endpoint}; decoding its frames`]);
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

test('a remote decoder that falls silent while idle is forgotten with a warning naming it (it went without a word)', { timeout: 30_000 }, async () => {
  const said = warnings();
  const joined: string[] = [];
  const ch = new ZeromqChannel({ maxInFlight: 8, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0', onInfo: (m) => joined.push(m) });
  onTestFinished(() => ch.close());
  await ch.start();
  // Announces itself once, then says nothing, its connection up (libzmq answers the heartbeats): a hung decoder.
  const { Dealer } = await import('zeromq');
  const silent = new Dealer({ linger: 0, routingId: 'quiet-host/4242/ab12' });
  onTestFinished(() => silent.close());
  silent.connect(ch.endpoint);
  await silent.send([JSON.stringify({ type: 'ready', decoder: 'jpeg-js', pid: 4242, host: 'quiet-host' })]);
  await waitFor('the decoder', () => ch.decoderCount === 1);
  expect(joined).toEqual(['zeromq channel: remote decoder quiet-host/4242/ab12 (jpeg-js) joined; 1 remote decoder(s) connected now']);
  await waitFor('the silent decoder to be forgotten', () => ch.decoderCount === 0);
  expect(said.filter((w) => w.includes('quiet-host'))).toEqual([
    'zeromq channel: remote decoder quiet-host/4242/ab12 fell silent (no word from it for 5 s: stopped, or its host or link down); forgotten until it says it is ready again; 0 remote decoder(s) connected now',
  ]);
});

test('a decoder that answers the wrong job loses that job (dropped, with a warning), and later frames still flow', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 8, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close());
  await ch.start();
  const frames = Array.from({ length: 3 }, (_, k) => makeJpeg(160, 90, k));
  const submit = (s: number): void => ch.submit({ cameraId: 'cam', seq: s, capturedAt: s, jpeg: frames[s]!.jpeg }, LIMITS);

  // A confused decoder: takes one job and replies to a job id it was never given.
  const rogue = await rogueDecoder(ch);
  submit(0);
  const [job] = await rogue.receive();
  const held = jobId(job);
  const failure = { type: 'decode-error', cameraId: 'cam', seq: 0, capturedAt: 0, code: 'TC_ERR_DECODE_CORRUPT', message: 'x' };
  await rogue.send([JSON.stringify({ type: 'decode-error', job: held + 1000, failure })]);
  await waitFor('the held job to be dropped', () => ch.stats().dropped === 1);
  // Its reply also said "idle": it leaves with 'bye', as a real decoder does, so that frame 1 is not handed to it.
  await rogue.send([JSON.stringify({ type: 'bye' })]);
  await waitFor('the rogue decoder to leave', () => ch.decoderCount === 0);
  rogue.close();

  startDecoder(ch.endpoint);
  submit(1);
  submit(2);
  for (const s of [1, 2]) {
    const out = await ch.next();
    expect(out?.kind === 'frame' && [out.frame.seq, sha1(out.frame.data)]).toEqual([s, frames[s]!.sha1]);
  }
});

test('decoder hosts added to a running analyzer all get work: the frames in flight grow with the decoders that answer', async () => {
  // maxFramesInFlight as a config with one local decoder would have it: 2 frames. Four decoder hosts connect.
  const ch = new ZeromqChannel({ maxInFlight: 2, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close());
  await ch.start();
  const hosts = Array.from({ length: 4 }, () => startDecoder(ch.endpoint));
  await waitFor('four decoders', () => ch.decoderCount === 4);
  expect(ch.stats().maxInFlight).toBe(2);

  // Eight cameras polled together, round after round. With the bound at 2, six of each round's eight would be
  // dropped and two hosts would sit idle; each host that answers a job adds two frames.
  const frames = Array.from({ length: 8 }, (_, k) => makeJpeg(160, 90, k));
  const round = async (): Promise<{ delivered: number; dropped: number }> => {
    const before = ch.stats();
    for (let s = 0; s < 8; s++) ch.submit({ cameraId: `cam${s}`, seq: s, capturedAt: s, jpeg: frames[s]!.jpeg }, LIMITS);
    while (ch.stats().inFlight > 0) {
      const out = await ch.next();
      expect(out?.kind === 'frame' && sha1(out.frame.data)).toBe(frames[Number(out?.kind === 'frame' && out.frame.cameraId.slice(3))]!.sha1);
    }
    const after = ch.stats();
    return { delivered: after.delivered - before.delivered, dropped: after.dropped - before.dropped };
  };
  for (let r = 0; r < 8 && ch.stats().maxInFlight < 8; r++) await round();
  expect(ch.stats().maxInFlight).toBe(8);
  expect(await round()).toEqual({ delivered: 8, dropped: 0 });

  // A peer that says 'ready' and never answers (broken or hostile) does not raise the bound, and one that goes
  // without 'bye' is forgotten once it has been silent for 5 s.
  const mute = await rogueDecoder(ch);
  expect(ch.decoderCount).toBe(5);
  expect(ch.stats().maxInFlight).toBe(8);
  mute.close();
  await waitFor('the mute peer to be forgotten', () => ch.decoderCount === 4);

  // Three hosts leave: the bound falls back to 2 per decoder still connected, never below maxFramesInFlight.
  await Promise.all(hosts.slice(1).map((h) => h.stop()));
  await waitFor('one decoder', () => ch.decoderCount === 1);
  expect(ch.stats().maxInFlight).toBe(2);
  await hosts[0]!.stop();
  await waitFor('no decoder', () => ch.decoderCount === 0);
  expect(ch.stats().maxInFlight).toBe(2);
});

test('peers that say ready and never answer hold back no frames: each costs the one frame it was tried with', async () => {
  // decodeTimeoutMs far beyond the test's time: before, a mute peer's frame held back every later frame until then.
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0', decodeTimeoutMs: 60_000 });
  onTestFinished(() => ch.close());
  await ch.start();
  const frames = Array.from({ length: 9 }, (_, k) => makeJpeg(160, 90, k));
  const submit = (s: number): void => ch.submit({ cameraId: 'cam', seq: s, capturedAt: s, jpeg: frames[s]!.jpeg }, LIMITS);
  startDecoder(ch.endpoint);
  await waitFor('the decoder', () => ch.decoderCount === 1);
  submit(0);
  const first = await ch.next();
  expect(first?.kind === 'frame' && first.frame.seq).toBe(0);

  const mutes = [await rogueDecoder(ch), await rogueDecoder(ch)];
  const jobsAt = [0, 0];
  mutes.forEach((m, i) => void (async () => { for await (const _ of m) jobsAt[i]!++; })().catch(() => undefined));
  // Two bursts of four: in each, the decoder takes the first frame and a mute peer, tried while the decoder is
  // busy, the second; that frame is overtaken by the later ones once the decoder has done them.
  const seqs: number[] = [];
  const started = Date.now();
  for (const burst of [[1, 2, 3, 4], [5, 6, 7, 8]]) {
    for (const s of burst) submit(s);
    for (let k = 0; k < 3; k++) {
      const out = await ch.next();
      if (out?.kind === 'frame') seqs.push(out.frame.seq);
    }
  }
  expect(seqs).toEqual([1, 3, 4, 5, 7, 8]);
  expect(Date.now() - started).toBeLessThan(30_000);
  expect(jobsAt).toEqual([1, 1]);
  expect(ch.stats()).toMatchObject({ delivered: 7, dropped: 2, inFlight: 0 });
  expect(ch.stats().maxInFlight).toBe(4); // neither counts as a decoder
});

test('a peer whose trial job timed out is not tried again soon after it comes back', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0', decodeTimeoutMs: 1_000 });
  onTestFinished(() => ch.close());
  await ch.start();
  const frames = Array.from({ length: 4 }, (_, k) => makeJpeg(160, 90, k));
  let seq = 0;
  void (async () => { while (await ch.next()); })(); // the analyzer takes each frame as it comes
  const burst = async (): Promise<void> => {
    // Two frames at once: the decoder takes one, and the other goes to a peer on trial if one may be tried.
    for (let k = 0; k < 2; k++, seq++) ch.submit({ cameraId: 'cam', seq, capturedAt: seq, jpeg: frames[seq % 4]!.jpeg }, LIMITS);
    await waitFor('the burst', () => ch.stats().inFlight === 0);
  };
  startDecoder(ch.endpoint);
  await waitFor('the decoder', () => ch.decoderCount === 1);
  await burst(); // the decoder answers and is trusted

  const mute = await rogueDecoder(ch);
  let jobsAtMute = 0;
  void (async () => { for await (const _ of mute) jobsAtMute++; })().catch(() => undefined);
  await burst();
  await waitFor('a job at the mute peer', () => jobsAtMute === 1);
  await waitFor('the mute peer to be forgotten', () => ch.decoderCount === 1);
  // It says 'ready' again (as a wedged decoder's heartbeat would) and is counted again, but gets no job.
  await mute.send([JSON.stringify({ type: 'ready', decoder: 'jpeg-js', pid: 1, host: 'rogue' })]);
  await waitFor('the mute peer back', () => ch.decoderCount === 2);
  for (let r = 0; r < 5; r++) await burst();
  expect(jobsAtMute).toBe(1);
});

test('the only decoder, slow on its first job, gets the next frame when it comes back: a wait after a failure applies only beside a decoder that works', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 2, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0', decodeTimeoutMs: 1_000 });
  onTestFinished(() => ch.close());
  await ch.start();
  // Back, and fast now: it is the only decoder there, so it gets the next frame at once and returns it.
  const { slow, job0, job1 } = await timedOutAndBack(ch);
  expect(jobId(job1)).not.toBe(jobId(job0));
  await slow.send(frameAnswer(job1, 1));
  const out = await ch.next();
  expect(out?.kind === 'frame' && out.frame.seq).toBe(1);
});

test('what a decoder sends cannot speak for other frames or stop the channel: malformed messages, foreign decode errors', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 1, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close());
  await ch.start();
  const rogue = await rogueDecoder(ch);
  const small = makeJpeg(160, 90, 0);
  for (const junk of ['null', '42', '{"type":"nonsense"}', '[]']) await rogue.send([junk]);
  ch.submit({ cameraId: 'cam', seq: 7, capturedAt: 7, jpeg: small.jpeg }, LIMITS);
  let [job] = await rogue.receive();
  // A decode error naming another camera and frame: it is the frame sent's failure, with the decoder's code and message.
  const failure = { type: 'decode-error', cameraId: 'other', seq: 1e9, capturedAt: 0, code: 'TC_ERR_DECODE_CORRUPT', message: 'bad data' };
  await rogue.send([JSON.stringify({ type: 'decode-error', job: jobId(job), failure })]);
  const out = await ch.next();
  expect(out?.kind === 'error' && out.failure).toMatchObject({ cameraId: 'cam', seq: 7, code: 'TC_ERR_DECODE_CORRUPT', message: 'bad data' });
  // A decode error does not make it a decoder that counts; a 'frame' without a header is refused.
  expect(ch.stats().maxInFlight).toBe(1);
  ch.submit({ cameraId: 'cam', seq: 8, capturedAt: 8, jpeg: small.jpeg }, LIMITS);
  [job] = await rogue.receive();
  await rogue.send([JSON.stringify({ type: 'frame', job: jobId(job) })]);
  const refused = await ch.next();
  expect(refused?.kind === 'error' && refused.failure).toMatchObject({ cameraId: 'cam', seq: 8, code: 'TC_ERR_DECODE_SIZE_MISMATCH' });
  // The channel still reads its decoders' messages.
  await leaveForRealDecoder(ch, rogue, 9);
});

test('a frame late at a decoder that stopped answering goes to an idle one too, and no frame waits for decodeTimeoutMs', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0', decodeTimeoutMs: 60_000 });
  onTestFinished(() => ch.close());
  await ch.start();
  const small = makeJpeg(160, 90, 0);
  const submit = (seq: number): void => ch.submit({ cameraId: 'cam', seq, capturedAt: seq, jpeg: small.jpeg }, LIMITS);
  // A decoder that answers its first job, then stops (a host suspended, a process stopped, a cable pulled).
  const stuck = await rogueDecoder(ch);
  submit(0);
  const [job0] = await stuck.receive();
  await stuck.send(frameAnswer(job0, 0));
  expect((await ch.next())?.kind).toBe('frame');
  let jobsAtStuck = 0;
  void (async () => { for await (const _ of stuck) jobsAtStuck++; })().catch(() => undefined);

  startDecoder(ch.endpoint);
  await waitFor('the second decoder', () => ch.decoderCount === 2);
  // Frame 1 goes to the stuck decoder (it has answered before), frame 2 to the other, which answers at once.
  const started = Date.now();
  submit(1);
  submit(2);
  for (const seq of [1, 2]) {
    const out = await ch.next();
    expect(out?.kind === 'frame' && [out.frame.seq, sha1(out.frame.data)]).toEqual([seq, small.sha1]);
  }
  expect(jobsAtStuck).toBe(1);
  expect(Date.now() - started).toBeLessThan(30_000);
  expect(ch.stats()).toMatchObject({ delivered: 3, dropped: 0 });
});

test('a decoder back after a stall answers its old job first: that stale answer is ignored, not taken for a confused one', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0', decodeTimeoutMs: 1_000 });
  onTestFinished(() => ch.close());
  await ch.start();
  // Back: it says 'ready', is given frame 1, and only then does its answer to frame 0 arrive.
  const { slow, job0, job1 } = await timedOutAndBack(ch);
  await slow.send(frameAnswer(job0, 0));
  await slow.send(frameAnswer(job1, 1));
  const out = await ch.next();
  expect(out?.kind === 'frame' && out.frame.seq).toBe(1);
  expect(ch.stats()).toMatchObject({ delivered: 1, dropped: 1 });
});

test('a remote decoder forgotten for a job past decodeTimeoutMs is said to be forgotten, with the count, and back when it answers again', async () => {
  const said = warnings();
  const info: string[] = [];
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0', decodeTimeoutMs: 1_000, onInfo: (m) => info.push(m) });
  onTestFinished(() => ch.close());
  await ch.start();
  await timedOutAndBack(ch);
  const timedOut = said.filter((w) => w.includes('did not answer within 1000 ms'));
  expect(timedOut).toHaveLength(1);
  expect(timedOut[0]).toMatch(/; dropping its frame; forgotten until it answers again; 0 remote decoder\(s\) connected now/);
  // Joined once; then back, not "joined" a second time as if new.
  expect(info).toHaveLength(2);
  expect(info[0]).toMatch(/^zeromq channel: remote decoder \S+ \(jpeg-js\) joined; 1 remote decoder\(s\) connected now$/);
  expect(info[1]).toMatch(/^zeromq channel: remote decoder \S+ \(jpeg-js\) is back \(it had been forgotten\); 1 remote decoder\(s\) connected now$/);
});

test('a decoder that returns a frame over the camera\'s megapixel limit has it refused as too large, and frames still flow', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 1, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close());
  await ch.start();
  const rogue = await rogueDecoder(ch);
  const small = makeJpeg(160, 90, 0);
  ch.submit({ cameraId: 'cam', seq: 0, capturedAt: 0, jpeg: small.jpeg }, LIMITS);
  const [job] = await rogue.receive();
  const held = jobId(job);
  // 2,100 x 2,000 = 4.2 MP, over LIMITS' 4 MP: a decoder here would have refused the JPEG.
  const header = { cameraId: 'cam', seq: 0, capturedAt: 0, width: 2_100, height: 2_000, scale: 1, decodeMs: 1 };
  await rogue.send([JSON.stringify({ type: 'frame', job: held, header }), Buffer.alloc(2_100 * 2_000 * 4)]);
  const out = await ch.next();
  expect(out?.kind === 'error' && out.failure).toMatchObject({ code: 'TC_ERR_DECODE_TOO_LARGE', seq: 0, message: expect.stringContaining('4.2 MP') });
  // A refused frame does not make it a decoder that raises the bound of frames in flight.
  expect(ch.stats().maxInFlight).toBe(1);
  await leaveForRealDecoder(ch, rogue, 1);
  expect(ch.stats().maxInFlight).toBe(2);
});

test('a decoder that had an analyzer and lost it says that it lost it, not that it found none at start-up', async () => {
  // Both decoders say "no analyzer" after 1.5 s here (10 s by default) if they have found none by then.
  const decoder = (connect: string): string[] => {
    const status: string[] = [];
    const ac = new AbortController();
    const running = runZeromqDecoder({ connect, decoder: 'jpeg-js', signal: ac.signal, noAnalyzerMs: 1_500, onStatus: (m) => status.push(m) });
    onTestFinished(async () => {
      ac.abort();
      await running;
    });
    return status;
  };
  // A loopback port that was free a moment ago: nothing listens there.
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  const t0 = Date.now();
  const none = decoder(`tcp://127.0.0.1:${port}`);
  // An analyzer that stops within those 1.5 s.
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close(100));
  await ch.start();
  const had = decoder(ch.endpoint);
  await waitFor('the decoder to connect', () => ch.decoderCount === 1);
  await ch.close(100);
  await waitFor('the decoder to lose it', () => had.length === 2);
  expect(Date.now() - t0).toBeLessThan(1_500);
  await new Promise((r) => setTimeout(r, 2_200 - (Date.now() - t0)));
  expect(none).toEqual([
    `no analyzer at tcp://127.0.0.1:${port} after 1.5 s; check that a daemon runs there with "channel": "zeromq" and that endpoint (its log names it), and that the port is open`,
  ]);
  // Was followed by "no analyzer at … after 10 s" when its start-up timer fired.
  expect(had).toEqual([`connected to the analyzer at ${ch.endpoint}; decoding its frames`, `lost the analyzer at ${ch.endpoint}; waiting for it to come back`]);
});
