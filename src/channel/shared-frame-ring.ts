// Memory layout of the shared-memory channel: a fixed ring of RGBA frame slots in one SharedArrayBuffer,
// plus a small control buffer (slot states, per-slot results, a completion counter), used by both sides.

import type { DecodeScale } from '../decode/decode-scale.js';
import { waitAsync } from './wait-async.js';

/** Slot states. The analyzer's thread owns FREE→DECODING and READY/FAILED→HELD→FREE; a decoder owns DECODING→READY/FAILED. */
export const SLOT_FREE = 0;
export const SLOT_DECODING = 1;
export const SLOT_READY = 2;
export const SLOT_FAILED = 3;
export const SLOT_HELD = 4;

const DECODE_CODES = ['TC_ERR_DECODE_NOT_JPEG', 'TC_ERR_DECODE_CORRUPT', 'TC_ERR_DECODE_TOO_LARGE', 'TC_ERR_DECODE_SIZE_MISMATCH'] as const;

// Control buffer: Int32 [0] = completion counter (the word the analyzer waits on), then per slot
// META_INTS ints; then per slot one Float64 (decode time).
const HEADER_INTS = 2; // counter + padding so the Float64 area stays 8-byte aligned
// state, width, height, error code index, error message length, decode scale, decoding thread, padding: an even
// count, so that the Float64 area after them stays 8-byte aligned whatever the number of slots.
const META_INTS = 8;
const F_STATE = 0;
const F_WIDTH = 1;
const F_HEIGHT = 2;
const F_CODE = 3;
const F_MSGLEN = 4;
const F_SCALE = 5;
const F_THREAD = 6;

export interface SlotFrame {
  readonly width: number;
  readonly height: number;
  readonly scale: DecodeScale;
  readonly decodeMs: number;
}

export class SharedFrameRing {
  readonly slotCount: number;
  readonly slotBytes: number;
  readonly control: SharedArrayBuffer;
  readonly pixelBuffer: SharedArrayBuffer;
  readonly #i32: Int32Array;
  readonly #f64: Float64Array;
  // One full-slot view per slot, made once: frames are subarrays of these (no per-frame buffers).
  readonly #views: Uint8Array[];

  private constructor(control: SharedArrayBuffer, pixels: SharedArrayBuffer, slotCount: number, slotBytes: number) {
    this.slotCount = slotCount;
    this.slotBytes = slotBytes;
    this.control = control;
    this.pixelBuffer = pixels;
    const ints = HEADER_INTS + slotCount * META_INTS;
    this.#i32 = new Int32Array(control, 0, ints);
    this.#f64 = new Float64Array(control, ints * 4, slotCount);
    this.#views = Array.from({ length: slotCount }, (_, i) => new Uint8Array(pixels, i * slotBytes, slotBytes));
  }

  /** Allocates the ring (analyzer side). */
  static create(slotCount: number, slotBytes: number): SharedFrameRing {
    const ints = HEADER_INTS + slotCount * META_INTS;
    const control = new SharedArrayBuffer(ints * 4 + slotCount * 8);
    return new SharedFrameRing(control, new SharedArrayBuffer(slotCount * slotBytes), slotCount, slotBytes);
  }

  /** Maps a ring created by the other side (decoder worker). */
  static attach(control: SharedArrayBuffer, pixels: SharedArrayBuffer, slotCount: number, slotBytes: number): SharedFrameRing {
    return new SharedFrameRing(control, pixels, slotCount, slotBytes);
  }

  state(slot: number): number {
    return Atomics.load(this.#i32, HEADER_INTS + slot * META_INTS + F_STATE);
  }

  setState(slot: number, state: number): void {
    Atomics.store(this.#i32, HEADER_INTS + slot * META_INTS + F_STATE, state);
  }

  /** Analyzer: the slot is handed to a decoder (no thread has taken it yet). */
  dispatch(slot: number): void {
    Atomics.store(this.#i32, HEADER_INTS + slot * META_INTS + F_THREAD, 0);
    this.setState(slot, SLOT_DECODING);
  }

  /** Decoder: thread `threadId` decodes this slot's frame (so a hung one can be found and terminated). */
  claim(slot: number, threadId: number): void {
    Atomics.store(this.#i32, HEADER_INTS + slot * META_INTS + F_THREAD, threadId);
  }

  /** The thread decoding this slot's frame, 0 while none has taken it. */
  thread(slot: number): number {
    return Atomics.load(this.#i32, HEADER_INTS + slot * META_INTS + F_THREAD);
  }

  /** The first `length` bytes of a slot. */
  view(slot: number, length = this.slotBytes): Uint8Array {
    const v = this.#views[slot]!;
    return length === this.slotBytes ? v : v.subarray(0, length);
  }

  /** Decoder: the slot holds a width x height RGBA frame decoded at 1/scale; wakes the analyzer. */
  publishFrame(slot: number, width: number, height: number, scale: DecodeScale, decodeMs: number): void {
    const b = HEADER_INTS + slot * META_INTS;
    this.#i32[b + F_WIDTH] = width;
    this.#i32[b + F_HEIGHT] = height;
    this.#i32[b + F_SCALE] = scale;
    this.#f64[slot] = decodeMs;
    this.#signal(slot, SLOT_READY);
  }

  /** Decoder: the JPEG was rejected; the message travels in the slot's bytes. */
  publishError(slot: number, code: string, message: string, decodeMs: number): void {
    const b = HEADER_INTS + slot * META_INTS;
    const idx = DECODE_CODES.indexOf(code as (typeof DECODE_CODES)[number]);
    const { written } = new TextEncoder().encodeInto(message, this.#views[slot]!);
    this.#i32[b + F_CODE] = idx < 0 ? 1 : idx;
    this.#i32[b + F_MSGLEN] = written;
    this.#f64[slot] = decodeMs;
    this.#signal(slot, SLOT_FAILED);
  }

  #signal(slot: number, state: number): void {
    // The state store is the release point: everything written above is visible once it is seen.
    Atomics.store(this.#i32, HEADER_INTS + slot * META_INTS + F_STATE, state);
    Atomics.add(this.#i32, 0, 1);
    Atomics.notify(this.#i32, 0);
  }

  readFrame(slot: number): SlotFrame {
    const b = HEADER_INTS + slot * META_INTS;
    return { width: this.#i32[b + F_WIDTH]!, height: this.#i32[b + F_HEIGHT]!, scale: this.#i32[b + F_SCALE] as DecodeScale, decodeMs: this.#f64[slot]! };
  }

  readError(slot: number): { code: string; message: string } {
    const b = HEADER_INTS + slot * META_INTS;
    const len = this.#i32[b + F_MSGLEN]!;
    // TextDecoder refuses SharedArrayBuffer views; copy the (short) message out first.
    const message = new TextDecoder().decode(this.#views[slot]!.slice(0, len));
    return { code: DECODE_CODES[this.#i32[b + F_CODE]!] ?? 'TC_ERR_DECODE_CORRUPT', message };
  }

  /** Number of completions published so far (wraps; compare for equality only). */
  get completions(): number {
    return Atomics.load(this.#i32, 0);
  }

  /**
   * Resolves once the completion counter differs from `seen`, without blocking the thread
   * (Atomics.waitAsync; the analyzer's thread must never Atomics.wait).
   */
  async changed(seen: number): Promise<void> {
    await waitAsync(this.#i32, 0, seen);
  }

  /** Wakes a pending changed() (used by close()). */
  wake(): void {
    Atomics.add(this.#i32, 0, 1);
    Atomics.notify(this.#i32, 0);
  }
}
