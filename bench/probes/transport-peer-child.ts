// The decoder side of the transport probes, in its own process: it holds a ready 1280x720 RGBA frame (as a
// decoder does after decoding) and hands it over through the mechanism under test when asked.
// argv: JSON { transport: 'ipc'|'zmq'|'raw', mode: 'frame'|'small', endpoint?, smallHwm? }.

import net from 'node:net';
import { Dealer } from 'zeromq';
import { ZMQ_SOCKET_DEFAULTS } from '../../src/decode/zeromq-decoder.js';
import { hrNow, syntheticFrame } from '../bench-util.js';

interface PeerArgs {
  transport: 'ipc' | 'zmq' | 'raw';
  mode: 'frame' | 'small';
  endpoint?: string;
}

/** Commands from the analyzer side. */
type Cmd = { cmd: 'go' } | { cmd: 'stream'; n: number; window: number } | { cmd: 'credit' } | { cmd: 'burst'; n: number } | { cmd: 'usage' };

const args = JSON.parse(process.argv[2]!) as PeerArgs;
// The frame as a decoder hands it over: jpeg-js/sharp give a fresh buffer per frame; nothing here writes
// it after the first send, which is what zero-copy zeromq requires.
const frame = Buffer.from(syntheticFrame().buffer);
const ping = Buffer.alloc(8);
let credits = 0;
let streamLeft = 0;
let cpuAtStart = process.cpuUsage();
let sendOne: (t0: bigint) => Promise<void> = async () => {};
let sendSmall: () => Promise<void> = async () => {};

function usage(): { cpuMs: number; maxRssMB: number } {
  const u = process.cpuUsage(cpuAtStart);
  cpuAtStart = process.cpuUsage();
  return { cpuMs: (u.user + u.system) / 1000, maxRssMB: process.resourceUsage().maxRSS / 1024 };
}

async function pumpStream(): Promise<void> {
  // Credit-based like the channels: at most `window` frames handed over and not yet taken.
  while (streamLeft > 0 && credits > 0) {
    credits--;
    streamLeft--;
    await sendOne(hrNow());
  }
}

async function burst(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await sendSmall();
}

async function onCmd(c: Cmd): Promise<void> {
  switch (c.cmd) {
    case 'go':
      await sendOne(hrNow());
      break;
    case 'stream':
      streamLeft = c.n;
      credits = c.window;
      await pumpStream();
      break;
    case 'credit':
      credits++;
      await pumpStream();
      break;
    case 'burst':
      await burst(c.n);
      break;
    case 'usage':
      process.send!({ type: 'usage', ...usage() });
      break;
  }
}

// Commands are handled one at a time, in order (a credit must not overtake the stream command).
let chain = Promise.resolve();
const enqueue = (c: Cmd): void => {
  chain = chain.then(() => onCmd(c)).catch((err: unknown) => {
    process.stderr.write(`transport peer: ${String(err)}\n`);
    process.exit(1);
  });
};
process.on('disconnect', () => process.exit(0));

if (args.transport === 'ipc') {
  // Same shapes and pacing as src/decode/ipc-decoder-child.ts: one send completes before the next.
  const send = (msg: unknown): Promise<void> => new Promise((res, rej) => process.send!(msg, undefined, {}, (e) => (e ? rej(e) : res())));
  sendOne = (t0) => send({ type: 'frame', job: 0, t0: String(t0), header: { width: 1280, height: 720 }, pixels: frame });
  let outstanding = 0;
  sendSmall = async () => {
    // Bounded window of sends not yet written to the pipe, so a burst cannot queue without limit.
    while (outstanding >= 256) await new Promise((r) => setImmediate(r));
    outstanding++;
    process.send!({ type: 'm', b: ping }, undefined, {}, () => outstanding--);
  };
  process.on('message', (m: Cmd | { type: 'p'; b: unknown }) => {
    if ('type' in m && m.type === 'p') process.send!({ type: 'p', b: m.b }); // echo at once
    else enqueue(m as Cmd);
  });
  process.send!({ type: 'ready' });
} else if (args.transport === 'zmq') {
  const small = args.mode === 'small';
  // Frames: the channel's own socket options. Small messages: libzmq's default HWM (1000), because the
  // channel's HWM of 2 is tuned for 3.6 MB frames and would measure the HWM, not the transport.
  const sock = new Dealer(small ? { linger: 0 } : { ...ZMQ_SOCKET_DEFAULTS, linger: 0 });
  sock.connect(args.endpoint!);
  sendOne = (t0) => sock.send([JSON.stringify({ type: 'frame', job: 0, t0: String(t0), header: { width: 1280, height: 720 } }), frame]);
  sendSmall = () => sock.send(['m', ping]);
  // Every command comes in-band and is handled inside the receive loop, so this socket never waits to
  // send while a receive is pending on it: zeromq.js can then miss the wake-up and hang (seen here).
  void (async () => {
    await sock.send(['ready']);
    for await (const [head, body] of sock) {
      const h = head!.toString();
      if (h === 'p') await sock.send(['p', body!]);
      else await onCmd(JSON.parse(h) as Cmd);
    }
  })();
  process.on('message', (m: Cmd) => enqueue(m)); // 'usage' only
} else {
  // Raw socket: 8-byte t0 then the frame; the analyzer side reads straight into one buffer.
  const header = Buffer.alloc(8);
  let conn: net.Socket | undefined;
  const write = (b: Buffer): Promise<void> => new Promise((res, rej) => conn!.write(b, (e) => (e ? rej(e) : res())));
  sendOne = async (t0) => {
    header.writeBigInt64LE(t0);
    conn!.cork();
    const a = write(header);
    const b = write(frame);
    conn!.uncork();
    await Promise.all([a, b]);
  };
  const server = net.createServer((s) => {
    conn = s;
    s.on('data', (d: Buffer) => {
      for (const byte of d) enqueue(byte === 0x67 /* g */ ? { cmd: 'go' } : { cmd: 'credit' });
    });
    process.send!({ type: 'ready' });
  });
  const ep = args.endpoint!;
  if (ep.startsWith('tcp://')) server.listen(Number(ep.split(':').at(-1)), '127.0.0.1', () => process.send!({ type: 'listening', port: (server.address() as net.AddressInfo).port }));
  else server.listen(ep, () => process.send!({ type: 'listening' }));
  process.on('message', (m: Cmd) => enqueue(m));
}

export {};
