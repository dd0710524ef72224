// Reads a camera's MJPEG stream (multipart/x-mixed-replace) over undici and hands the consumer the newest
// complete JPEG when it pulls; older unread frames are dropped and counted, and a part byte-identical to the last
// one passed on is skipped and reported unchanged (a frozen stream). Reconnects with capped backoff.

import type { JpegFrame } from '../channel/messages.js';
import { SourceError } from '../errors.js';
import { abortableSleep } from './abortable-sleep.js';
import { discardBody } from './discard-body.js';
import type { FrameSource, SourceStats } from './frame-source.js';
import { closeHttpSource, forgetMove, requestCamera, setUpHttpSource, type HttpSourceOptions, type HttpSourceParts } from './http-source-setup.js';
import { linkSignals } from './link-signals.js';
import { MjpegParser } from './mjpeg-parser.js';
import { CaptureClock } from './http-snapshot-source.js';
import { RepeatedImage } from './repeated-image.js';
import { classifyRequestError, notAnImageError, tooLargeError, wrongKindError } from './request-errors.js';

export interface MjpegStreamSourceOptions extends HttpSourceOptions {
  /** Nominal frame interval: onSlot ticks at this period. The stream itself sets the real rate. */
  readonly pollIntervalMs: number;
  /** Connect and response-headers timeout, and the stall timeout (longest silence) once streaming. */
  readonly timeoutMs: number;
  /** Largest JPEG part kept; bigger parts are skipped and reported as TC_ERR_SOURCE_TOO_LARGE. */
  readonly maxBodyBytes: number;
}

/** Bytes a connection may send before its first delimiter line: a preamble, never a JPEG part, comes first. */
const NO_DELIMITER_BYTES = 256 * 1024;

interface Latest {
  readonly jpeg: Uint8Array;
  readonly capturedAt: number;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The boundary parameter of a multipart Content-Type, unquoted; undefined when absent. */
function boundaryOf(contentType: string): string | undefined {
  const m = /;\s*boundary\s*=\s*("([^"]*)"|[^;\s]+)/i.exec(contentType);
  if (!m) return undefined;
  const b = (m[2] ?? m[1]).trim();
  return b.replace(/^--/, '').length > 0 ? b : undefined;
}

export class MjpegStreamSource implements FrameSource {
  readonly cameraId: string;
  readonly #opts: MjpegStreamSourceOptions;
  /** URL, now(), backoff, slot clock, stats recorder and dispatcher, built as for every HTTP source. */
  readonly #http: HttpSourceParts;
  readonly #closeController = new AbortController();
  #closing: Promise<void> | undefined;
  /** Reader loops still running (one per open iterator). */
  #readers = new Set<Promise<void>>();
  #seq = 0;
  /** The latest part passed on (across reconnections): the same bytes again are not a new image. */
  readonly #repeated = new RepeatedImage();
  readonly #captureClock = new CaptureClock();
  /** Whether a connection is streaming parts now (it delivered one), and when the latest part came (now()). */
  #streaming = false;
  #lastPartAt = -Infinity;
  /** The boundary mismatch last warned about ("declared\nfound"): said once, not on every reconnection. */
  #mismatchWarned: string | undefined;

  constructor(opts: MjpegStreamSourceOptions) {
    this.cameraId = opts.cameraId;
    this.#opts = opts;
    this.#http = setUpHttpSource(opts);
  }

  stats(): SourceStats {
    return this.#http.stats.snapshot();
  }

  frames(signal?: AbortSignal): AsyncIterableIterator<JpegFrame> {
    return this.#run(signal);
  }

