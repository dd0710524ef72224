// Message shapes that cross thread and process boundaries, in one place for every channel.

import type { DecoderName } from '../decode/decoder-name.js';
import type { DecodeScale } from '../decode/decode-scale.js';

/** A JPEG to decode, as produced by a frame source. */
export interface JpegFrame {
  readonly cameraId: string;
  /** Per-camera sequence number, increasing by one per frame the source yields, from 1. */
  readonly seq: number;
  /** Capture time, ms since the Unix epoch. */
  readonly capturedAt: number;
  readonly jpeg: Uint8Array;
}

/** Limits the decoder enforces on untrusted JPEG input. */
export interface DecodeLimits {
  readonly maxMegapixels: number;
  readonly maxDecodeMemoryMB: number;
}

/** A JPEG decode request as sent to a decoder (the jpeg bytes travel beside it where the transport allows). */
export interface DecodeRequest {
  readonly type: 'decode';
  readonly cameraId: string;
  readonly seq: number;
  readonly capturedAt: number;
  readonly limits: DecodeLimits;
  /** Decode at 1/scale (the config's decodeScale); the frame's header says what the decoder did. */
  readonly scale: DecodeScale;
}

/** Header of a decoded frame (the RGBA pixels travel beside it). */
export interface FrameHeader {
  readonly type: 'frame';
  readonly cameraId: string;
  readonly seq: number;
  readonly capturedAt: number;
  readonly width: number;
  readonly height: number;
  /** Full-resolution pixels per frame pixel (1 = full size); the analyzer maps config coordinates with it. */
  readonly scale: DecodeScale;
  /** Wall-clock time decoding took in the decoder, ms. */
  readonly decodeMs: number;
}

/** A decoder's report that a JPEG was rejected. */
export interface DecodeFailure {
  readonly type: 'decode-error';
  readonly cameraId: string;
  readonly seq: number;
  readonly capturedAt: number;
  /** A DecodeError code, e.g. TC_ERR_DECODE_CORRUPT. */
  readonly code: string;
  readonly message: string;
}

/** A decoded RGBA frame handed to the analyzer. */
export interface DecodedFrame {
  readonly cameraId: string;
  readonly seq: number;
  readonly capturedAt: number;
  readonly width: number;
  readonly height: number;
  /** Full-resolution pixels per frame pixel, from the frame header. */
  readonly scale: DecodeScale;
  /** width * height * 4 bytes, RGBA. Valid only until release() is called. */
  readonly data: Uint8Array;
  readonly decodeMs: number;
  /** Returns the buffer to the channel (shared-memory slots are recycled); idempotent. */
  release(): void;
}

/** What a channel delivers: a decoded frame or a decode failure. */
export type ChannelOutput = { readonly kind: 'frame'; readonly frame: DecodedFrame } | { readonly kind: 'error'; readonly failure: DecodeFailure };

/** Parent → decoder child (ipc channel). In 'json' serialization Buffers arrive as {type:'Buffer', data:[...]}. */
export type IpcToChild =
  | { readonly type: 'init'; readonly decoder: DecoderName }
  | { readonly type: 'decode'; readonly job: number; readonly req: DecodeRequest; readonly jpeg: Uint8Array };

/** Decoder child → parent (ipc channel). */
export type IpcFromChild =
  | { readonly type: 'ready' }
  | { readonly type: 'frame'; readonly job: number; readonly header: FrameHeader; readonly pixels: Uint8Array }
  | { readonly type: 'decode-error'; readonly job: number; readonly failure: DecodeFailure };

/**
 * Analyzer → decoder over zeromq (analyzer ROUTER → decoder DEALER). Multipart: [JSON of this, JPEG bytes].
 * A decoder holds at most one job: it is sent only to a decoder that announced itself idle.
 */
export interface ZmqDecodeJob {
  readonly type: 'decode';
  readonly job: number;
  readonly req: DecodeRequest;
}

/**
 * Decoder → analyzer over zeromq (DEALER → ROUTER). Multipart: [JSON of this] or, for 'frame',
 * [JSON of this, RGBA pixels]. Every message except 'bye' also means "idle, send the next job".
 */
export type ZmqFromDecoder =
  | { readonly type: 'ready'; readonly decoder: DecoderName; readonly pid: number; readonly host: string }
  | { readonly type: 'frame'; readonly job: number; readonly header: FrameHeader }
  | { readonly type: 'decode-error'; readonly job: number; readonly failure: DecodeFailure }
  | { readonly type: 'bye' };

/** Shared-memory channel: what every decoder worker thread gets at start (piscina workerData). */
export interface SharedRingInit {
  /** Slot states, per-slot results and the completion counter (see src/channel/shared-frame-ring.ts). */
  readonly control: SharedArrayBuffer;
  /** slotCount * slotBytes of RGBA pixels. */
  readonly pixels: SharedArrayBuffer;
  readonly slotCount: number;
  readonly slotBytes: number;
  /** Names the option to raise when a frame does not fit a slot. */
  readonly slotHint: string;
  readonly decoder: DecoderName;
}

/** Shared-memory channel: one decode task (piscina run()); the result comes back through the ring, not the task. */
export type SharedDecodeTask =
  | { readonly type: 'init' }
  | { readonly type: 'decode'; readonly slot: number; readonly req: DecodeRequest; readonly jpeg: Uint8Array };
