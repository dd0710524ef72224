// Polls a camera's JPEG snapshot URL over one keep-alive undici Agent on a fixed-rate schedule, with
// conditional requests, duplicate skipping, size/time limits and capped backoff. Frames are fetched only when pulled.

import type { JpegFrame } from '../channel/messages.js';
import { SourceError } from '../errors.js';
import { abortableSleep } from './abortable-sleep.js';
import { discardBody } from './discard-body.js';
import type { FrameSource, SourceStats } from './frame-source.js';
import { closeHttpSource, forgetMove, requestCamera, setUpHttpSource, type HttpSourceOptions, type HttpSourceParts } from './http-source-setup.js';
import { linkSignals } from './link-signals.js';
import { classifyRequestError, isClearlyNotImage, notAnImageError, tooLargeError, wrongKindError } from './request-errors.js';
import { RepeatedImage } from './repeated-image.js';

export interface HttpSnapshotSourceOptions extends HttpSourceOptions {
  /** Request k is due at t0 + k·pollIntervalMs. */
  readonly pollIntervalMs: number;
  /** Whole request, headers and body. */
  readonly timeoutMs: number;
  /** The first poll (slot 0) is due this long after the source starts (ms, default 0): the daemon spreads its cameras' polls. */
  readonly startDelayMs?: number;
}

/** A simulator (or a camera) that stamps its own capture instant, epoch ms. */
const CAPTURE_TIME_HEADER = 'x-sim-time';

/** A stamp further than this from this machine's clock is not taken (see CaptureClock). */
const MAX_STAMP_SKEW_MS = 3_600_000;

/**
 * One camera's capture stamps (X-Sim-Time, the simulator's header): a frame's time is its stamp, or its arrival time
 * where there is none or it is more than an hour from this machine's clock: any camera can send the header, and one a
 * year off (a wrong clock, a hostile server) had its counts stored a year ago, its uptime 0% today although every poll
 * was answered. Once a stamp was refused as too far off, none of that camera's is taken again: a camera whose clock is
 * about an hour off had some frames stamped (an hour back) and some timed on arrival, as the request's delay moved the
 * stamp across the limit, so its frames' time jumped an hour back and forth (a real clip with traffic one way only,
 * 25 s: 4 in, 3 out, 11% uptime; timed on arrival, 17 in, 0 out, 100%).
 */
export class CaptureClock {
  #refused = false;

