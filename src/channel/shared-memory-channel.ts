// FrameChannel over shared memory: piscina worker threads decode JPEGs into slots of one SharedArrayBuffer
// ring; the hand-off to the analyzer is a slot index plus Atomics, awaited with Atomics.waitAsync.

import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { ChannelError, TrafficCounterError } from '../errors.js';
import { createDecoder } from '../decode/decode-jpeg.js';
import { DECODER_NICE } from '../decode/decoder-priority.js';
import { stripUndefined, type ChannelStats, type FrameAtDecoder, type FrameChannel, type FrameChannelOptions } from './frame-channel.js';
import { InFlightQueue, decodeRequest, type InFlightEntry } from './in-flight-queue.js';
import { heldFrameNote, Watchdog } from './watchdog.js';
import type { ChannelOutput, DecodeLimits, DecodedFrame, JpegFrame, SharedDecodeTask, SharedRingInit } from './messages.js';
import type { DecodeScale } from '../decode/decode-scale.js';
import { SharedFrameRing, SLOT_DECODING, SLOT_FAILED, SLOT_FREE, SLOT_HELD, SLOT_READY } from './shared-frame-ring.js';

const WORKER_FILE = fileURLToPath(new URL('../decode/shared-decode-worker.js', import.meta.url));

export interface SharedMemoryChannelOptions extends FrameChannelOptions {
  /** Largest frame a slot holds (pixels = width x height); a larger frame is a TC_ERR_DECODE_SIZE_MISMATCH decode error. */
  readonly maxFrameWidth?: number;
  readonly maxFrameHeight?: number;
  /** Frames the consumer may hold (delivered, not yet released) beyond maxInFlight; extra slots in the ring. */
  readonly heldFrames?: number;
  /** How long start() waits for the decoder threads to load. */
  readonly startTimeoutMs?: number;
  /** Niceness added to decoder threads, so the analyzer wins the CPU (default 10; 0 = same priority). */
  readonly decoderNice?: number;
  /**
   * A frame not decoded within this time (default 10 s, ~300× a jpeg-js decode of 1280x720) is dropped and its
   * thread terminated; piscina starts another. Its slot is reused once the thread has exited.
   */
  readonly decodeTimeoutMs?: number;
  /** The decoder threads' entry file (default: dist/src/decode/shared-decode-worker.js; tests wrap it). */
  readonly decoderFile?: string;
}

const DEFAULTS = {
  maxFrameWidth: 1920, // px; a 1920x1080 slot is 8.3 MB, so 6 slots are ~50 MB of shared memory
  maxFrameHeight: 1080, // px
  heldFrames: 2, // frames the analyzer may keep before release()
  startTimeoutMs: 15_000,
  decoderNice: DECODER_NICE,
  decodeTimeoutMs: 10_000, // ms a decode may take before its thread is taken for hung
  decoderFile: WORKER_FILE,
  decodeScale: 1 as DecodeScale, // full-size frames; at N the decoders hand over 1/N and slots are that much smaller
};

export class SharedMemoryChannel implements FrameChannel {
  readonly name = 'shared';
  readonly #opts: FrameChannelOptions & typeof DEFAULTS;
  readonly #queue: InFlightQueue;
  readonly #ring: SharedFrameRing;
  /** In-flight entry id whose frame is in each slot (0 = none). */
  readonly #slotJob: number[];
  /** When each slot's decode task was posted (Infinity once its thread is being terminated). */
  readonly #slotSince: number[];
  #pool: Piscina<SharedDecodeTask, void> | undefined;
  #running = 0;
  #created = 0;
  #started: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #stopped = false;
  #watchdog: Watchdog | undefined;

