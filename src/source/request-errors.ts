// The SourceErrors of a camera request: maps what undici/node throw (ECONNREFUSED, UND_ERR_*_TIMEOUT, ...) and
// bad answers (HTTP status, HTML login page, oversized body) to stable codes with a message saying what to check.

import { STATUS_CODES } from 'node:http';

import { SourceError } from '../errors.js';
import { hideUrlPassword, webPageFix } from './camera-url.js';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

const TIMEOUT_PHASE: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'could not connect',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers',
  UND_ERR_BODY_TIMEOUT: 'the body stalled',
  ETIMEDOUT: 'could not connect',
};

/** The first `code` found on the error, its cause, or (happy-eyeballs AggregateError) its inner errors. */
function findCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') return e.code;
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const c = findCode(inner, depth + 1);
      if (c) return c;
    }
  }
  return findCode(e.cause, depth + 1);
}

function describe(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describe(err.errors[0]);
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

export interface RequestContext {
  readonly cameraId: string;
  /** Redacted URL for the message. */
  readonly url: string;
  readonly timeoutMs: number;
  /** True when our own overall timer aborted the request. */
  readonly timedOut: boolean;
  /** Set once the camera had answered and its image was being read: the status, bytes read and declared. */
  readonly body?: { readonly status: number; readonly read: number; readonly declared: number | undefined };
  /** Set once an MJPEG camera had answered with its stream: the status, frames (parts) and bytes read on the connection. */
  readonly stream?: { readonly status: number; readonly frames: number; readonly bytes: number };
}

export function classifyRequestError(err: unknown, ctx: RequestContext): SourceError {
  if (err instanceof SourceError) return err;
  const code = findCode(err);
  if (ctx.timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
    const what = TIMEOUT_PHASE[code ?? ''] ?? 'no complete answer';
    return new SourceError(
      'TC_ERR_SOURCE_TIMEOUT',
      `camera ${ctx.cameraId}: GET ${ctx.url} timed out after timeoutMs=${ctx.timeoutMs} (${what}); ` +
        `check that the camera is reachable and not overloaded, or raise the camera's timeoutMs`,
      { cause: err },
    );
  }
  // What went wrong, as the error says it, and its code when the words do not already name it.
  const detail = describe(err);
  const extraCode = code !== undefined && !detail.includes(code) ? code : undefined;
  /** The two as said inside brackets. */
  const said = `${detail}${extraCode ? `, ${extraCode}` : ''}`;
  if (ctx.body !== undefined) {
    // The camera was reached and answered: the host and port are right, the image was cut short.
    const { status, read, declared } = ctx.body;
    return new SourceError(
      'TC_ERR_SOURCE_NETWORK',
      `camera ${ctx.cameraId}: GET ${ctx.url} answered HTTP ${status}, then the connection broke after ${read}${declared !== undefined ? ` of ${declared}` : ''} bytes of the image ` +
        `(${said}); the camera or a proxy cut it short: check the camera's load and the network to it`,
      { cause: err },
    );
  }
  if (ctx.stream !== undefined) {
    // The camera was reached and was streaming: the host and port are right, the stream was cut (a camera that
    // caps its viewers or stream time, a proxy, a network that drops long connections).
    const { status, frames, bytes } = ctx.stream;
    return new SourceError(
      'TC_ERR_SOURCE_NETWORK',
      `camera ${ctx.cameraId}: MJPEG stream ${ctx.url} answered HTTP ${status} and sent ${frames} frames (${bytes} bytes), then the connection broke ` +
        `(${said}); reconnecting. The camera or a proxy cut the stream: if this repeats, check the camera's load ` +
        `(its other viewers, a limit on stream time) and the network to it`,
      { cause: err },
    );
  }
  // The camera was reached (the connection was accepted) but gave no HTTP answer: the host is right, the scheme or
  // port likely not (an https:// camera asked over http://, an RTSP port), or the camera dropped the request.
  if ((err as { name?: unknown } | null)?.name === 'HTTPParserError' || code?.startsWith('HPE_')) {
    return new SourceError(
      'TC_ERR_SOURCE_NETWORK',
      `camera ${ctx.cameraId}: GET ${ctx.url} was answered with something that is not HTTP (${said}); ` +
        `check the scheme and port in the camera URL: an https:// camera asked over http://, or a port of another service (RTSP is 554)`,
      { cause: err },
    );
  }
  // Reached, and answering HTTP, but with more header bytes than undici reads (16 KiB): not a camera's image answer
  // (a web application setting many cookies, another service). It was told to check the host and the network.
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return new SourceError(
      'TC_ERR_SOURCE_NETWORK',
      `camera ${ctx.cameraId}: GET ${ctx.url} answered with HTTP headers over 16 KiB (${said}), which no camera's image answer has; ` +
        `check that the URL is the camera's snapshot or stream URL, not a web page or another service`,
      { cause: err },
    );
  }
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') {
    return new SourceError(
      'TC_ERR_SOURCE_NETWORK',
      `camera ${ctx.cameraId}: GET ${ctx.url} failed: the camera accepted the connection, then closed it without answering (${said}); ` +
        `check the scheme and port in the camera URL (an https:// camera asked over http://?) and the camera's load (many cameras drop requests beyond a few connections)`,
      { cause: err },
    );
  }
  return new SourceError(
    'TC_ERR_SOURCE_NETWORK',
    `camera ${ctx.cameraId}: GET ${ctx.url} failed: ${detail}${extraCode ? ` (${extraCode})` : ''}; ` +
      `check the host and port in the camera URL and that the camera is on the network`,
    { cause: err },
  );
}