  time(stamped: number, arrivedAt: number): number {
    if (this.#refused || !(Number.isFinite(stamped) && stamped > 0)) return arrivedAt;
    if (Math.abs(stamped - arrivedAt) > MAX_STAMP_SKEW_MS) {
      this.#refused = true;
      return arrivedAt;
    }
    return stamped;
  }
}

type Outcome =
  | { readonly kind: 'frame'; readonly jpeg: Uint8Array; readonly capturedAt: number }
  | { readonly kind: 'not-modified' }
  | { readonly kind: 'identical' };

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export class HttpSnapshotSource implements FrameSource {
  readonly cameraId: string;
  readonly #opts: HttpSnapshotSourceOptions;
  /** URL, now(), backoff, slot clock, stats recorder and dispatcher, built as for every HTTP source. */
  readonly #http: HttpSourceParts;
  readonly #closeController = new AbortController();
  #closing: Promise<void> | undefined;
  /** Requests in flight, so close() can let them settle before closing the Agent. */
  #inFlight = new Set<Promise<unknown>>();
  #seq = 0;
  #etag: string | undefined;
  #lastModified: string | undefined;
  /** The latest new image: the same bytes again are not a new image (see RepeatedImage). */
  readonly #repeated = new RepeatedImage();
  readonly #captureClock = new CaptureClock();
  /** Earliest time the next request may start while backing off. */
  #retryAt = -Infinity;

  constructor(opts: HttpSnapshotSourceOptions) {
    this.cameraId = opts.cameraId;
    this.#opts = opts;
    this.#http = setUpHttpSource(opts, opts.startDelayMs);
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
    const P = this.#opts.pollIntervalMs;
    let lastSlot = -Infinity;
    const firstSlot = this.#http.clock.start();
    try {
      while (!ctrl.signal.aborted) {
        // The first request is for the slot the clock started from (reported as expected, even if a millisecond
        // has passed since); then the next slot after the previous request's slot, not before now (a late
        // consumer or a slow answer skips slots instead of bursting) and not before the backoff allows.
        const due = lastSlot === -Infinity && this.#retryAt <= firstSlot
          ? firstSlot
          : this.#http.clock.slotAtOrAfter(Math.max(this.#http.now(), lastSlot + P, this.#retryAt));
        const wait = due - this.#http.now();
        if (wait > 0 && !(await abortableSleep(wait, ctrl.signal))) break;
        lastSlot = due;
        let outcome: Outcome;
        try {
          const pending = this.#fetchOnce(ctrl.signal);
          this.#inFlight.add(pending);
          try {
            outcome = await pending;
          } finally {
            this.#inFlight.delete(pending);
          }
        } catch (err) {
          if (ctrl.signal.aborted) {
            // Our shutdown cut this request short, not the camera: its slot is not a frame the camera missed.
            if (this.#http.clock.hasReported(due)) this.#opts.onSlotCancelled?.(due);
            break;
          }
          const delay = this.#http.backoff.next();
          this.#retryAt = this.#http.now() + delay;
          this.#http.stats.failure(err as SourceError, delay);
          continue;
        }
        this.#http.backoff.reset();
        this.#retryAt = -Infinity;
        this.#http.stats.success();
        if (outcome.kind === 'not-modified') {
          this.#http.stats.s.notModified++;
          this.#opts.onUnchanged?.(this.#http.now());
        } else if (outcome.kind === 'identical') {
          this.#http.stats.s.identicalSkipped++;
          this.#opts.onUnchanged?.(this.#http.now());
        } else {
          this.#http.stats.s.frames++;
          yield { cameraId: this.cameraId, seq: ++this.#seq, capturedAt: outcome.capturedAt, jpeg: outcome.jpeg };
        }
      }
    } finally {
      unlink();
      this.#http.clock.stop();
    }
  }

  /** One GET. Resolves with what it brought; throws a SourceError on failure (or anything once aborted). */
  async #fetchOnce(signal: AbortSignal): Promise<Outcome> {
    const { cameraId, timeoutMs, maxBodyBytes } = this.#opts;
    let url = this.#http.url.display;
    const ctrl = new AbortController();
    const unlink = linkSignals(ctrl, [signal]);
    let timedOut = false;
    // undici's headersTimeout/bodyTimeout are idle timers; this one bounds the whole request.
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort(new Error(`request exceeded timeoutMs=${timeoutMs}`));
    }, timeoutMs);
    const headers: Record<string, string> = { accept: 'image/jpeg, image/*;q=0.9, */*;q=0.1' };
    if (this.#etag) headers['if-none-match'] = this.#etag;
    if (this.#lastModified) headers['if-modified-since'] = this.#lastModified;
    let newPicture = false;
    // Once the image is being read: how much of it came, for a connection cut before its end.
    let reading: { status: number; read: number; declared: number | undefined } | undefined;
    try {
      const answer = await requestCamera(this.#http, { cameraId, headers, signal: ctrl.signal, timeoutMs, timedOut: () => timedOut });
      const { res } = answer;
      url = answer.url;
      const { statusCode, body } = res;
      const h = res.headers as Record<string, string | string[] | undefined>;
      if (statusCode === 304) {
        await body.dump().catch(() => undefined);
        // Unasked (no validator sent: no image yet, or none with an ETag or Last-Modified): there is no image it can
        // say is unchanged. Taken as one, a camera that only ever answered 304 read 76% uptime with no picture.
        if (headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined) {
          throw new SourceError(
            'TC_ERR_SOURCE_HTTP',
            `camera ${cameraId}: GET ${url} answered HTTP 304 Not Modified to a request that asked for no comparison (it has sent no image with an ETag or Last-Modified); check the camera URL, and any cache or proxy in between`,
            { status: 304 },
          );
        }
        return { kind: 'not-modified' };
      }
      if (statusCode < 200 || statusCode >= 300) {
        // Reading a short error body keeps the keep-alive socket usable; a big one is cut off by dump().
        await body.dump().catch(() => undefined);
        throw answer.statusError();
      }
      const contentType = header(h, 'content-type');
      if (/^\s*multipart\//i.test(contentType ?? '')) {
        // An MJPEG stream never ends: reading it as one image would only time out, blaming the network.
        discardBody(body);
        throw wrongKindError(cameraId, url, contentType ?? '', 'mjpeg');
      }
      if (isClearlyNotImage(contentType)) {
        await body.dump().catch(() => undefined);
        throw notAnImageError(cameraId, url, statusCode, contentType ?? '');
      }
      const declared = Number(header(h, 'content-length'));
      if (Number.isFinite(declared) && declared > maxBodyBytes) {
        discardBody(body);
        throw tooLargeError(cameraId, url, declared, maxBodyBytes, 'header');
      }
      const chunks: Uint8Array[] = [];
      let total = 0;
      reading = { status: statusCode, read: 0, declared: Number.isFinite(declared) ? declared : undefined };
      for await (const chunk of body as AsyncIterable<Buffer>) {
        total += chunk.length;
        reading.read = total;
        if (total > maxBodyBytes) {
          // Stop at once: the rest of an oversized body is never buffered.
          discardBody(body);
          throw tooLargeError(cameraId, url, total, maxBodyBytes, 'stream');
        }
        chunks.push(chunk);
      }
      this.#http.stats.s.bytes += total;
      const completedAt = this.#http.now();
      if (statusCode === 200) {
        this.#etag = header(h, 'etag');
        this.#lastModified = header(h, 'last-modified');
      }
      if (total === 0) {
        throw new SourceError('TC_ERR_SOURCE_HTTP', `camera ${cameraId}: GET ${url} answered HTTP ${statusCode} with an empty body; check that the URL serves a JPEG snapshot`);
      }
      // One exact-size copy that owns its ArrayBuffer (socket chunks are views into larger reads).
      const jpeg = new Uint8Array(total);
      let offset = 0;
      for (const c of chunks) {
        jpeg.set(c, offset);
        offset += c.length;
      }
      if (this.#repeated.is(jpeg)) return { kind: 'identical' };
      // A camera that stamps its own capture instant is more precise than our clock at response time
      // (which adds network and queueing delay).
      const stamped = Number(header(h, CAPTURE_TIME_HEADER));
      const capturedAt = this.#captureClock.time(stamped, completedAt);
      newPicture = true;
      return { kind: 'frame', jpeg, capturedAt };
    } catch (err) {
      if (signal.aborted) throw err; // closing or the consumer's signal: not a camera failure
      throw classifyRequestError(err, { cameraId, url, timeoutMs, timedOut, body: reading });
    } finally {
      clearTimeout(timer);
      unlink();
      // Where the camera URL moved for good is kept by a poll that brought a new picture only: after a failure, or
      // an unchanged one (the camera may have moved on), the camera URL is asked again next time.
      if (!newPicture) forgetMove(this.#http);
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#doClose();
    return this.#closing;
  }

  #doClose(): Promise<void> {
    return closeHttpSource({ ...this.#http, abort: this.#closeController, pending: this.#inFlight });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