  async *#run(signal?: AbortSignal): AsyncGenerator<JpegFrame, void, undefined> {
    if (this.#closeController.signal.aborted) return;
    const ctrl = new AbortController();
    const unlink = linkSignals(ctrl, [this.#closeController.signal, signal]);
    // A one-frame mailbox: the network side overwrites it (counting a drop), the consumer empties it.
    let latest: Latest | undefined;
    let wake: (() => void) | undefined;
    const deliver = (frame: Latest): void => {
      if (latest) this.#http.stats.s.dropped++;
      latest = frame;
      wake?.();
    };
    const onAbort = (): void => wake?.();
    ctrl.signal.addEventListener('abort', onAbort);
    this.#http.clock.start();
    if (this.#readers.size === 0) this.#streaming = false;
    const reader = this.#readLoop(ctrl.signal, deliver);
    this.#readers.add(reader);
    try {
      while (!ctrl.signal.aborted) {
        if (!latest) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        const { jpeg, capturedAt } = latest;
        latest = undefined;
        this.#http.stats.s.frames++;
        yield { cameraId: this.cameraId, seq: ++this.#seq, capturedAt, jpeg };
      }
    } finally {
      // Our own shutdown (close(), the caller's signal or return()) ends a stream that was flowing: the slot whose
      // part was still due is not one the camera missed (as a snapshot poll cut short is not). A stream that was
      // down stays expected-not-received.
      const last = this.#http.clock.lastReported();
      if (this.#readers.size === 1 && this.#streaming && last !== undefined && this.#lastPartAt < last) this.#opts.onSlotCancelled?.(last);
      ctrl.abort();
      ctrl.signal.removeEventListener('abort', onAbort);
      unlink();
      this.#http.clock.stop();
      await reader;
      this.#readers.delete(reader);
    }
  }

  /** Connects, streams, and reconnects after errors or end of stream, until aborted. Never rejects. */
  async #readLoop(signal: AbortSignal, deliver: (frame: Latest) => void): Promise<void> {
    let retryAt = -Infinity;
    while (!signal.aborted) {
      const wait = retryAt - this.#http.now();
      if (wait > 0 && !(await abortableSleep(wait, signal))) return;
      let failure: SourceError;
      try {
        failure = await this.#readStream(signal, deliver);
      } catch (err) {
        if (signal.aborted) return;
        failure = classifyRequestError(err, { cameraId: this.cameraId, url: this.#http.url.display, timeoutMs: this.#opts.timeoutMs, timedOut: false });
      }
      if (signal.aborted) return;
      // A stream is asked for once a connection: the camera URL is asked again for the next one.
      forgetMove(this.#http);
      const delay = this.#http.backoff.next();
      retryAt = this.#http.now() + delay;
      this.#http.stats.failure(failure, delay);
    }
  }

  /** One connection. Resolves with the error that ended it (end of stream), or throws what undici threw. */
  async #readStream(signal: AbortSignal, deliver: (frame: Latest) => void): Promise<SourceError> {
    const { cameraId, timeoutMs, maxBodyBytes } = this.#opts;
    let url = this.#http.url.display;
    const ctrl = new AbortController();
    const unlink = linkSignals(ctrl, [signal]);
    let timedOut = false;
    /** Once the camera answered with its stream: what it sent on this connection (for the error if it breaks). */
    let streamed: { status: number; parser: MjpegParser; bytes: number } | undefined;
    // Bounds connect + headers as a whole; once streaming, undici's bodyTimeout catches a stalled camera.
    let timer: NodeJS.Timeout | undefined = setTimeout(() => {
      timedOut = true;
      ctrl.abort(new Error(`no response headers within timeoutMs=${timeoutMs}`));
    }, timeoutMs);
    try {
      const answer = await requestCamera(this.#http, { cameraId, headers: { accept: 'multipart/x-mixed-replace, */*;q=0.1' }, signal: ctrl.signal, timeoutMs, timedOut: () => timedOut });
      const { res } = answer;
      url = answer.url;
      clearTimeout(timer);
      timer = undefined;
      const { statusCode, body } = res;
      const h = res.headers as Record<string, string | string[] | undefined>;
      if (statusCode < 200 || statusCode >= 300) {
        await body.dump().catch(() => undefined);
        return answer.statusError();
      }
      const contentType = header(h, 'content-type') ?? '';
      const type = contentType.split(';', 1)[0].trim().toLowerCase();
      if (!type.startsWith('multipart/')) {
        discardBody(body);
        if (type.startsWith('image/')) {
          return wrongKindError(cameraId, url, contentType, 'snapshot');
        }
        if (type.startsWith('text/') || type.includes('json') || type.includes('xml')) return notAnImageError(cameraId, url, statusCode, contentType);
        return new SourceError(
          'TC_ERR_SOURCE_STREAM',
          `camera ${cameraId}: GET ${url} answered Content-Type "${contentType || '(none)'}", expected multipart/x-mixed-replace; check the stream URL`,
        );
      }
      const parser = new MjpegParser({ boundary: boundaryOf(contentType), maxPartBytes: maxBodyBytes });
      streamed = { status: statusCode, parser, bytes: 0 };
      let oversizedSeen = 0;
      let overlongSeen = 0;
      let cutShortSeen = 0;
      const partLengthWarning = (what: string): void =>
        this.#http.stats.warning(new SourceError('TC_ERR_SOURCE_PART_LENGTH', `camera ${cameraId}: GET ${url} sent ${what}`));
      let healthy = false;
      // Bytes flowing without ever forming a frame would never trip the stall timeout: past this many bytes since
      // the latest frame the connection is given up. Skipping oversized parts is no progress either: a stream of
      // nothing but those is given up as too large (a failure, with backoff), not as a malformed stream, so that
      // it reads as one error, not TC_ERR_SOURCE_TOO_LARGE and TC_ERR_SOURCE_STREAM by turns.
      const noFrameLimit = 2 * maxBodyBytes + 64 * 1024;
      // Before any delimiter line only a preamble can come, never a JPEG part: not MJPEG at all is told sooner.
      const noDelimiterLimit = Math.min(noFrameLimit, NO_DELIMITER_BYTES);
      let sinceFrame = 0;
      let oversizedAtFrame = 0;
      // A stream trickling bytes that never complete a frame (stuck mid-part) never trips the idle timeout
      // (bodyTimeout) either: past twice timeoutMs plus one frame interval without a frame the connection is given
      // up and made again (it stayed up for good, the camera read as frozen). A healthy frame may come after a pause
      // of up to timeoutMs (longer is the idle timeout's), then take as long as a snapshot request may, plus a frame
      // interval: counting the pause too, timeoutMs plus pollIntervalMs alone cut a slow stream (a frame every
      // 1.3 s, each arriving over 0.6 s, at timeoutMs 0.8 s, pollIntervalMs 0.3 s) at every frame.
      const noFrameMs = 2 * this.#opts.timeoutMs + this.#opts.pollIntervalMs;
      let frameAt = this.#http.now();
      for await (const chunk of body as AsyncIterable<Buffer>) {
        this.#http.stats.s.bytes += chunk.length;
        streamed.bytes += chunk.length;
        sinceFrame += chunk.length;
        const parts = parser.push(chunk);
        const mismatch = parser.stats.boundaryMismatch;
        if (mismatch && this.#mismatchWarned !== `${mismatch.declared}\n${mismatch.found}`) {
          this.#mismatchWarned = `${mismatch.declared}\n${mismatch.found}`;
          this.#http.stats.warning(
            new SourceError(
              'TC_ERR_SOURCE_BOUNDARY',
              `camera ${cameraId}: GET ${url} declares the MJPEG boundary "${mismatch.declared}" (Content-Type "${contentType}") ` +
                `but delimits its frames with "--${mismatch.found}"; frames are read with "--${mismatch.found}" anyway ` +
                `(fix the camera's firmware or stream URL so that both agree)`,
            ),
          );
        }
        if (parser.stats.overlong > overlongSeen) {
          overlongSeen = parser.stats.overlong;
          // Each such part is counted and reported (the daemon's log says a repeated code only now and then); its
          // JPEG is kept and the next part is read from its delimiter, so no frame is lost for it.
          const { claimed, actual } = parser.stats.lastOverlong!;
          partLengthWarning(
            `an MJPEG part whose Content-Length (${claimed} bytes) is longer than its JPEG (${actual} bytes): the next part's ` +
              `delimiter came within it; the part was cut there and the stream read on (fix the camera's firmware so that its ` +
              `Content-Length headers are right)`,
          );
        }
        if (parser.stats.cutShort > cutShortSeen) {
          cutShortSeen = parser.stats.cutShort;
          // A partial frame announced whole: only it is lost (the parser read the next part from its delimiter).
          const { claimed, actual } = parser.stats.lastCutShort!;
          partLengthWarning(
            `a partial frame: an MJPEG part announced ${claimed} bytes (Content-Length) but the next part began after ${actual}, ` +
              `before the JPEG's end; that frame was dropped and the stream read on from the next part (if this repeats, check ` +
              `the camera's load and the network to it, or its firmware)`,
          );
        }
        if (parser.stats.oversized > oversizedSeen) {
          oversizedSeen = parser.stats.oversized;
          // One oversized part is the camera's problem, not a dead stream: report it, keep the connection (as long
          // as frames within the limit come too; see noFrameLimit).
          this.#http.stats.warning(tooLargeError(cameraId, url, parser.stats.lastOversizedBytes ?? 0, maxBodyBytes, 'part', parser.stats.lastOversizedExact));
        }
        if (parts.length === 0) {
          const waited = this.#http.now() - frameAt;
          if (waited > noFrameMs && parser.stats.oversized === oversizedAtFrame) {
            discardBody(body);
            return new SourceError(
              'TC_ERR_SOURCE_TIMEOUT',
              `camera ${cameraId}: MJPEG stream ${url} sent ${sinceFrame} bytes but no complete frame for ${(waited / 1000).toFixed(1)} s ` +
                `(twice timeoutMs=${timeoutMs} plus pollIntervalMs=${this.#opts.pollIntervalMs}); reconnecting. Check that the camera is not overloaded ` +
                `and the network to it, or raise the camera's timeoutMs if its frames take longer to arrive`,
            );
          }
          if (sinceFrame > (parser.stats.delimiters === 0 ? noDelimiterLimit : noFrameLimit)) {
            discardBody(body);
            if (parser.stats.oversized > oversizedAtFrame) {
              return tooLargeError(cameraId, url, parser.stats.lastOversizedBytes ?? 0, maxBodyBytes, 'parts', parser.stats.lastOversizedExact);
            }
            const missing = parser.stats.delimiters === 0 ? 'an MJPEG delimiter line (a "--token" line followed by part headers)' : 'a complete MJPEG frame';
            return new SourceError(
              'TC_ERR_SOURCE_STREAM',
              `camera ${cameraId}: GET ${url} sent ${sinceFrame} bytes without ${missing} (Content-Type "${contentType}"); ` +
                `check that the URL is an MJPEG stream`,
            );
          }
          continue;
        }
        sinceFrame = 0;
        oversizedAtFrame = parser.stats.oversized;
        const completedAt = this.#http.now();
        frameAt = completedAt;
        this.#lastPartAt = completedAt;
        this.#streaming = true;
        if (!healthy) {
          // Only a delivered frame proves the stream works (a server that accepts and hangs up must back off).
          healthy = true;
          this.#http.backoff.reset();
          this.#http.stats.success();
        }
        // Within one chunk only the last part can matter to a latest-wins consumer.
        this.#http.stats.s.dropped += parts.length - 1;
        const i = parts.length - 1;
        // A stream that repeats one picture (a camera whose encoder hung, a server replaying its last frame) is up
        // but frozen: the same bytes again are reported as unchanged, as a snapshot camera's are, not analysed.
        if (this.#repeated.is(parts[i])) {
          this.#http.stats.s.identicalSkipped++;
          this.#opts.onUnchanged?.(completedAt);
          continue;
        }
        const stamped = parser.partTimes[i];
        // A camera that stamps its capture instant is more precise than our clock on arrival.
        deliver({ jpeg: parts[i], capturedAt: this.#captureClock.time(stamped, completedAt) });
      }
      return new SourceError(
        'TC_ERR_SOURCE_STREAM',
        `camera ${cameraId}: MJPEG stream ${url} ended after ${parser.stats.parts} frames; reconnecting (check the camera if this repeats)`,
      );
    } catch (err) {
      if (signal.aborted) throw err;
      const stream = streamed && { status: streamed.status, frames: streamed.parser.stats.parts, bytes: streamed.bytes };
      throw classifyRequestError(err, { cameraId, url, timeoutMs, timedOut, stream });
    } finally {
      if (timer) clearTimeout(timer);
      unlink();
      // Still flowing if our own shutdown ended it (read by #run, which aborted it); down otherwise.
      if (!signal.aborted) this.#streaming = false;
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#doClose();
    return this.#closing;
  }

  #doClose(): Promise<void> {
    return closeHttpSource({ ...this.#http, abort: this.#closeController, pending: this.#readers });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