  constructor(opts: SharedMemoryChannelOptions) {
    this.#opts = { ...DEFAULTS, ...stripUndefined(opts), maxInFlight: opts.maxInFlight, decoders: opts.decoders, decoder: opts.decoder };
    const { maxFrameWidth: w, maxFrameHeight: h, heldFrames } = this.#opts;
    if (!(Number.isInteger(w) && w > 0 && Number.isInteger(h) && h > 0)) {
      throw new RangeError(`shared channel: maxFrameWidth/maxFrameHeight must be positive integers, got ${w}x${h}`);
    }
    if (!Number.isInteger(opts.decoders) || opts.decoders < 1) throw new RangeError(`shared channel: decoders must be an integer >= 1, got ${opts.decoders}`);
    this.#queue = new InFlightQueue(opts.maxInFlight, opts.onDropped);
    // maxFrameWidth/Height are full-size pixels; a frame decoded at 1/N (rounded up) needs 1/N² of them.
    const scale = this.#opts.decodeScale;
    this.#ring = SharedFrameRing.create(opts.maxInFlight + heldFrames, Math.ceil(w / scale) * Math.ceil(h / scale) * 4);
    this.#slotJob = new Array<number>(this.#ring.slotCount).fill(0);
    this.#slotSince = new Array<number>(this.#ring.slotCount).fill(0);
  }

  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<void> {
    // Load the decoder here first: it fails early with a clear message if an optional one is missing, and native
    // addons must stay loaded by the main thread while worker threads use them.
    await createDecoder(this.#opts.decoder);
    const init: SharedRingInit = {
      control: this.#ring.control,
      pixels: this.#ring.pixelBuffer,
      slotCount: this.#ring.slotCount,
      slotBytes: this.#ring.slotBytes,
      // The slot size is not a setting (neither the config nor the command line has one): the fix is another channel.
      slotHint: `the shared channel takes frames of up to ${(this.#opts.maxFrameWidth * this.#opts.maxFrameHeight).toLocaleString('en-US')} pixels (${this.#opts.maxFrameWidth}x${this.#opts.maxFrameHeight}); count this camera over the ipc or zeromq channel ("channel" in the config, --channel ipc)`,
      decoder: this.#opts.decoder,
    };
    const pool = new Piscina<SharedDecodeTask, void>({
      filename: this.#opts.decoderFile,
      minThreads: this.#opts.decoders,
      maxThreads: this.#opts.decoders,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Tasks are only posted for a free slot, so this bound is never the one that bites.
      maxQueue: this.#ring.slotCount,
      workerData: init,
      niceIncrement: this.#opts.decoderNice, // per thread on Linux (through piscina's optional @napi-rs/nice)
    });
    this.#pool = pool;
    // Piscina replaces a worker that dies; every creation beyond the first set is a restart.
    pool.on('workerCreate', () => this.#created++);
    pool.on('error', (err: unknown) => process.emitWarning(`shared channel: decoder thread error: ${String(err)}`));
    void this.#watch();
    this.#watchdog = new Watchdog(this.#opts.decodeTimeoutMs, (now, onTime) => this.#checkTimeouts(now, onTime));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ChannelError('TC_ERR_CHANNEL_START', `shared channel: decoder threads did not start within ${this.#opts.startTimeoutMs} ms`)),
        this.#opts.startTimeoutMs,
      );
    });
    try {
      await Promise.race([Promise.all(Array.from({ length: this.#opts.decoders }, () => pool.run({ type: 'init' }))), timeout]);
    } catch (err) {
      if (err instanceof TrafficCounterError) throw err;
      throw new ChannelError('TC_ERR_CHANNEL_START', `shared channel: cannot start decoder threads: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Collects published slots whenever the completion counter moves; runs until close. */
  async #watch(): Promise<void> {
    let seen = this.#ring.completions;
    while (!this.#stopped) {
      await this.#ring.changed(seen);
      seen = this.#ring.completions;
      this.#collect();
    }
  }

  #collect(): void {
    for (let slot = 0; slot < this.#ring.slotCount; slot++) {
      const state = this.#ring.state(slot);
      if (state === SLOT_READY || state === SLOT_FAILED) this.#finish(slot, state);
    }
    this.#pump();
  }

  #finish(slot: number, state: number): void {
    const id = this.#slotJob[slot]!;
    const entry = this.#queue.get(id);
    this.#running--;
    if (state === SLOT_FAILED) {
      const { code, message } = this.#ring.readError(slot);
      this.#freeSlot(slot);
      if (!entry) return;
      const f = entry.frame;
      this.#queue.complete(id, { kind: 'error', failure: { type: 'decode-error', cameraId: f.cameraId, seq: f.seq, capturedAt: f.capturedAt, code, message } });
      return;
    }
    this.#ring.setState(slot, SLOT_HELD);
    const { width, height, scale, decodeMs } = this.#ring.readFrame(slot);
    const f = entry?.frame;
    let released = false;
    const frame: DecodedFrame = {
      cameraId: f?.cameraId ?? '',
      seq: f?.seq ?? -1,
      capturedAt: f?.capturedAt ?? 0,
      width,
      height,
      scale,
      data: this.#ring.view(slot, width * height * 4),
      decodeMs,
      release: () => {
        if (released) return;
        released = true;
        this.#freeSlot(slot);
        this.#pump();
      },
    };
    // complete() releases the frame itself if the entry was dropped meanwhile.
    this.#queue.complete(id, { kind: 'frame', frame });
  }

  #freeSlot(slot: number): void {
    this.#slotJob[slot] = 0;
    this.#ring.setState(slot, SLOT_FREE);
  }

  #pump(): void {
    const pool = this.#pool;
    if (!pool || this.#stopped) return;
    while (this.#running < this.#opts.decoders) {
      const entry = this.#queue.nextPending();
      if (!entry) return;
      const slot = this.#freeSlotIndex();
      if (slot < 0) return; // every slot is decoding, waiting or held by the consumer
      this.#dispatch(pool, entry, slot);
    }
  }

  #freeSlotIndex(): number {
    for (let s = 0; s < this.#ring.slotCount; s++) if (this.#ring.state(s) === SLOT_FREE) return s;
    return -1;
  }

  #dispatch(pool: Piscina<SharedDecodeTask, void>, entry: InFlightEntry, slot: number): void {
    const f = entry.frame;
    this.#queue.toDecoder(entry, slot);
    this.#slotJob[slot] = entry.id;
    this.#slotSince[slot] = Date.now();
    this.#ring.dispatch(slot);
    this.#running++;
    const req = decodeRequest(entry, this.#opts.decodeScale);
    pool.run({ type: 'decode', slot, req, jpeg: f.jpeg }).catch((err: unknown) => this.#onTaskFailed(slot, entry.id, err));
  }

  /** The worker died (or was terminated) with this task; piscina starts a replacement. */
  #onTaskFailed(slot: number, id: number, err: unknown): void {
    if (this.#slotJob[slot] !== id) return;
    const state = this.#ring.state(slot);
    if (state !== SLOT_DECODING) {
      this.#collect(); // it published before dying; deliver normally
      return;
    }
    this.#running--;
    this.#freeSlot(slot);
    // Not retried: the frame may be what killed the decoder. Counted as dropped.
    this.#queue.abandon(id);
    if (!this.#closing) process.emitWarning(`shared channel: decoder thread failed (${(err as Error)?.message ?? String(err)}); piscina restarts it`);
    this.#pump();
  }

  /**
   * A thread that holds a slot past decodeTimeoutMs is hung (stuck in a loop or a wait): it would keep its slot and
   * its share of the decoders for good, and with one decoder stop all counting (as a stopped ipc decoder did: 72 s
   * with nothing analysed). Its frame is dropped at once, so the frames behind it are delivered, and the thread is
   * terminated; piscina starts another, and #onTaskFailed frees the slot only when the task fails with the thread's
   * exit, so a decode still under way never writes into a slot given to another frame. A thread stuck inside native
   * code cannot be terminated (V8 stops it only when it is back in JavaScript): its slot and its place stay taken.
   */
  #checkTimeouts(now: number, onTime: boolean): void {
    const pool = this.#pool;
    // A late tick (see Watchdog) may run before decodes that are done are collected: no thread is judged on it.
    if (!onTime || !pool || this.#stopped) return;
    for (let slot = 0; slot < this.#ring.slotCount; slot++) {
      if (this.#ring.state(slot) !== SLOT_DECODING || now - this.#slotSince[slot]! < this.#opts.decodeTimeoutMs) continue;
      const id = this.#ring.thread(slot);
      // A task no thread has taken yet waits for one that is hung: that one is judged instead.
      const thread = id === 0 ? undefined : pool.threads.find((t) => t.threadId === id);
      if (!thread) continue;
      this.#slotSince[slot] = Number.POSITIVE_INFINITY;
      const held = heldFrameNote(this.#queue.frameOf(this.#slotJob[slot]!));
      process.emitWarning(
        `shared channel: decoder thread ${id} did not answer within ${this.#opts.decodeTimeoutMs} ms${held.on}; ` +
          `it is hung (stuck), so it is terminated and replaced and its frame dropped${held.fix}`,
      );
      this.#queue.hung(this.#slotJob[slot]!, this.#opts.decodeTimeoutMs);
      void thread.terminate();
    }
  }

  submit(frame: JpegFrame, limits: DecodeLimits): void {
    this.#queue.submit(frame, limits, () => this.#pump());
  }

  next(): Promise<ChannelOutput | null> {
    return this.#queue.next();
  }

  /** Bytes of shared memory the ring holds for pixels (slots × slot size). */
  get sharedBytes(): number {
    return this.#ring.pixelBuffer.byteLength;
  }

  framesAtDecoders(): FrameAtDecoder[] {
    const now = Date.now();
    const held: FrameAtDecoder[] = [];
    for (let slot = 0; slot < this.#ring.slotCount; slot++) {
      // A slot no thread has taken yet is a frame waiting for a decoder, not one a decoder holds.
      const thread = this.#ring.state(slot) === SLOT_DECODING ? this.#ring.thread(slot) : 0;
      const frame = thread === 0 ? undefined : this.#queue.frameOf(this.#slotJob[slot]!);
      if (frame) held.push({ decoder: `decoder thread ${thread}`, frame, heldMs: now - this.#slotSince[slot]! });
    }
    return held;
  }

  stats(): ChannelStats {
    // piscina replaces a crashed thread silently: threads created beyond the pool size are restarts.
    return this.#queue.stats(this.name, Math.max(0, this.#created - this.#opts.decoders));
  }

  /** The decoder threads (for diagnostics and tests; terminating one simulates a crash). */
  decoderThreads(): readonly { terminate(): Promise<number>; threadId: number }[] {
    return this.#pool?.threads ?? [];
  }

  close(timeoutMs = 5_000): Promise<void> {
    this.#closing ??= this.#close(timeoutMs);
    return this.#closing;
  }

  async #close(timeoutMs: number): Promise<void> {
    await this.#queue.drain(timeoutMs, () => this.#pool !== undefined);
    this.#stopped = true;
    this.#watchdog?.stop();
    this.#ring.wake();
    if (this.#pool) {
      // Graceful first (a sharp decode must not be cut off mid-call), then forced.
      const pool = this.#pool;
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => void pool.destroy().then(resolve, resolve), 2_000);
      });
      await Promise.race([pool.close({ force: false }).catch(() => {}), forced]);
      clearTimeout(timer);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
