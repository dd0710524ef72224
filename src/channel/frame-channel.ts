// The one interface every frame channel (ipc, zeromq, shared) implements; see test/channel-contract.test.ts.

import type { DecoderName } from '../decode/decoder-name.js';
import type { ChannelOutput, JpegFrame } from './messages.js';
import type { DecodeScale } from '../decode/decode-scale.js';

export interface ChannelStats {
  readonly channel: string;
  /** JPEGs accepted by submit(). */
  submitted: number;
  /** Frames decoded and delivered to the consumer. */
  delivered: number;
  /** Frames dropped because the consumer or the decoders fell behind (see InFlightQueue's policy). */
  dropped: number;
  /** JPEGs the decoder rejected (corrupt, not JPEG, too large). */
  decodeErrors: number;
  /** Decoder processes/threads restarted after a crash. */
  decoderRestarts: number;
  /** Frames currently in flight (submitted, not yet delivered or dropped). */
  inFlight: number;
  /** The most frames in flight now; beyond it one is dropped (zeromq: grows with the decoders connected). */
  maxInFlight: number;
  /** zeromq over tcp://: where remote decoders connect (`traffic-counter decoder --connect`), the port as bound. */
  endpoint?: string;
  /**
   * zeromq over tcp://: remote decoders connected now, and when one was last lost (ms since the epoch; null: none
   * yet): it left ('bye'), fell silent, did not answer in time, or could not be sent to.
   */
  remoteDecoders?: number;
  remoteDecoderLostAt?: number | null;
}

/** A frame a decoder holds now: which decoder (as its warnings name it), and for how long (ms). */
export interface FrameAtDecoder {
  readonly decoder: string;
  readonly frame: JpegFrame;
  readonly heldMs: number;
}

export interface FrameChannelOptions {
  /** Maximum frames in flight (queued for decode, decoding, or decoded but undelivered). Beyond it one is dropped (see InFlightQueue). */
  readonly maxInFlight: number;
  /** Number of decoder processes/threads. */
  readonly decoders: number;
  readonly decoder: DecoderName;
  /** Frames are decoded at 1/decodeScale (default 1, full size); each frame's `scale` says so. */
  readonly decodeScale?: DecodeScale;
  /**
   * Told of each frame the channel drops, when it drops it (its camera's count of drops, placed in time). Called
   * from within submit(), next() or close(); must not throw.
   */
  readonly onDropped?: (frame: JpegFrame) => void;
}

/**
 * Moves JPEGs to decoders and decoded frames back to the analyzer.
 * Backpressure policy: at most `maxInFlight` frames are in flight; when a new JPEG arrives and the
 * limit is reached, a frame not at a decoder is dropped, from the camera that had the largest share of the frames
 * delivered lately (its oldest; see InFlightQueue), and counted in stats.dropped
 * (a live camera wants the newest frame).
 */
export interface FrameChannel extends AsyncDisposable {
  readonly name: string;
  /** Starts decoders; resolves when the channel can accept frames. */
  start(): Promise<void>;
  /** Hands a JPEG to the decoders. Never blocks and never queues without limit. */
  submit(frame: JpegFrame, limits: { maxMegapixels: number; maxDecodeMemoryMB: number }): void;
  /** Next decoded frame or decode failure, in submission order per camera; null once closed and drained. */
  next(): Promise<ChannelOutput | null>;
  stats(): ChannelStats;
  /** The frames at decoders now, each with the decoder holding it (what a close waits for; see Daemon.closeWaitingFor). */
  framesAtDecoders(): FrameAtDecoder[];
  /** Stops accepting frames, drains what is in flight for at most `timeoutMs`, stops decoders. Idempotent. */
  close(timeoutMs?: number): Promise<void>;
}

/** The options object without its undefined keys, so spreading it over defaults keeps the defaults. */
export function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
