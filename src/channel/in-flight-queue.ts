// The bounded, ordered set of frames a channel has in flight, shared by every FrameChannel implementation.
// Policy: at most `max` frames between submit() and delivery. A new frame beyond that drops one frame that is not
// at a decoder (waiting for one, or decoded and waiting for the analyzer): the oldest of the camera that got the
// largest share of the outputs delivered lately (see #shareOf), among equals the one holding most frames, then the
// new frame's own camera (a live camera wants its newest frame). So under overload every camera keeps its share of
// what is analysed, whether the decoders or the analyzer are the bottleneck. Dropping the oldest frame of all
// starved every camera but one: the cameras' polls fall in the same order each round, and the ones polled first
// always held the oldest frame (8 cameras at 5 fps on one decoder, 60 s: 0, 0, 4, 5, 283, 139, 179 and 166 frames
// analysed; in test/in-flight-queue.test.ts's rounds, 0 0 0 0 1 398 0 0 of 400). The share counts what was
// delivered, not what went to a decoder: a camera whose decoded frames were dropped got nothing. A frame at a
// decoder is not dropped (its decode is paid for); when every frame is, the new one is dropped, so the channel
// keeps at least two frames per decoder (see createChannel). Delivery is in submission order, but a frame a channel
// marks overtakable (at a decoder on trial, see ZeromqChannel) is dropped once a later frame is done after its time.
// Everything a channel knows about a frame lives on its entry, so it goes when the entry leaves the queue
// (delivered, dropped or abandoned) and no channel keeps a side table to clean up.

import type { ChannelStats } from './frame-channel.js';
import type { ChannelOutput, DecodeLimits, DecodeRequest, JpegFrame } from './messages.js';
import type { DecodeScale } from '../decode/decode-scale.js';
import { frameName } from '../decode/decode-to-frame.js';

export type EntryState = 'pending' | 'decoding' | 'done';

export interface InFlightEntry {
  readonly id: number;
  readonly frame: JpegFrame;
  /** What the decoder must enforce on this frame, as given to submit(). */
  readonly limits: DecodeLimits;
  state: EntryState;
  output?: ChannelOutput;
  /** Set by the channel when it hands the entry to a decoder (e.g. which child). */
  worker?: number;
  /**
   * Set by a channel for a frame at a decoder not trusted yet: from this time (ms since the epoch) on, the frame no
   * longer holds back later frames that are done; it is dropped instead (see #overtaken).
   */
  overtakeAfter?: number;
}

/** The request a decoder gets for an entry: its frame's identity, its limits, and the channel's decode scale. */
export function decodeRequest(entry: InFlightEntry, scale: DecodeScale): DecodeRequest {
  const f = entry.frame;
  return { type: 'decode', cameraId: f.cameraId, seq: f.seq, capturedAt: f.capturedAt, limits: entry.limits, scale };
}

/** Each output delivered makes the cameras' past shares count this much less: a memory of about 64 frames. */
const SHARE_DECAY = 1 / 64;

/**
 * A camera whose frames hung a decoder this many times in a row (no frame of it answered in between) is backed off:
 * one hang may be the decoder's (stopped, or the machine swapping), two in a row are the camera's frames. A hang
 * counts toward it only when the decoders answered another camera's frame since the camera's hang before: with
 * nothing answered between, the decoders are what hangs, whatever frames they hold (every camera took two hangs in
 * a row from a stall of the decoders, and all were skipped for 10 decode timeouts once the decoders were back).
 */
export const SLOW_CAMERA_STRIKES = 2;
/** The longest a slow camera's frames are skipped before one is tried again (ms). */
export const SLOW_CAMERA_MAX_BACKOFF_MS = 5 * 60_000;

/**
 * How long a camera's frames are skipped after `strikes` hangs in a row (SLOW_CAMERA_STRIKES or more): 10 times the
 * decode timeout, doubling with each hang, up to SLOW_CAMERA_MAX_BACKOFF_MS; so a camera whose every frame hangs
 * holds a decoder at most a tenth of the time, the first time, and less after.
 */
export function slowCameraBackoffMs(strikes: number, decodeTimeoutMs: number): number {
  return Math.min(SLOW_CAMERA_MAX_BACKOFF_MS, 10 * decodeTimeoutMs * 2 ** (strikes - SLOW_CAMERA_STRIKES));
}

