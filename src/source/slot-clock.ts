// The fixed-rate timeline of a live camera: slot k is due at t0 + k·intervalMs. Requests are aligned to it
// (missed slots are skipped, never replayed in a burst) and onSlot ticks once per slot, outage or not.

export interface SlotClockOptions {
  readonly intervalMs: number;
  readonly now: () => number;
  /**
   * Slot 0 is due this long after the first start() (ms, default 0). The daemon spreads its snapshot cameras' polls
   * over the poll interval with it, so their JPEGs do not reach the decoders all at once.
   */
  readonly offsetMs?: number;
  /** Called once per slot, in order, while the clock runs. */
  readonly onSlot?: (timeMs: number) => void;
}

export class SlotClock {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #onSlot?: (timeMs: number) => void;
  readonly #offsetMs: number;
  #t0: number | undefined;
  /** Index of the next slot to report to onSlot. */
  #nextTick = 0;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** Open iterators using the clock; it ticks while there is at least one. */
  #users = 0;

  constructor(opts: SlotClockOptions) {
    this.#intervalMs = opts.intervalMs;
    this.#now = opts.now;
    this.#onSlot = opts.onSlot;
    const offset = opts.offsetMs ?? 0;
    if (!(offset >= 0 && Number.isFinite(offset))) throw new RangeError(`SlotClock offsetMs: must be a number of ms >= 0, got ${String(offset)}`);
    this.#offsetMs = offset;
  }

  /**
   * Fixes t0 on the first call (now + offsetMs); (re)starts ticking from the current slot. Slots passed while stopped are not
   * reported. Returns the time of the first slot not yet reported when it was called (slot 0, t0, on the first
   * call): the slot a new user should request first, so that no slot is expected that nobody asked for.
   */
  start(): number {
    this.#users++;
    const now = this.#now();
    if (this.#t0 === undefined) this.#t0 = now + this.#offsetMs;
    // Already ticking for another user: its timer stays the only one.
    if (this.#running) return this.#slotTime(this.#nextTick);
    this.#running = true;
    this.#nextTick = Math.max(this.#nextTick, this.#indexAtOrAfter(now));
    const first = this.#slotTime(this.#nextTick);
    this.#tick();
    return first;
  }

  /** One user is done; ticking stops when none is left. */
  stop(): void {
    this.#users = Math.max(0, this.#users - 1);
    if (this.#users === 0) this.halt();
  }

  /** Stops ticking regardless of users (the source is closing). */
  halt(): void {
    this.#users = 0;
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Whether the slot due at `t` has been reported to onSlot. */
  hasReported(t: number): boolean {
    return this.#t0 !== undefined && t < this.#slotTime(this.#nextTick);
  }

  /** Time of the last slot reported to onSlot, or undefined before the first. */
  lastReported(): number | undefined {
    return this.#t0 !== undefined && this.#nextTick > 0 ? this.#slotTime(this.#nextTick - 1) : undefined;
  }

  /** Time of the first slot at or after `t` (t0 is fixed by start()). */
  slotAtOrAfter(t: number): number {
    return this.#slotTime(this.#indexAtOrAfter(t));
  }

  #indexAtOrAfter(t: number): number {
    const t0 = this.#t0 ?? t;
    return Math.max(0, Math.ceil((t - t0) / this.#intervalMs));
  }

  #slotTime(k: number): number {
    return (this.#t0 ?? 0) + k * this.#intervalMs;
  }

  #tick(): void {
    if (!this.#running) return;
    this.#timer = undefined;
    const now = this.#now();
    // Report every slot that is due (a late timer reports the ones it overslept, each with its own time).
    while (this.#running && this.#slotTime(this.#nextTick) <= now) {
      const t = this.#slotTime(this.#nextTick++);
      try {
        this.#onSlot?.(t);
      } catch (err) {
        process.emitWarning(`onSlot callback threw: ${String(err)}`);
      }
    }
    if (!this.#running || !this.#onSlot) return;
    const wait = Math.max(1, this.#slotTime(this.#nextTick) - this.#now());
    this.#timer = setTimeout(() => this.#tick(), wait);
    // The source's own request or sleep keeps the process alive while it is in use; the ticker must not.
    this.#timer.unref();
  }
}
