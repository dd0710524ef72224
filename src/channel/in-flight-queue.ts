// The bounded, ordered set of frames a channel has in flight, shared by every FrameChannel implementation.
// Policy: at most `max` frames between submit() and delivery; a new frame beyond that drops the oldest
// undelivered one (a live camera wants the newest frame). Delivery is in submission order.
// Everything a channel knows about a frame lives on its entry, so it goes when the entry leaves the queue
// (delivered, dropped or abandoned) and no channel keeps a side table to clean up.

import type { ChannelStats } from './frame-channel.js';
import type { ChannelOutput, DecodeLimits, DecodeRequest, JpegFrame } from './messages.js';
import type { DecodeScale } from '../decode/decode-scale.js';

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
}

/** The request a decoder gets for an entry: its frame's identity, its limits, and the channel's decode scale. */
export function decodeRequest(entry: InFlightEntry, scale: DecodeScale): DecodeRequest {
  const f = entry.frame;
  return { type: 'decode', cameraId: f.cameraId, seq: f.seq, capturedAt: f.capturedAt, limits: entry.limits, scale };
}

export class InFlightQueue {
  readonly #max: number;
  readonly #entries: InFlightEntry[] = [];
  readonly #waiters: ((out: ChannelOutput | null) => void)[] = [];
  #nextId = 1;
  #closed = false;
  submitted = 0;
  dropped = 0;
  delivered = 0;
  decodeErrors = 0;

  constructor(max: number) {
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

  /** Adds a frame; if the queue is full, the oldest entry is dropped first. Returns the new entry. */
  push(frame: JpegFrame, limits: DecodeLimits): InFlightEntry {
    this.submitted++;
    while (this.#entries.length >= this.#max) this.#dropOldest();
    const entry: InFlightEntry = { id: this.#nextId++, frame, limits, state: 'pending' };
    this.#entries.push(entry);
    return entry;
  }

  #dropOldest(): void {
    const entry = this.#entries.shift();
    if (!entry) return;
    this.dropped++;
    if (entry.output?.kind === 'frame') entry.output.frame.release();
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

  /** Records a decoder's result; ignored (and the frame released) if the entry was dropped meanwhile. */
  complete(id: number, output: ChannelOutput): void {
    const entry = this.get(id);
    if (!entry) {
      if (output.kind === 'frame') output.frame.release();
      return;
    }
    entry.state = 'done';
    entry.output = output;
    this.#deliver();
  }

  /** Removes an entry without delivering it (e.g. its decoder died), counting it as dropped. */
  abandon(id: number): void {
    const i = this.#entries.findIndex((e) => e.id === id);
    if (i < 0) return;
    const [entry] = this.#entries.splice(i, 1);
    this.dropped++;
    if (entry!.output?.kind === 'frame') entry!.output.frame.release();
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
        this.#waiters.shift()!(out);
      } else if (!head && this.#closed) {
        this.#waiters.shift()!(null);
      } else {
        return;
      }
    }
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
    while (!this.idle && Date.now() < deadline && canProgress()) await new Promise((r) => setTimeout(r, 5));
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
    };
  }

  /** True when nothing is waiting for or at a decoder. */
  get idle(): boolean {
    return this.#entries.every((e) => e.state === 'done');
  }
}
