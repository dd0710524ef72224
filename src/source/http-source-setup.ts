// What the HTTP snapshot and MJPEG sources build the same way before their loops differ: validated options,
// the parsed camera URL, the slot clock, the backoff, the stats recorder and the undici dispatcher; and how
// both close.

import { request, type Dispatcher } from 'undici';

import { ConfigError, SourceError } from '../errors.js';
import { Backoff } from './backoff.js';
import { CameraAuth } from './camera-auth.js';
import { createCameraAgent, type CameraTls } from './camera-agent.js';
import { certificateError, certificateProblem } from './camera-tls.js';
import { classifyRequestError, httpStatusError } from './request-errors.js';
import { hideUrlPassword, parseCameraUrl, type CameraUrl } from './camera-url.js';
import type { SlotEvents, SourceEvents } from './frame-source.js';
import { SlotClock } from './slot-clock.js';
import { SourceStatsRecorder } from './source-stats-recorder.js';

/** The options both HTTP sources take; each source's own options re-document the limits it reads differently. */
export interface HttpSourceOptions extends SourceEvents, SlotEvents {
  readonly cameraId: string;
  readonly url: string;
  readonly pollIntervalMs: number;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  /** How an https:// camera's certificate is checked (default: as a browser would). */
  readonly tls?: CameraTls;
  /** Use this dispatcher instead of a private keep-alive Agent (it is then not closed by close()). */
  readonly dispatcher?: Dispatcher;
  /** Clock (ms epoch) for scheduling and capturedAt; injectable for tests. */
  readonly now?: () => number;
  /** Random source for the backoff jitter; injectable for tests. */
  readonly random?: () => number;
}

export interface HttpSourceParts {
  readonly url: CameraUrl;
  /** Answers the camera's authentication challenges with the URL's user and password. */
  readonly auth: CameraAuth;
  readonly now: () => number;
  readonly backoff: Backoff;
  readonly clock: SlotClock;
  readonly stats: SourceStatsRecorder;
  readonly dispatcher: Dispatcher;
  /** False when the caller passed its own dispatcher: the source must then leave it open on close(). */
  readonly ownsDispatcher: boolean;
  /** Where the camera URL has moved for good (301 or 308, see requestCamera): asked there directly. */
  readonly moved: { target: URL | undefined };
}

function checkPositive(cameraId: string, name: string, value: number): void {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new ConfigError(`camera ${cameraId}: ${name} must be a positive number, got ${value}`);
  }
}

/**
 * Throws ConfigError on a bad option; the Agent comes last, so a rejected source never creates one.
 * `clockOffsetMs`: slot 0 is due this long after the source starts (a snapshot camera's startDelayMs; see
 * SlotClockOptions.offsetMs).
 */
export function setUpHttpSource(opts: HttpSourceOptions, clockOffsetMs = 0): HttpSourceParts {
  checkPositive(opts.cameraId, 'pollIntervalMs', opts.pollIntervalMs);
  checkPositive(opts.cameraId, 'timeoutMs', opts.timeoutMs);
  checkPositive(opts.cameraId, 'maxBodyBytes', opts.maxBodyBytes);
  const url = parseCameraUrl(opts.cameraId, opts.url);
  const now = opts.now ?? Date.now;
  const backoff = new Backoff({ initialMs: opts.backoffInitialMs, maxMs: opts.backoffMaxMs, random: opts.random });
  const clock = new SlotClock({ intervalMs: opts.pollIntervalMs, now, onSlot: opts.onSlot, offsetMs: clockOffsetMs });
  const stats = new SourceStatsRecorder(opts, now);
  const ownsDispatcher = opts.dispatcher === undefined;
  const dispatcher = opts.dispatcher ?? createCameraAgent(opts.timeoutMs, url.href, opts.tls);
  return { url, now, backoff, clock, stats, dispatcher, ownsDispatcher, auth: new CameraAuth(url.credentials), moved: { target: undefined } };
}

/** Redirects one request follows at most. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** A camera's answer. */
export interface CameraResponse {
  readonly res: Dispatcher.ResponseData;
  /** The camera URL for messages (secrets hidden), and where the camera redirected it to, if it did. */
  readonly url: string;
  /** The TC_ERR_SOURCE_HTTP error for a non-2xx answer, with the hint that fits it (a 401's from what was asked). */
  statusError(): SourceError;
}

