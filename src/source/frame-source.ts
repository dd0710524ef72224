// The contract every frame source (HTTP snapshot, MJPEG stream, directory replay) implements:
// a pull-based async iterator of JPEG frames for one camera, plus counters for the dashboard.

import type { JpegFrame } from '../channel/messages.js';
import type { SourceError } from '../errors.js';

export interface SourceStats {
  /** HTTP requests started (snapshot polls, stream connections, and the second try that answers an authentication challenge) or files read. */
  requests: number;
  /** Frames yielded to the consumer. */
  frames: number;
  /** 304 Not Modified answers (no new image). */
  notModified: number;
  /** 200 answers whose body was byte-identical to the previous frame (a frozen camera). */
  identicalSkipped: number;
  /** Complete frames thrown away because the consumer was slower than the stream (latest frame wins). */
  dropped: number;
  /** Failed attempts, all codes together. */
  errors: number;
  errorsByCode: Record<string, number>;
  lastError?: { code: string; message: string; at: number };
  /** Failures since the last success; 0 while the camera is healthy. */
  consecutiveFailures: number;
  /** While backing off: the delay (ms) chosen after the latest failure. Undefined when healthy. */
  nextRetryMs?: number;
  /** JPEG/body bytes received. */
  bytes: number;
}

export interface FrameSource extends AsyncDisposable {
  readonly cameraId: string;
  /** Pull-based: the next fetch starts only when the consumer asks (so nothing queues). Ends when closed/aborted. */
  frames(signal?: AbortSignal): AsyncIterableIterator<JpegFrame>;
  stats(): SourceStats;
  /** Idempotent; aborts an in-flight request. */
  close(): Promise<void>;
}

export interface SourceEvents {
  /**
   * A problem with the camera. `kind` 'failure': an attempt failed, and the source retries with backoff;
   * 'warning': a problem it goes on past without retrying (an MJPEG boundary read anyway, an oversized part
   * skipped, an unreadable file in a replay).
   */
  onError?(err: SourceError, kind: 'failure' | 'warning'): void;
  /** The first success after one or more failures. */
  onRecover?(info: { afterFailures: number }): void;
}

/** Live sources also report each nominal frame slot, so the daemon can count expected frames for uptime. */
export interface SlotEvents {
  /** Called once per poll slot (every pollIntervalMs) while frames() is being iterated, even during an outage. */
  onSlot?(timeMs: number): void;
  /**
   * A slot already reported to onSlot whose request the source's own shutdown aborted (close(), or the signal
   * given to frames()): the camera was not asked to the end, so uptime should not expect that frame.
   */
  onSlotCancelled?(timeMs: number): void;
  /**
   * Called when the camera answered but its image had not changed (HTTP 304, or byte-identical): it is up,
   * but there is no new frame to analyse. Uptime counts it as received.
   */
  onUnchanged?(timeMs: number): void;
}
