// The analyzer side of the frame hand-off and small-message probes, run in a fresh process per mechanism.
// Each mechanism is set up the way its channel uses it (same fork options, socket options, message shapes,
// SharedFrameRing), minus decoding: the peer already holds a decoded 1280x720 frame.

import { fork, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Router } from 'zeromq';
import { ZMQ_SOCKET_DEFAULTS } from '../../src/decode/zeromq-decoder.js';
import { toUint8Array } from '../../src/decode/ipc-bytes.js';
import { InFlightQueue } from '../../src/channel/in-flight-queue.js';
import { SharedFrameRing, SLOT_FREE, SLOT_READY } from '../../src/channel/shared-frame-ring.js';
import { waitAsync } from '../../src/channel/wait-async.js';
import { FRAME_BYTES, LIMITS, cpuMs, hrNow, peakRssMB, probeMain, sleep, summarize, syntheticFrame } from '../bench-util.js';
import { CTL, CTL_WORDS, OP_BURST, OP_GO, OP_STOP, OP_STREAM, SMALL_RING } from './shared-probe-layout.js';

export type Mechanism =
  | 'in-process'
  | 'memcpy'
  | 'alloc-copy'
  | 'raw-unix'
  | 'raw-tcp'
  | 'ipc-json'
  | 'ipc-advanced'
  | 'zeromq-ipc'
  | 'zeromq-tcp'
  | 'shared'
  | 'shared-copy'
  | 'thread-wake';

export interface ProbeArgs {
  readonly mechanism: Mechanism;
  readonly mode: 'frame' | 'small';
  readonly warmup: number;
  /** Latency samples (frame) or ping-pong round trips (small). */
  readonly samples: number;
  /** Frames streamed for throughput (frame) or one-way messages (small). */
  readonly count: number;
  readonly window: number;
}

export interface FrameResult {
  readonly p50Us: number;
  readonly p99Us: number;
  readonly fps: number;
  readonly cpuMsPerFrame: number;
  readonly peakRssMB: number;
}

export interface SmallResult {
  readonly rttP50Us: number;
  readonly rttP99Us: number;
  readonly msgsPerSec: number;
  readonly cpuUsPerMsg: number;
}

/** One mechanism as the analyzer side sees it. */
interface Link {
  /** Asks for one frame; resolves with the one-way latency (peer's t0 → frame usable here), ns. */
  one(): Promise<bigint>;
  /** Streams `n` frames with `window` credits; resolves when all arrived. */
  stream(n: number, window: number): Promise<void>;
  /** Small messages: one 8-byte round trip, ns. */
  ping(): Promise<bigint>;
  /** Small messages: `n` one-way 8-byte messages from the peer; resolves when all arrived. */
  burst(n: number): Promise<void>;
  /** CPU and peak RSS of a peer process (null: the peer is a thread of this process). */
  peerUsage(): Promise<{ cpuMs: number; maxRssMB: number } | null>;
  close(): Promise<void>;
}

const PEER_CHILD = fileURLToPath(new URL('./transport-peer-child.js', import.meta.url));
const PEER_WORKER = fileURLToPath(new URL('./transport-peer-worker.js', import.meta.url));

/** Delivery bookkeeping shared by the links: a pending single frame or a stream with credits. */
class Sink {
  one?: (ns: bigint) => void;
  left = 0;
  done?: () => void;
  credit: () => void = () => {};
  last = 0;

  frame(t0: bigint, data: Uint8Array): void {
    const t1 = hrNow();
    this.last = data[data.length - 1]!; // the analyzer can read the frame: it is here, whole
    if (this.left > 0) {
      if (--this.left === 0) this.done?.();
      else this.credit();
    } else {
      this.one?.(t1 - t0);
    }
  }

  waitOne(): Promise<bigint> {
    return new Promise((r) => (this.one = r));
  }

  waitStream(n: number): Promise<void> {
    this.left = n;
    return new Promise((r) => (this.done = r));
  }
}

/** Counts one-way small messages and resolves pending pings. */
class SmallSink {
  pong?: () => void;
  left = 0;
  done?: () => void;
  msg(): void {
    if (--this.left === 0) this.done?.();
  }
  waitBurst(n: number): Promise<void> {
    this.left = n;
    return new Promise((r) => (this.done = r));
  }
}

function once<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type?: string }): void => {
      if (m?.type === type) {
        child.off('message', on);
        resolve(m as T);
      }
    };
    child.on('message', on);
  });
}