/**
 * One GET of the camera URL with the credentials the camera asked for (see CameraAuth): a 401 whose challenge can
 * be answered (the first, or a stale nonce) is answered at once, within the same time limits, so a poll costs one
 * more round trip only then. Redirects (301, 302, 303, 307, 308) are followed, MAX_REDIRECTS at most: public
 * cameras often answer their published URL with a redirect to the latest image under a new name each time, which
 * no config could hold. A camera URL moved to another address for good (301, 308; see follow) is asked there,
 * and when that answers an error status or fails, at the camera URL again within the same poll. Credentials go to
 * the camera URL's own origin only (scheme, host and port), as a browser does. Any other answer, or a 401 that
 * cannot be overcome, is returned to the caller (its statusError() says why).
 */
export async function requestCamera(parts: CameraRequestParts, init: CameraRequestInit): Promise<CameraResponse> {
  const moved = parts.moved.target;
  if (moved !== undefined) {
    try {
      const answer = await follow(parts, init, moved);
      if (answered(answer.res.statusCode)) return answer;
      await answer.res.body.dump().catch(() => undefined);
    } catch (err) {
      if (init.signal.aborted) throw err;
    }
    // The camera URL may lead elsewhere now: asked again, within the same time limits.
    forgetMove(parts);
  }
  return follow(parts, init, undefined);
}

type CameraRequestParts = Pick<HttpSourceParts, 'url' | 'auth' | 'dispatcher' | 'stats' | 'moved'>;

interface CameraRequestInit {
  readonly cameraId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** True when the caller's own overall timer aborted the request (see RequestContext.timedOut). */
  readonly timedOut: () => boolean;
}

/**
 * After a poll that brought no new picture: the camera URL is asked again next time. An answer can fail after its
 * status (a login page with 200, an empty body), which requestCamera cannot tell.
 */
export function forgetMove(parts: Pick<HttpSourceParts, 'moved'>): void {
  parts.moved.target = undefined;
}

/** A status that brings the image, or says it has not changed. */
const answered = (status: number): boolean => (status >= 200 && status < 300) || status === 304;

/**
 * One GET, from the camera URL or (`start`) where it has moved for good, following redirects. Permanent redirects
 * (301, 308) from the camera URL on to the same path and query at another address are remembered in `parts.moved`
 * once they lead to an answer, as a browser does: a camera moved from http:// to https:// then costs one request
 * per poll, not two. The source forgets the move after a poll that brought no new picture (see forgetMove).
 */
