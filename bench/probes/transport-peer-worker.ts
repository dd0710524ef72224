// The decoder side of the shared-memory probes, in a worker thread: hands frames over through the channel's
// SharedFrameRing (slot + Atomics), and small messages through a single-producer ring of 8-byte entries.

import { workerData } from 'node:worker_threads';
import { SharedFrameRing } from '../../src/channel/shared-frame-ring.js';
import { hrNow, syntheticFrame } from '../bench-util.js';
import { CTL, OP_BURST, OP_GO, OP_STOP, OP_STREAM, SMALL_RING } from './shared-probe-layout.js';

interface WorkerArgs {
  control: SharedArrayBuffer;
  pixels: SharedArrayBuffer;
  slotCount: number;
  slotBytes: number;
  ctl: SharedArrayBuffer;
  t0s: SharedArrayBuffer;
  small: SharedArrayBuffer;
  /** true: copy the decoder's own buffer into the slot after t0 (what jpeg-js/sharp output needs). */
  copy: boolean;
}

const a = workerData as WorkerArgs;
const ring = SharedFrameRing.attach(a.control, a.pixels, a.slotCount, a.slotBytes);
const ctl = new Int32Array(a.ctl);
const t0s = new BigInt64Array(a.t0s);
const small = new BigInt64Array(a.small);
const frame = syntheticFrame();
// A decoder that decodes straight into the slot: the pixels are there before the hand-off starts.
if (!a.copy) for (let s = 0; s < ring.slotCount; s++) ring.view(s, frame.length).set(frame);

function handOver(slot: number): void {
  const t0 = hrNow();
  if (a.copy) ring.view(slot, frame.length).set(frame);
  t0s[slot] = t0;
  ring.publishFrame(slot, 1280, 720, 1, 0);
}

function takeCredit(): void {
  // This thread may block: it is a decoder, not the analyzer.
  while (Atomics.load(ctl, CTL.CREDIT) === 0) Atomics.wait(ctl, CTL.CREDIT, 0);
  Atomics.sub(ctl, CTL.CREDIT, 1);
}

let seen = 0;
let pings = 0;
for (;;) {
  // Wait for a command or a ping, whichever comes.
  while (Atomics.load(ctl, CTL.CMD) === seen && Atomics.load(ctl, CTL.PING) === pings) Atomics.wait(ctl, CTL.WAKE, Atomics.load(ctl, CTL.WAKE), 1000);
  const ping = Atomics.load(ctl, CTL.PING);
  if (ping !== pings) {
    pings = ping;
    Atomics.store(ctl, CTL.PONG, ping);
    Atomics.notify(ctl, CTL.PONG);
    continue;
  }
  seen = Atomics.load(ctl, CTL.CMD);
  const op = Atomics.load(ctl, CTL.OP);
  const n = Atomics.load(ctl, CTL.ARG);
  if (op === OP_STOP) break;
  if (op === OP_GO) handOver(0);
  if (op === OP_STREAM) {
    for (let k = 0; k < n; k++) {
      takeCredit();
      handOver(k % ring.slotCount);
    }
  }
  if (op === OP_BURST) {
    // Single-producer ring: write at head, publish head; wait only when the ring is full.
    let head = Atomics.load(ctl, CTL.HEAD);
    for (let k = 0; k < n; k++) {
      let tail = Atomics.load(ctl, CTL.TAIL);
      while (head - tail >= SMALL_RING) {
        Atomics.wait(ctl, CTL.TAIL, tail);
        tail = Atomics.load(ctl, CTL.TAIL);
      }
      small[head % SMALL_RING] = BigInt(k);
      head++;
      Atomics.store(ctl, CTL.HEAD, head);
      // Wake the analyzer only when it sleeps: a notify per message would cost more than the message.
      if (Atomics.load(ctl, CTL.CONSUMER_WAITING) === 1) Atomics.notify(ctl, CTL.HEAD);
    }
  }
}