export class InFlightQueue {
  #max: number;
  readonly #entries: InFlightEntry[] = [];
  readonly #waiters: ((out: ChannelOutput | null) => void)[] = [];
  #nextId = 1;
  #closed = false;
  /**
   * Per camera, its outputs delivered, each weighing (1 - SHARE_DECAY)^n after n more were delivered (of any
   * camera): `v` as of the `at`-th output delivered. One per camera the channel has seen.
   */
  readonly #share = new Map<string, { v: number; at: number }>();
  #deliveredAll = 0;
  /**
   * Per camera whose frames hung a decoder (dropped at decodeTimeoutMs): the hangs in a row, and until when (ms since
   * the epoch) its frames are answered as skipped instead of sent to a decoder. Gone at its next frame decoded.
   */
  readonly #slow = new Map<string, { strikes: number; until: number; timeoutMs: number; answersAt: number }>();
  /** Frames answered by a decoder (complete()), of every camera: whether the decoders worked between two hangs. */
  #answers = 0;
  submitted = 0;
  dropped = 0;
  delivered = 0;
  decodeErrors = 0;
  readonly #onDropped: ((frame: JpegFrame) => void) | undefined;

  /** `onDropped`: told of each frame dropped, when it is (see FrameChannelOptions.onDropped). */
  constructor(max: number, onDropped?: (frame: JpegFrame) => void) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxInFlight must be an integer >= 1, got ${max}`);
    this.#max = max;
    this.#onDropped = onDropped;
  }

  #dropped(frame: JpegFrame): void {
    this.dropped++;
    this.#onDropped?.(frame);
  }

  /**
   * The most frames in flight. Lowered below the frames held, the excess drains through delivery: a submit still
   * drops one frame only, so the queue never grows while it is over the bound.
   */
  get max(): number {
    return this.#max;
  }

  set max(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxInFlight must be an integer >= 1, got ${max}`);
    this.#max = max;
  }

  get size(): number {
    return this.#entries.length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * FrameChannel.submit() for every channel: ignored once the channel is closing (the queue closes first
   * thing in close()); otherwise the frame is queued and `pump` offers it to an idle decoder at once.
   */
  submit(frame: JpegFrame, limits: DecodeLimits, pump: () => void): void {
    if (this.#closed) return;
    this.push(frame, limits);
    pump();
  }

  /**
   * Adds a frame; if the queue is full, one frame is dropped first (see the policy above), which may be this one.
   * Returns the new entry, or undefined when it was the one dropped.
   */
  push(frame: JpegFrame, limits: DecodeLimits): InFlightEntry | undefined {
    this.submitted++;
    // One drop makes room; over a lowered bound the queue stays at its size until deliveries bring it down.
    if (this.#entries.length >= this.#max) {
      const i = this.#victim(frame.cameraId);
      if (i < 0) {
        this.#dropped(frame);
        return undefined;
      }
      const [gone] = this.#entries.splice(i, 1);
      if (gone!.output?.kind === 'frame') gone!.output.frame.release();
      this.#dropped(gone!.frame);
    }
    const entry: InFlightEntry = { id: this.#nextId++, frame, limits, state: 'pending' };
    this.#entries.push(entry);
    const skipped = this.#skipSlow(frame);
    if (skipped) {
      entry.state = 'done';
      entry.output = skipped;
      this.#deliver();
    }
    return entry;
  }

  /**
   * A frame of a camera backed off for its slow frames (see hung()): its answer, a decode error saying why, at once;
   * undefined for a frame to decode.
   */
  #skipSlow(frame: JpegFrame): ChannelOutput | undefined {
    const slow = this.#slow.get(frame.cameraId);
    if (!slow || slow.strikes < SLOW_CAMERA_STRIKES || Date.now() >= slow.until) return undefined;
    // Skipping serves only the other cameras: a daemon's only camera keeps trying (a decoder stopped or starved
    // twice looks the same as slow frames, and skipping would lose its counts for nothing).
    if (!this.#otherCamera(frame.cameraId)) return undefined;
    const secs = Math.ceil(slowCameraBackoffMs(slow.strikes, slow.timeoutMs) / 1000);
    const message =
      `${frameName(frame.cameraId, frame.seq)} not decoded: ${slow.strikes} of the camera's frames in a row took longer than ` +
      `decodeTimeoutMs=${slow.timeoutMs} ms to decode and were dropped as hung, while other cameras' frames were decoded, so its frames are skipped for ${secs} s (then one is tried again) ` +
      `and the other cameras keep their frame rate; if its frames are this slow to decode (very large JPEGs), raise decodeTimeoutMs, ` +
      `use a faster decoder (jpeg-turbo) or lower the camera's resolution`;
    return { kind: 'error', failure: { type: 'decode-error', cameraId: frame.cameraId, seq: frame.seq, capturedAt: frame.capturedAt, code: 'TC_ERR_DECODE_TIMEOUT', message } };
  }

  /**
   * A decoder held entry `id` past `decodeTimeoutMs` (the channel's watchdog, which stops that decoder): its frame is
   * dropped, as abandon() does, but counts in its camera's share of the outputs (it held a decoder the whole time),
   * and a camera whose frames hang decoders SLOW_CAMERA_STRIKES times in a row is backed off (slowCameraBackoffMs):
   * its frames are answered as skipped (TC_ERR_DECODE_TIMEOUT) rather than each holding a decoder for
   * decodeTimeoutMs. Before, such frames counted for nothing: the camera always had the smallest share, its frames
   * were the last dropped, and the other cameras starved (a 4 MP camera of 25 scans at decodeTimeoutMs 1000 beside
   * the simulator: 1 simulator frame analysed in 70 s).
   */
  hung(id: number, decodeTimeoutMs: number): void {
    const frame = this.frameOf(id);
    if (frame) {
      const cam = frame.cameraId;
      const prev = this.#slow.get(cam);
      // Its record goes at its own next frame answered: any answer since its hang before was another camera's.
      const counts = prev === undefined || this.#answers > prev.answersAt;
      const strikes = (prev?.strikes ?? 0) + (counts ? 1 : 0);
      const until = counts && strikes >= SLOW_CAMERA_STRIKES ? Date.now() + slowCameraBackoffMs(strikes, decodeTimeoutMs) : 0;
      // One per camera (deleted at its next frame decoded): bounded by the cameras, as #share is.
      this.#slow.delete(cam);
      this.#slow.set(cam, { strikes, until, timeoutMs: decodeTimeoutMs, answersAt: this.#answers });
      this.#served(cam);
      // Its frames already waiting for a decoder are skipped too: each would hang the next decoder.
      for (const e of this.#entries) {
        if (e.state !== 'pending' || e.frame.cameraId !== cam) continue;
        const skipped = this.#skipSlow(e.frame);
        if (!skipped) break;
        e.state = 'done';
        e.output = skipped;
      }
    }
    this.abandon(id);
  }

  /** Whether a camera other than `cam` has had a frame here (delivered or hung; see #share). */
  #otherCamera(cam: string): boolean {
    for (const k of this.#share.keys()) if (k !== cam) return true;
    return false;
  }

  /** The index of the frame to drop for a new frame of `cameraId`, or -1 for the new frame itself (see the policy above). */
  #victim(cameraId: string): number {
    // Frames not at a decoder, per camera, the new one counted in; the new frame's camera first (a Map keeps
    // insertion order), so that it wins the last tie.
    const held = new Map<string, number>([[cameraId, 1]]);
    for (const e of this.#entries) if (e.state !== 'decoding') held.set(e.frame.cameraId, (held.get(e.frame.cameraId) ?? 0) + 1);
    let pick = cameraId, pickShare = this.#shareOf(cameraId);
    for (const [id, n] of held) {
      const share = this.#shareOf(id);
      // Shares are sums of powers of one factor: compare them with a little slack, not exactly.
      if (share > pickShare + 1e-9 || (Math.abs(share - pickShare) <= 1e-9 && n > held.get(pick)!)) {
        pick = id;
        pickShare = share;
      }
    }
    return this.#entries.findIndex((e) => e.state !== 'decoding' && e.frame.cameraId === pick);
  }

  /** Hands an entry to a decoder (`worker`: which one, for the channel's crash handling). */
  toDecoder(entry: InFlightEntry, worker?: number): void {
    entry.state = 'decoding';
    entry.worker = worker;
    entry.overtakeAfter = undefined;
  }

  /** Counts one output of `cam` delivered to the consumer in the cameras' shares. */
  #served(cam: string): void {
    const v = this.#shareOf(cam);
    this.#deliveredAll++;
    this.#share.set(cam, { v: v * (1 - SHARE_DECAY) + 1, at: this.#deliveredAll });
  }

  /** Camera `cam`'s recent share of the outputs delivered (0 for one that got none lately). */
  #shareOf(cam: string): number {
    const s = this.#share.get(cam);
    return s ? s.v * (1 - SHARE_DECAY) ** (this.#deliveredAll - s.at) : 0;
  }

  /** The oldest entry not yet handed to a decoder. */
  nextPending(): InFlightEntry | undefined {
    return this.#entries.find((e) => e.state === 'pending');
  }

  /** Entries currently at decoders (for crash handling). */
  decoding(worker?: number): InFlightEntry[] {
    return this.#entries.filter((e) => e.state === 'decoding' && (worker === undefined || e.worker === worker));
  }

  get(id: number): InFlightEntry | undefined {
    return this.#entries.find((e) => e.id === id);
  }

  /**
   * Records a decoder's result; ignored (and the frame released) if the entry was dropped meanwhile, or is done
   * already (a frame sent to a second decoder when the first was late: the first answer counts).
   */
  complete(id: number, output: ChannelOutput): void {
    const entry = this.get(id);
    if (!entry || entry.state === 'done') {
      if (output.kind === 'frame') output.frame.release();
      return;
    }
    entry.state = 'done';
    entry.output = output;
    this.#answers++;
    // A decoder answered for this camera in time: its frames are not hanging decoders.
    this.#slow.delete(entry.frame.cameraId);
    this.#deliver();
  }

  /** Removes an entry without delivering it (e.g. its decoder died), counting it as dropped. */
  /** The frame of an entry still held (undefined once delivered, dropped or abandoned): for messages naming it. */
  frameOf(id: number): JpegFrame | undefined {
    return this.#entries.find((e) => e.id === id)?.frame;
  }

  abandon(id: number): void {
    const i = this.#entries.findIndex((e) => e.id === id);
    if (i < 0) return;
    const [entry] = this.#entries.splice(i, 1);
    if (entry!.output?.kind === 'frame') entry!.output.frame.release();
    this.#dropped(entry!.frame);
    this.#deliver();
  }

  #deliver(): void {
    while (this.#waiters.length > 0) {
      const head = this.#entries[0];
      if (head && head.state === 'done') {
        this.#entries.shift();
        const out = head.output!;
        if (out.kind === 'frame') this.delivered++;
        else this.decodeErrors++;
        this.#served(head.frame.cameraId);
        this.#waiters.shift()!(out);
      } else if (head && this.#overtaken(head)) {
        this.#entries.shift();
        this.#dropped(head.frame);
      } else if (!head && this.#closed) {
        this.#waiters.shift()!(null);
      } else {
        return;
      }
    }
  }

  /** A frame still at an untrusted decoder past its overtakeAfter, with a later frame done behind it. */
  #overtaken(head: InFlightEntry): boolean {
    return head.state === 'decoding' && head.overtakeAfter !== undefined && Date.now() >= head.overtakeAfter && this.#entries.some((e) => e.state === 'done');
  }

  /** Delivers what waited behind a frame that may now be overtaken (a channel calls it on its timer). */
  overtakeStalled(): void {
    this.#deliver();
  }

  /**
   * Next output in submission order; null once closed and empty. An output that is already waiting is handed
   * over on the next turn of the event loop, not at once: a consumer looping on `await next()` through a
   * backlog would otherwise analyse it all in one macrotask, with timers, the HTTP API and the camera
   * downloads held up behind it (the 2018 complaint). One turn costs microseconds; a frame, milliseconds.
   */
  next(): Promise<ChannelOutput | null> {
    return new Promise((resolve) => {
      let ready = true;
      this.#waiters.push((out) => (ready ? setImmediate(resolve, out) : resolve(out)));
      this.#deliver();
      ready = false;
    });
  }

  /** No more pushes; next() returns null once the remaining entries are delivered or dropped. */
  close(): void {
    this.#closed = true;
    this.#deliver();
  }

  /**
   * Closes the queue and waits, for at most timeoutMs, until nothing is waiting for or at a decoder, as long as
   * `canProgress()` says a decoder could still finish something; then drops what is unfinished.
   */
  async drain(timeoutMs: number, canProgress: () => boolean): Promise<void> {
    this.close();
    const deadline = Date.now() + timeoutMs;
    // A frame that may be overtaken (at a decoder on trial) past its time is not waited for.
    const waited = (): boolean => this.#entries.some((e) => e.state !== 'done' && !(e.overtakeAfter !== undefined && Date.now() >= e.overtakeAfter));
    while (waited() && Date.now() < deadline && canProgress()) await new Promise((r) => setTimeout(r, 5));
    this.dropUnfinished();
  }

  /** Drops every entry that is not done (used when a drain times out). */
  dropUnfinished(): void {
    for (const e of [...this.#entries]) if (e.state !== 'done') this.abandon(e.id);
    this.#deliver();
  }

  /** The channel-independent part of ChannelStats, from this queue's counters. */
  stats(channel: string, decoderRestarts: number): ChannelStats {
    return {
      channel,
      submitted: this.submitted,
      delivered: this.delivered,
      dropped: this.dropped,
      decodeErrors: this.decodeErrors,
      decoderRestarts,
      inFlight: this.size,
      maxInFlight: this.#max,
    };
  }

  /** True when nothing is waiting for or at a decoder. */
  get idle(): boolean {
    return this.#entries.every((e) => e.state === 'done');
  }
}