async function follow(parts: CameraRequestParts, init: CameraRequestInit, start: URL | undefined): Promise<CameraResponse> {
  const camera = new URL(parts.url.href);
  const origin = camera.origin;
  let target = start ?? camera;
  let url = start === undefined ? parts.url.display : `${parts.url.display} (redirected to ${hideUrlPassword(start.href)})`;
  let retried = false;
  // Where the permanent redirects from the camera URL lead, while every hop so far was one.
  let permanent = start === undefined;
  let movedTo: URL | undefined;
  const answer = (res: Dispatcher.ResponseData, own: boolean): CameraResponse => {
    if (movedTo !== undefined && answered(res.statusCode)) parts.moved.target = movedTo;
    return {
      res,
      url,
      statusError: () => {
        const location = res.headers.location;
        const hint = res.statusCode !== 401 ? undefined : own ? parts.auth.refusalHint(parts.url.display) : OTHER_ORIGIN_401;
        return httpStatusError(init.cameraId, url, res.statusCode, Array.isArray(location) ? location[0] : location, hint);
      },
    };
  };
  for (let hops = 0; ; ) {
    const own = target.origin === origin;
    const authorization = own ? parts.auth.header('GET', `${target.pathname}${target.search}`) : undefined;
    let res: Dispatcher.ResponseData;
    parts.stats.s.requests++;
    try {
      res = await request(target.href, {
        method: 'GET',
        headers: authorization === undefined ? init.headers : { ...init.headers, authorization },
        dispatcher: parts.dispatcher,
        signal: init.signal,
        headersTimeout: init.timeoutMs,
        bodyTimeout: init.timeoutMs,
      });
    } catch (err) {
      // A certificate not accepted is told as such, with the fingerprint to pin (TC_ERR_SOURCE_TLS), not as a
      // network failure to check the host and port for.
      const problem = init.signal.aborted ? undefined : certificateProblem(err);
      // Classified here, where the URL it failed at (a redirect's target) is known.
      if (problem === undefined) throw classifyRequestError(err, { cameraId: init.cameraId, url, timeoutMs: init.timeoutMs, timedOut: init.timedOut() });
      throw await certificateError(problem, { cameraId: init.cameraId, url, href: target.href, own, timeoutMs: init.timeoutMs, cause: err, signal: init.signal });
    }
    if (REDIRECT_STATUS.has(res.statusCode)) {
      const next = redirectTarget(res.headers.location, target);
      // Without a usable Location the answer goes back, and httpStatusError names it.
      if (next === undefined) return answer(res, own);
      await res.body.dump().catch(() => undefined);
      if (++hops > MAX_REDIRECTS) {
        throw new SourceError(
          'TC_ERR_SOURCE_HTTP',
          `camera ${init.cameraId}: GET ${parts.url.display} was redirected more than ${MAX_REDIRECTS} times (the latest to ${hideUrlPassword(next.href)}); ` +
            `check the camera URL (a redirect loop), or put the URL it ends at in the configuration`,
          { status: res.statusCode },
        );
      }
      // A move to another address of the same resource only: cameras that send their URL on to each new image (a
      // new name each time) with a 301 would otherwise be asked for the first image for ever.
      permanent &&= (res.statusCode === 301 || res.statusCode === 308) && next.pathname === camera.pathname && next.search === camera.search;
      if (permanent) movedTo = next;
      target = next;
      url = `${parts.url.display} (redirected to ${hideUrlPassword(next.href)})`;
      continue;
    }
    if (res.statusCode !== 401 || !own) return answer(res, own);
    // The answer to a retry is learnt from too (its new nonce), but not tried again: one retry per poll at most, and
    // a wrong password then costs one request per poll (a camera may lock the account after a few refusals).
    const retry = parts.auth.challenged(res.headers['www-authenticate'], authorization);
    if (retried || !retry) return answer(res, own);
    retried = true;
    // Reading the short 401 body keeps the keep-alive socket for the answer.
    await res.body.dump().catch(() => undefined);
  }
}

/** A 401 from where the camera redirected to: credentials were not sent there (see requestCamera). */
const OTHER_ORIGIN_401 =
  'the server the camera redirected to asks for a user and password, which are sent to the camera URL\'s own address (scheme, host and port) only, as a browser does; ' +
  'if that server is the camera, put the URL it redirected to in the configuration, with the user and password in it';

/** Where a redirect points, resolved against the URL that answered it; undefined when missing or not http(s). */
function redirectTarget(location: string | string[] | undefined, base: URL): URL | undefined {
  const text = Array.isArray(location) ? location[0] : location;
  if (!text) return undefined;
  try {
    const next = new URL(text, base);
    return next.protocol === 'http:' || next.protocol === 'https:' ? next : undefined;
  } catch {
    return undefined;
  }
}

/** How long close() waits for requests to settle and the dispatcher to finish before destroying its sockets. */
const CLOSE_DRAIN_MS = 2_000;

/**
 * Closes an HTTP source: aborts its requests (`abort`), halts its slot clock, waits up to CLOSE_DRAIN_MS for
 * `pending` (its requests or stream readers) to settle and for a dispatcher it owns to close, and destroys
 * that dispatcher's sockets if they did not.
 */
export async function closeHttpSource(parts: {
  readonly abort: AbortController;
  readonly clock: SlotClock;
  readonly pending: Iterable<Promise<unknown>>;
  readonly dispatcher: Dispatcher;
  readonly ownsDispatcher: boolean;
}): Promise<void> {
  parts.abort.abort();
  parts.clock.halt();
  // Aborted requests settle almost at once; the time limit covers a dispatcher that does not.
  const settled = Promise.allSettled([...parts.pending]).then(async () => {
    if (parts.ownsDispatcher) await parts.dispatcher.close();
  });
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    settled.then(() => true, () => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_DRAIN_MS))),
  ]);
  clearTimeout(timer);
  if (!drained && parts.ownsDispatcher) await parts.dispatcher.destroy().catch(() => undefined);
}
