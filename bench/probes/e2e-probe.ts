// End-to-end probe, one fresh process per case: replays the clip's JPEGs as fast as the pipeline takes them
// through decode (decoder processes/threads) → channel → CameraAnalyzer → CountStore, on this thread.

import type { DecoderName } from '../../src/decode/decoder-name.js';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { CameraConfig } from '../../src/config/config-types.js';
import type { DecodeScale } from '../../src/decode/decode-scale.js';
import { CameraAnalyzer } from '../../src/analyze/camera-analyzer.js';
import { createChannel, type ChannelName } from '../../src/channel/create-channel.js';
import type { ChannelOutput } from '../../src/channel/messages.js';
import { CountStore } from '../../src/store/count-store.js';
import { LIMITS, cpuMs, decodeClipFrames, probeMain, procCpuMs } from '../bench-util.js';
import { boxAverageRgba } from '../../src/decode/decode-scale.js';

export interface E2eArgs {
  channel: ChannelName;
  ipcSerialization?: 'advanced' | 'json';
  zeromqEndpoint?: string;
  decoder: DecoderName;
  decodeScale: DecodeScale;
  decoders: number;
  maxInFlight: number;
  camera: CameraConfig;
  clipDir: string;
  fps: number;
  warmup: number;
  frames: number;
}

export interface E2eResult {
  fps: number;
  cpuMsPerFrame: number;
  eldP99Ms: number;
  eldMaxMs: number;
  analyzerMsPerFrame: number;
  events: number;
  dropped: number;
  decodeErrors: number;
}

probeMain<E2eArgs, E2eResult>(async (a) => {
  const dir = join(a.clipDir, 'frames');
  const jpegs = readdirSync(dir)
    .filter((f) => f.endsWith('.jpg'))
    .sort()
    .map((f) => new Uint8Array(readFileSync(join(dir, f))));
  const tmp = mkdtempSync(join(tmpdir(), 'tc-bench-e2e-'));
  const store = CountStore.open(join(tmp, 'counts.db'));
  const analyzer = new CameraAnalyzer(a.camera, 'bench');
  store.registerCamera({ id: a.camera.id, pollIntervalMs: a.camera.pollIntervalMs, lines: a.camera.lines });
  const channel = createChannel(a.channel, {
    maxInFlight: a.maxInFlight,
    decoders: a.decoders,
    decoder: a.decoder,
    decodeScale: a.decodeScale,
    ipcSerialization: a.ipcSerialization,
    zeromqEndpoint: a.zeromqEndpoint,
  });
  let events = 0;
  let analyzerMs = 0;
  let analysed = 0;
  // What the daemon does with each output (src/daemon.ts #consume), minus logging.
  const consume = (out: ChannelOutput | null): void => {
    if (out === null) return;
    if (out.kind === 'error') throw new Error(out.failure.message);
    const f = out.frame;
    try {
      const t0 = performance.now();
      const evs = analyzer.process({ width: f.width, height: f.height, scale: f.scale, data: f.data, timeMs: f.capturedAt });
      analyzerMs += performance.now() - t0;
      analysed++;
      store.addFrameTicks(f.cameraId, f.capturedAt, { received: 1 });
      if (evs.length > 0) store.addEvents(evs);
      events += evs.length;
    } finally {
      f.release();
    }
  };
  let seq = 0;
  const capturedAt = (s: number): number => 1_700_000_000_000 + (s * 1000) / a.fps;
  // As fast as possible, but never more than the channel holds: a window one below maxInFlight, like the
  // replay command, so that nothing is dropped and every frame is measured.
  const pump = async (n: number): Promise<void> => {
    const window = Math.max(1, a.maxInFlight - 1);
    for (let i = 0; i < n; i++) {
      while (channel.stats().inFlight >= window) consume(await channel.next());
      const s = seq++;
      channel.submit({ cameraId: a.camera.id, seq: s, capturedAt: capturedAt(s), jpeg: jpegs[s % jpegs.length]! }, LIMITS);
    }
    while (channel.stats().inFlight > 0) consume(await channel.next());
  };
  try {
    // The analyzer's start-up (background bootstrap, ground plane) costs more per frame and happens once: it
    // runs here, on the clip's frames decoded in this process, so that the warm-up through the channel is short.
    const startFrames = (await decodeClipFrames(a.clipDir)).map((f) => boxAverageRgba({ ...f, scale: 1 }, a.decodeScale));
    for (; seq < 2000 && analyzer.starting; seq++) {
      const f = startFrames[seq % startFrames.length]!;
      analyzer.process({ width: f.width, height: f.height, scale: f.scale, data: f.data, timeMs: capturedAt(seq) });
    }
    await channel.start();
    await pump(a.warmup);
    const pids = 'decoderPids' in channel ? (channel as unknown as { decoderPids(): number[] }).decoderPids() : [];
    const childCpu0 = pids.reduce((s, p) => s + procCpuMs(p), 0);
    const cpu0 = cpuMs();
    analyzerMs = 0;
    analysed = 0;
    const eld = monitorEventLoopDelay({ resolution: 1 });
    eld.enable();
    const t0 = performance.now();
    await pump(a.frames);
    const wall = performance.now() - t0;
    eld.disable();
    const childCpu = pids.reduce((s, p) => s + procCpuMs(p), 0) - childCpu0;
    const cpu = cpuMs() - cpu0 + childCpu;
    const st = channel.stats();
    return {
      fps: (a.frames * 1000) / wall,
      cpuMsPerFrame: cpu / a.frames,
      eldP99Ms: eld.percentile(99) / 1e6,
      eldMaxMs: eld.max / 1e6,
      analyzerMsPerFrame: analyzerMs / Math.max(1, analysed),
      events,
      dropped: st.dropped,
      decodeErrors: st.decodeErrors,
    };
  } finally {
    await channel.close();
    store.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
