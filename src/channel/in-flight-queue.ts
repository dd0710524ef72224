// The bounded, ordered set of frames a channel has in flight, shared by every FrameChannel implementation.
// Policy: at most `max` frames between submit() and delivery; a new frame beyond that drops the oldest
// undelivered one (a live camera wants the newest frame). Delivery is in submission order.

import type { ChannelStats } from './frame-channel.js';
import type { ChannelOutput, JpegFrame } from './messages.js';

export type EntryState = 'pending' | 'decoding' | 'done';

export interface InFlightEntry {
  readonly id: number;
  readonly frame: JpegFrame;
  state: EntryState;
  output?: ChannelOutput;
  /** Set by the channel when it hands the entry to a decoder (e.g. which child). */
  worker?: number;
}

export class InFlightQueue {
  readonly #max: number;
  readonly #entries: InFlightEntry[] = [];
  readonly #waiters: ((out: ChannelOutput | null) => void)[] = [];
  readonly #onDrop: (entry: InFlightEntry) => void;
  #nextId = 1;
  #closed = false;
  submitted = 0;
  dropped = 0;
  delivered = 0;
  decodeErrors = 0;

  constructor(max: number, onDrop: (entry: InFlightEntry) => void = () => {}) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxInFlight must be an integer >= 1, got ${max}`);
    this.#max = max;
    this.#onDrop = onDrop;
  }

  get size(): number {
    return this.#entries.length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Adds a frame; if the queue is full, the oldest entry is dropped first. Returns the new entry. */
  push(frame: JpegFrame): InFlightEntry {
    this.submitted++;
    while (this.#entries.length >= this.#max) this.#dropOldest();
    const entry: InFlightEntry = { id: this.#nextId++, frame, state: 'pending' };
    this.#entries.push(entry);
    return entry;
  }

  #dropOldest(): void {
    const entry = this.#entries.shift();
    if (!entry) return;
    this.dropped++;
    if (entry.output?.kind === 'frame') entry.output.frame.release();
    this.#onDrop(entry);
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

  /** Next output in submission order; null once closed and empty. */
  next(): Promise<ChannelOutput | null> {
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#deliver();
    });
  }

  /** No more pushes; next() returns null once the remaining entries are delivered or dropped. */
  close(): void {
    this.#closed = true;
    this.#deliver();
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