const STATUS_HINTS: Record<number, string> = {
  403: 'check the user and password in the camera URL and that this user may read snapshots',
  404: 'check the path in the camera URL (each camera model has its own snapshot/stream path)',
};

/**
 * A non-2xx answer; `hint`, when given, replaces the status's own. A 401's is always given, from what the camera
 * asked (CameraAuth.refusalHint) or whose answer it was (requestCamera).
 */
export function httpStatusError(cameraId: string, url: string, status: number, location?: string, hint?: string): SourceError {
  const text = STATUS_CODES[status] ?? '';
  hint ??= STATUS_HINTS[status] ?? 'check that the camera URL is right and the camera is up';
  if (status >= 300 && status < 400) {
    hint = `a redirect without a usable Location${location ? ` (${hideUrlPassword(location)})` : ''} to follow; put the URL the camera's images are at in the configuration`;
  }
  return new SourceError('TC_ERR_SOURCE_HTTP', `camera ${cameraId}: GET ${url} answered HTTP ${status}${text ? ` ${text}` : ''}; ${hint}`, { status });
}

/** True for a Content-Type that cannot be a JPEG (an HTML login page, a JSON error). Missing or generic types pass. */
export function isClearlyNotImage(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type.startsWith('text/') || type === 'application/json' || type === 'application/xml' || type === 'application/xhtml+xml' || type.endsWith('+json') || type.endsWith('+xml');
}

/**
 * The camera answered the other kind of source than the config's `kind` (a snapshot poll got an MJPEG stream, or
 * a stream request got a single image): names the kind to set. kindToSet reads it back (the --camera probe).
 */
export function wrongKindError(cameraId: string, url: string, contentType: string, kindToSet: 'snapshot' | 'mjpeg'): SourceError {
  const [got, not] = kindToSet === 'mjpeg' ? ['an MJPEG stream', 'a single image'] : ['a single image', 'an MJPEG stream'];
  return new SourceError(
    kindToSet === 'mjpeg' ? 'TC_ERR_SOURCE_HTTP' : 'TC_ERR_SOURCE_STREAM',
    `camera ${cameraId}: GET ${url} answered ${got} (Content-Type "${contentType}"), not ${not}; set the camera's kind to "${kindToSet}"`,
  );
}

/** The kind a wrongKindError says to set, or undefined for any other error. */
export function kindToSet(err: Error): 'snapshot' | 'mjpeg' | undefined {
  return /set the camera's kind to "(mjpeg|snapshot)"$/.exec(err.message)?.[1] as 'snapshot' | 'mjpeg' | undefined;
}

/** The errors notAnImageError made: isNotAnImage tells them (the --camera probe stops after a few in a row). */
const notAnImage = new WeakSet<Error>();

/**
 * A 2xx answer whose Content-Type cannot be a JPEG (see isClearlyNotImage): the URL is a web page or an API, not
 * the camera's pictures, or the camera wants a login and shows its page for it.
 */
export function notAnImageError(cameraId: string, url: string, status: number, contentType: string): SourceError {
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  const what = type.includes('html') ? 'an HTML page' : type.includes('json') ? 'a JSON document' : type.includes('xml') ? 'an XML document' : 'text';
  const err = new SourceError(
    'TC_ERR_SOURCE_HTTP',
    `camera ${cameraId}: GET ${url} answered HTTP ${status} with ${what} (Content-Type "${contentType}"), not a JPEG snapshot or MJPEG stream; ` +
      // A URL with its password in the query (`?usr=admin&pwd=…`) that got a page: the camera did not take them.
      webPageFix("give the camera's snapshot or stream URL", url),
    // The status, as for other answers: the daemon's repeated-error log tells this answer from other HTTP ones by it.
    { status },
  );
  notAnImage.add(err);
  return err;
}

/** Whether `err` is a notAnImageError. */
export function isNotAnImage(err: Error): boolean {
  return notAnImage.has(err);
}

/**
 * `how`: 'header' = refused from Content-Length before reading; 'stream' = cut off while reading (`size` is what
 * was read); 'part' = one MJPEG part skipped (`size` is its Content-Length or the bytes seen before giving up:
 * `exact` tells which); 'parts' = an MJPEG connection given up because it sent only such parts (`size`: the latest).
 */
export function tooLargeError(cameraId: string, url: string, size: number, maxBodyBytes: number, how: 'header' | 'stream' | 'part' | 'parts', exact = false): SourceError {
  const bytes = `${exact ? '' : 'at least '}${size} bytes`;
  const what = {
    header: `announced ${size} bytes (Content-Length)`,
    stream: `sent more than ${maxBodyBytes} bytes (stopped reading at ${size})`,
    part: `sent an MJPEG frame of ${bytes} (skipped it)`,
    parts: `sent only MJPEG frames too large to keep (the latest ${bytes})`,
  }[how];
  return new SourceError(
    'TC_ERR_SOURCE_TOO_LARGE',
    `camera ${cameraId}: GET ${url} ${what}, over the limit maxBodyBytes=${maxBodyBytes}; ` +
      `raise the camera's maxBodyBytes if it really sends images this large`,
  );
}