function forkPeer(args: object, serialization: 'advanced' | 'json' = 'advanced'): ChildProcess {
  return fork(PEER_CHILD, [JSON.stringify(args)], { serialization, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  if (child.connected) child.disconnect();
  const kill = setTimeout(() => child.kill('SIGKILL'), 2_000); // a peer stuck at exit must not hang the bench
  await exited;
  clearTimeout(kill);
}

const childUsage = (child: ChildProcess) => async () => {
  const u = once<{ cpuMs: number; maxRssMB: number }>(child, 'usage');
  child.send({ cmd: 'usage' });
  return u;
};

async function ipcLink(serialization: 'advanced' | 'json', mode: 'frame' | 'small'): Promise<Link> {
  const child = forkPeer({ transport: 'ipc', mode }, serialization);
  const sink = new Sink();
  const small = new SmallSink();
  sink.credit = () => child.send({ cmd: 'credit' });
  child.on('message', (m: { type: string; t0?: string; pixels?: unknown }) => {
    // toUint8Array is the ipc channel's own conversion (a JSON number array becomes a Buffer).
    if (m.type === 'frame') sink.frame(BigInt(m.t0!), toUint8Array(m.pixels));
    else if (m.type === 'p') small.pong?.();
    else if (m.type === 'm') small.msg();
  });
  await once(child, 'ready');
  const ping = Buffer.alloc(8);
  return {
    one: () => {
      const p = sink.waitOne();
      child.send({ cmd: 'go' });
      return p;
    },
    stream: (n, window) => {
      const p = sink.waitStream(n);
      child.send({ cmd: 'stream', n, window });
      return p;
    },
    ping: () =>
      new Promise((resolve) => {
        const t0 = hrNow();
        small.pong = () => resolve(hrNow() - t0);
        child.send({ type: 'p', b: ping });
      }),
    burst: (n) => {
      const p = small.waitBurst(n);
      child.send({ cmd: 'burst', n });
      return p;
    },
    peerUsage: childUsage(child),
    close: () => stop(child),
  };
}

async function zeromqLink(kind: 'ipc' | 'tcp', mode: 'frame' | 'small'): Promise<Link> {
  const file = join(tmpdir(), `tc-bench-${process.pid}-${randomBytes(3).toString('hex')}.sock`);
  // Frames: exactly the ZeromqChannel's ROUTER options. Small messages: libzmq defaults (see the peer).
  // The channel sends one job per decoder; the probe streams to one peer with `window` credits in its
  // pipe, so the (tiny) outgoing side gets room for them. Frames arrive under the channel's receive HWM.
  const router = new Router(
    mode === 'frame' ? { ...ZMQ_SOCKET_DEFAULTS, sendHighWaterMark: 16, mandatory: true, sendTimeout: 0, linger: 0 } : { mandatory: true, sendTimeout: 0, linger: 0 },
  );
  await router.bind(kind === 'ipc' ? `ipc://${file}` : 'tcp://127.0.0.1:*');
  const child = forkPeer({ transport: 'zmq', mode, endpoint: router.lastEndpoint });
  const sink = new Sink();
  const small = new SmallSink();
  let peer: Buffer | undefined;
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const send = (parts: (string | Buffer)[]): void => void router.send([peer!, ...parts]);
  sink.credit = () => send([JSON.stringify({ cmd: 'credit' })]);
  void (async () => {
    for await (const [id, head, body] of router) {
      const h = head!.toString('latin1', 0, Math.min(head!.length, 64));
      if (h === 'ready') {
        peer = id;
        ready();
      } else if (h === 'm') small.msg();
      else if (h === 'p') small.pong?.();
      else {
        const msg = JSON.parse(head!.toString()) as { t0: string };
        // Zero-copy receive: `body` wraps ZeroMQ's message; a view over it is what the channel delivers.
        sink.frame(BigInt(msg.t0), new Uint8Array(body!.buffer, body!.byteOffset, body!.byteLength));
      }
    }
  })();
  await isReady;
  const ping = Buffer.alloc(8);
  return {
    one: () => {
      const p = sink.waitOne();
      send([JSON.stringify({ cmd: 'go' })]);
      return p;
    },
    stream: (n, window) => {
      const p = sink.waitStream(n);
      send([JSON.stringify({ cmd: 'stream', n, window })]);
      return p;
    },
    ping: () =>
      new Promise((resolve) => {
        const t0 = hrNow();
        small.pong = () => resolve(hrNow() - t0);
        send(['p', ping]);
      }),
    burst: (n) => {
      const p = small.waitBurst(n);
      send([JSON.stringify({ cmd: 'burst', n })]);
      return p;
    },
    peerUsage: childUsage(child),
    close: async () => {
      await stop(child);
      router.close();
      rmSync(file, { force: true });
    },
  };
}

async function rawLink(kind: 'unix' | 'tcp'): Promise<Link> {
  const file = join(tmpdir(), `tc-bench-${process.pid}-${randomBytes(3).toString('hex')}.sock`);
  const child = forkPeer({ transport: 'raw', mode: 'frame', endpoint: kind === 'unix' ? file : 'tcp://127.0.0.1:0' });
  const listening = await once<{ port?: number }>(child, 'listening');
  const sink = new Sink();
  // The floor for a socket: the kernel copies into the sender's socket buffer and out into this one
  // buffer (onread reads straight into it); no framing, no serialization, no extra copy.
  const asm = Buffer.alloc(8 + FRAME_BYTES);
  let filled = 0;
  const sock = net.connect({
    ...(kind === 'unix' ? { path: file } : { host: '127.0.0.1', port: listening.port! }),
    onread: {
      buffer: () => asm.subarray(filled),
      callback: (n: number) => {
        filled += n;
        if (filled === asm.length) {
          filled = 0;
          sink.frame(asm.readBigInt64LE(0), asm.subarray(8));
        }
        return true;
      },
    },
  });
  await once(child, 'ready');
  const G = Buffer.from('g');
  const C = Buffer.from('c');
  sink.credit = () => sock.write(C);
  return {
    one: () => {
      const p = sink.waitOne();
      sock.write(G);
      return p;
    },
    stream: (n, window) => {
      const p = sink.waitStream(n);
      child.send({ cmd: 'stream', n, window });
      return p;
    },
    ping: () => Promise.reject(new Error('raw sockets: frame probe only')),
    burst: () => Promise.reject(new Error('raw sockets: frame probe only')),
    peerUsage: childUsage(child),
    close: async () => {
      sock.destroy();
      await stop(child);
      rmSync(file, { force: true });
    },
  };
}

async function sharedLink(copy: boolean, window: number): Promise<Link> {
  const ring = SharedFrameRing.create(Math.max(1, window), FRAME_BYTES);
  const ctlBuf = new SharedArrayBuffer(CTL_WORDS * 4);
  const ctl = new Int32Array(ctlBuf);
  const t0Buf = new SharedArrayBuffer(8 * ring.slotCount);
  const t0s = new BigInt64Array(t0Buf);
  const smallBuf = new SharedArrayBuffer(8 * SMALL_RING);
  const worker = new Worker(PEER_WORKER, {
    workerData: { control: ring.control, pixels: ring.pixelBuffer, slotCount: ring.slotCount, slotBytes: ring.slotBytes, ctl: ctlBuf, t0s: t0Buf, small: smallBuf, copy },
  });
  const sink = new Sink();
  let expected = 0; // slots are handed over in ring order
  let closed = false;
  const command = (op: number, arg = 0): void => {
    Atomics.store(ctl, CTL.OP, op);
    Atomics.store(ctl, CTL.ARG, arg);
    Atomics.add(ctl, CTL.CMD, 1);
    Atomics.add(ctl, CTL.WAKE, 1);
    Atomics.notify(ctl, CTL.WAKE);
  };
  sink.credit = () => {
    Atomics.add(ctl, CTL.CREDIT, 1);
    Atomics.notify(ctl, CTL.CREDIT);
  };
  // The channel's own wait: Atomics.waitAsync on the ring's completion counter, never Atomics.wait.
  void (async () => {
    let seen = ring.completions;
    while (!closed) {
      await ring.changed(seen);
      seen = ring.completions;
      while (ring.state(expected) === SLOT_READY) {
        const slot = expected;
        expected = (expected + 1) % ring.slotCount;
        const t0 = t0s[slot]!;
        const data = ring.view(slot, FRAME_BYTES);
        ring.setState(slot, SLOT_FREE);
        sink.frame(t0, data);
      }
    }
  })();
  await new Promise((r) => worker.once('online', r));
  return {
    one: () => {
      const p = sink.waitOne();
      expected = 0;
      command(OP_GO);
      return p;
    },
    stream: (n, window) => {
      const p = sink.waitStream(n);
      expected = 0;
      Atomics.store(ctl, CTL.CREDIT, window);
      command(OP_STREAM, n);
      return p;
    },
    ping: async () => {
      const t0 = hrNow();
      const next = Atomics.add(ctl, CTL.PING, 1) + 1;
      Atomics.add(ctl, CTL.WAKE, 1);
      Atomics.notify(ctl, CTL.WAKE);
      while (Atomics.load(ctl, CTL.PONG) !== next) {
        await waitAsync(ctl, CTL.PONG, next - 1);
      }
      return hrNow() - t0;
    },
    burst: async (n) => {
      const small = new BigInt64Array(smallBuf);
      let tail = Atomics.load(ctl, CTL.TAIL);
      const end = tail + n;
      let sum = 0n;
      command(OP_BURST, n);
      while (tail < end) {
        let head = Atomics.load(ctl, CTL.HEAD);
        if (head === tail) {
          Atomics.store(ctl, CTL.CONSUMER_WAITING, 1);
          head = Atomics.load(ctl, CTL.HEAD);
          if (head === tail) {
            await waitAsync(ctl, CTL.HEAD, head);
          }
          Atomics.store(ctl, CTL.CONSUMER_WAITING, 0);
          continue;
        }
        for (; tail < head; tail++) sum += small[tail % SMALL_RING]!;
        Atomics.store(ctl, CTL.TAIL, tail);
        Atomics.notify(ctl, CTL.TAIL);
      }
      if (sum < 0n) throw new Error('unreachable'); // keeps the reads from being optimised away
    },
    peerUsage: async () => null,
    close: async () => {
      closed = true;
      command(OP_STOP);
      ring.wake();
      await worker.terminate();
    },
  };
}

// The bare wake of a sleeping thread, in a worker that shares nothing with the channel's code.
const WAKE_WORKER = `
const { workerData } = require('node:worker_threads');
const w = new Int32Array(workerData.words);
const t0 = new BigInt64Array(workerData.t0);
for (let go = 0; ; ) {
  while (Atomics.load(w, 0) === go) Atomics.wait(w, 0, go);
  go = Atomics.load(w, 0);
  if (go < 0) break;
  t0[0] = process.hrtime.bigint();
  Atomics.add(w, 1, 1);
  Atomics.notify(w, 1);
}`;

/**
 * Floor of the shared channel: waking the analyzer's sleeping event loop from another thread
 * (Atomics.notify → Atomics.waitAsync), with no ring, slot or frame. On a VM this is mostly the time to
 * wake a halted virtual CPU, so it depends on how idle the machine is.
 */
async function threadWakeLink(): Promise<Link> {
  const words = new SharedArrayBuffer(8);
  const t0Buf = new SharedArrayBuffer(8);
  const w = new Int32Array(words);
  const t0 = new BigInt64Array(t0Buf);
  const worker = new Worker(WAKE_WORKER, { eval: true, workerData: { words, t0: t0Buf } });
  await new Promise((r) => worker.once('online', r));
  const link = floorLink(async () => {
    const done = Atomics.load(w, 1);
    Atomics.add(w, 0, 1);
    Atomics.notify(w, 0);
    while (Atomics.load(w, 1) === done) {
      await waitAsync(w, 1, done);
    }
    return hrNow() - t0[0]!;
  });
  return {
    ...link,
    close: async () => {
      Atomics.store(w, 0, -1);
      Atomics.notify(w, 0);
      await worker.terminate();
    },
  };
}

/** Floor: the channel's in-process delivery (InFlightQueue.complete → next()), no copy. */
function inProcessLink(): Link {
  const frame = syntheticFrame();
  const queue = new InFlightQueue(64);
  const jf = { cameraId: 'c', seq: 0, capturedAt: 0, jpeg: new Uint8Array(1) };
  const handOff = async (): Promise<bigint> => {
    // Never full (one frame in flight of 64), so never undefined.
    const e = queue.push(jf, LIMITS)!;
    const next = queue.next();
    const t0 = hrNow();
    queue.complete(e.id, { kind: 'frame', frame: { cameraId: 'c', seq: 0, capturedAt: 0, width: 1280, height: 720, scale: 1, data: frame, decodeMs: 0, release() {} } });
    const out = await next;
    const t1 = hrNow();
    if (out?.kind !== 'frame' || out.frame.data[FRAME_BYTES - 1] !== frame[FRAME_BYTES - 1]) throw new Error('lost frame');
    return t1 - t0;
  };
  return floorLink(handOff);
}

/**
 * Floor: one copy of the frame (what any copying transport pays at least once), into a reused buffer, or
 * into a fresh one per frame as process.send and zeromq's receive do (the new pages must be faulted in).
 */
function memcpyLink(fresh: boolean): Link {
  const src = syntheticFrame();
  let dst = new Uint8Array(FRAME_BYTES);
  return floorLink(async () => {
    const t0 = hrNow();
    if (fresh) dst = new Uint8Array(FRAME_BYTES);
    dst.set(src);
    return hrNow() - t0;
  });
}

function floorLink(one: () => Promise<bigint>): Link {
  return {
    one,
    stream: async (n) => {
      for (let i = 0; i < n; i++) await one();
    },
    ping: () => Promise.reject(new Error('frame probe only')),
    burst: () => Promise.reject(new Error('frame probe only')),
    peerUsage: async () => null,
    close: async () => {},
  };
}

async function open(args: ProbeArgs): Promise<Link> {
  switch (args.mechanism) {
    case 'in-process':
      return inProcessLink();
    case 'memcpy':
      return memcpyLink(false);
    case 'alloc-copy':
      return memcpyLink(true);
    case 'raw-unix':
      return rawLink('unix');
    case 'raw-tcp':
      return rawLink('tcp');
    case 'ipc-json':
      return ipcLink('json', args.mode);
    case 'ipc-advanced':
      return ipcLink('advanced', args.mode);
    case 'zeromq-ipc':
      return zeromqLink('ipc', args.mode);
    case 'zeromq-tcp':
      return zeromqLink('tcp', args.mode);
    case 'shared':
      return sharedLink(false, args.window);
    case 'thread-wake':
      return threadWakeLink();
    case 'shared-copy':
      return sharedLink(true, args.window);
  }
}

async function runFrame(link: Link, a: ProbeArgs): Promise<FrameResult> {
  const lat: number[] = [];
  for (let i = 0; i < a.warmup + a.samples; i++) {
    const ns = await link.one();
    if (i >= a.warmup) lat.push(Number(ns) / 1000);
  }
  await link.stream(Math.max(2, Math.ceil(a.count / 4)), a.window); // warm the streaming path too
  await link.peerUsage();
  const c0 = cpuMs();
  const t0 = performance.now();
  await link.stream(a.count, a.window);
  const wall = performance.now() - t0;
  const own = cpuMs() - c0;
  const peer = await link.peerUsage();
  const { p50, p99 } = summarize(lat);
  return { p50Us: p50, p99Us: p99, fps: (a.count * 1000) / wall, cpuMsPerFrame: (own + (peer?.cpuMs ?? 0)) / a.count, peakRssMB: peakRssMB() + (peer?.maxRssMB ?? 0) };
}

const debug = (m: string): void => void (process.env.TC_BENCH_DEBUG && process.stderr.write(`probe: ${m}\n`));

async function runSmall(link: Link, a: ProbeArgs): Promise<SmallResult> {
  debug('ping');
  const rtt: number[] = [];
  for (let i = 0; i < a.warmup + a.samples; i++) {
    const ns = await link.ping();
    if (i >= a.warmup) rtt.push(Number(ns) / 1000);
  }
  debug('burst warm-up');
  await link.burst(Math.ceil(a.count / 10));
  debug('usage');
  await link.peerUsage();
  debug('burst');
  const c0 = cpuMs();
  const t0 = performance.now();
  await link.burst(a.count);
  debug('done');
  const wall = performance.now() - t0;
  const own = cpuMs() - c0;
  const peer = await link.peerUsage();
  const { p50, p99 } = summarize(rtt);
  return { rttP50Us: p50, rttP99Us: p99, msgsPerSec: (a.count * 1000) / wall, cpuUsPerMsg: ((own + (peer?.cpuMs ?? 0)) * 1000) / a.count };
}

probeMain<ProbeArgs, FrameResult | SmallResult>(async (args) => {
  const link = await open(args);
  try {
    return args.mode === 'frame' ? await runFrame(link, args) : await runSmall(link, args);
  } finally {
    // Bounded: the result is in hand, a slow teardown must not lose it.
    await Promise.race([link.close(), sleep(3_000)]);
  }
});
