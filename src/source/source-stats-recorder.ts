// Keeps a live source's counters and turns failures/successes into onError/onRecover calls, so the
// HTTP snapshot and MJPEG sources report the same way.

import type { SourceError } from '../errors.js';
import type { SourceEvents, SourceStats } from './frame-source.js';

export class SourceStatsRecorder {
  readonly s: SourceStats = {
    requests: 0,
    frames: 0,
    notModified: 0,
    identicalSkipped: 0,
    dropped: 0,
    errors: 0,
    errorsByCode: {},
    consecutiveFailures: 0,
    bytes: 0,
  };
  readonly #events: SourceEvents;
  readonly #now: () => number;

  constructor(events: SourceEvents, now: () => number) {
    this.#events = events;
    this.#now = now;
  }

  /** Counts a failed attempt and tells the listener; `retryMs` is the backoff chosen for it. */
  failure(err: SourceError, retryMs: number): void {
    const s = this.s;
    s.errors++;
    s.errorsByCode[err.code] = (s.errorsByCode[err.code] ?? 0) + 1;
    s.lastError = { code: err.code, message: err.message, at: this.#now() };
    s.consecutiveFailures++;
    s.nextRetryMs = retryMs;
    this.#call(() => this.#events.onError?.(err, 'failure'));
  }

  /** A problem that is not a failed attempt (e.g. one oversized MJPEG part): counted and reported, no backoff. */
  warning(err: SourceError): void {
    const s = this.s;
    s.errors++;
    s.errorsByCode[err.code] = (s.errorsByCode[err.code] ?? 0) + 1;
    s.lastError = { code: err.code, message: err.message, at: this.#now() };
    this.#call(() => this.#events.onError?.(err, 'warning'));
  }

  /** The camera answered properly; ends a failure streak. */
  success(): void {
    const s = this.s;
    if (s.consecutiveFailures === 0) return;
    const afterFailures = s.consecutiveFailures;
    s.consecutiveFailures = 0;
    s.nextRetryMs = undefined;
    this.#call(() => this.#events.onRecover?.({ afterFailures }));
  }

  /** A copy, so callers cannot change the live counters. */
  snapshot(): SourceStats {
    const s = this.s;
    return { ...s, errorsByCode: { ...s.errorsByCode }, lastError: s.lastError && { ...s.lastError } };
  }

  // A throwing listener must not stop the capture loop ("never crashes the daemon"); surface it as a warning.
  #call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      process.emitWarning(`frame source event listener threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
