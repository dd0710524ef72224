// The shape of a validated, frozen configuration.

import type { DecoderName } from '../decode/decoder-name.js';
import type { DecodeScale } from '../decode/decode-scale.js';

export type Point = readonly [number, number];

export interface LineConfig {
  readonly id: string;
  readonly from: Point;
  readonly to: Point;
}

export interface CameraConfig {
  readonly id: string;
  /** Snapshot URL (http/https) or MJPEG stream URL; not needed for replay/eval. */
  readonly url?: string;
  /** 'snapshot' polls the URL; 'mjpeg' reads a multipart/x-mixed-replace stream. Default: guessed from the URL. */
  readonly kind: 'snapshot' | 'mjpeg';
  readonly pollIntervalMs: number;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  readonly maxMegapixels: number;
  readonly maxDecodeMemoryMB: number;
  /** A camera that answers but has sent no new image for this long is reported frozen (log, /api/health). */
  readonly frozenAfterMs: number;
  /** https only: the SHA-256 fingerprint ("AB:CD:…", 32 bytes) of the camera's certificate, accepted instead of a CA's word. */
  readonly tlsFingerprint?: string;
  /** https only: accept any certificate (validated configs say false when unset). */
  readonly tlsInsecure?: boolean;
  readonly roi: readonly Point[];
  readonly lines: readonly LineConfig[];
  /**
   * [width, height] of the full-size frame the ROI and lines were drawn on; frames of another size of the same
   * shape get them scaled. Default: the camera's first analysed frame.
   */
  readonly drawnOn?: readonly [number, number];
  /** Analyzer tunables (see src/analyze/analyzer-options.ts); unspecified keys take defaults. */
  readonly analyzer: Readonly<Record<string, number | boolean>>;
}

export interface Config {
  readonly cameras: readonly CameraConfig[];
  readonly db: string;
  readonly channel: 'ipc' | 'zeromq' | 'shared';
  readonly ipcSerialization: 'advanced' | 'json';
  readonly zeromqEndpoint: string;
  /** The zeromq channel's key file (CURVE; see src/channel/zeromq-key.ts); '' = none. */
  readonly zeromqKeyFile: string;
  readonly decoder: DecoderName;
  readonly decoders: number;
  /** Decoders hand over frames at 1/decodeScale; every camera's analyzer.downscale is a multiple of it. */
  readonly decodeScale: DecodeScale;
  readonly maxFramesInFlight: number;
  /** A decoder holding one frame this long is hung: the frame is dropped and the decoder replaced (ms). */
  readonly decodeTimeoutMs: number;
  readonly flushIntervalMs: number;
  readonly httpHost: string;
  readonly httpPort: number;
  /** Host names (lower case) the HTTP API answers to besides IP addresses, localhost and httpHost (DNS rebinding). */
  readonly httpAllowedHosts: readonly string[];
  /**
   * The daemon deletes crossing details (the events table) older than this many days, at start and every hour;
   * 0 keeps them all. The counts (minute/hour/day roll-ups) and uptime are never deleted.
   */
  readonly eventRetentionDays: number;
}
