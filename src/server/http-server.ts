// The HTTP API (node:http, no framework): GET /api/counts, GET /api/health, each camera's latest image at
// GET /api/cameras/ID/latest.jpg, Prometheus metrics at GET /metrics, and the dashboard at /.
// Reads the count database read-only; bad input gets a 4xx naming the parameter, never a crash.

import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { QueryError, QueryLimitError, TrafficCounterError, UsageError } from '../errors.js';
import { listenFailure } from '../listen-error.js';
import { parseQueryParams, type CountFormat } from '../store/query-counts.js';
import { DASHBOARD_HTML } from './dashboard-html.js';
import { formatMetrics, type MetricsSource } from './format-metrics.js';
import { QueryRunner, type QueryRunnerStats } from './query-runner.js';

export const HTTP_DEFAULTS = {
  host: '127.0.0.1', // loopback only unless the user asks for more
  port: 0, // 0 = a random free port
  maxRows: 100_000, // largest /api/counts answer; beyond it a 400 asks to narrow the query
  // /api/counts runs in a worker thread, one query at a time (the daemon's thread never waits for a read):
  queryTimeoutMs: 30_000, // a query not answered this long after it came gets 503 TC_ERR_QUERY_TIMEOUT and is given up
  maxWaitingQueries: 8, // queries waiting behind the running one; more get 503 TC_ERR_QUERY_BUSY at once
  maxUrlLength: 8_192, // longer request targets get 414
  // A client that never reads its answer kept it in memory for as long as it stayed connected (32 such clients of a
  // 29 MB answer took the server from 48 MB to 1,150 MB RSS):
  maxSendingAnswers: 4, // /api/counts answers being written at once; more get 503 TC_ERR_QUERY_BUSY
  sendStallMs: 30_000, // an answer whose client takes none of it for this long has its connection cut
  closeDrainMs: 1_000, // close(): the most it waits for answers being written (the 503s to queries it refuses) before cutting the sockets
} as const;

export interface HttpServerOptions {
  host?: string;
  port?: number;
  dbPath: string;
  /** Live figures for /api/health (the daemon's: its channel, and per camera), answered beside `ok`. */
  stats?: () => MetricsSource;
  /**
   * The latest image a camera sent, as it sent it (the daemon's): undefined for no such camera, null before its
   * first image. Without it (a server over a database alone) there are no cameras.
   */
  latestImage?: (cameraId: string) => { readonly jpeg: Uint8Array; readonly capturedAt: number } | null | undefined;
  /**
   * Host names (lower case, no port) the server answers to besides IP addresses, localhost and `host` when it is a
   * name; a request naming another in its Host header gets 403 (see hostRefusal).
   */
  allowedHosts?: readonly string[];
  maxRows?: number;
  queryTimeoutMs?: number;
  maxWaitingQueries?: number;
  maxSendingAnswers?: number;
  sendStallMs?: number;
}

export interface HttpServerHandle extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const COUNT_PARAMS = new Set(['bucket', 'camera', 'line', 'from', 'to', 'format', 'byClass', 'tz']);

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Reply {
  status: number;
  type: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
  /** A /api/counts answer: counted among the answers being sent (maxSendingAnswers) until written. */
  counted?: boolean;
}

/** Pieces an answer is written in: each one taken by the client is progress that keeps the connection. */
const PIECE_BYTES = 64 * 1024;

/** The content type of each /api/counts format (JSON is also every error's). */
const COUNT_TYPES: Readonly<Record<CountFormat, string>> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  table: 'text/plain; charset=utf-8',
};

const LATEST_IMAGE = /^\/api\/cameras\/([^/]+)\/latest\.jpg$/;

function json(status: number, value: unknown): Reply {
  return { status, type: COUNT_TYPES.json, body: `${JSON.stringify(value)}\n` };
}

function errorReply(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return { ...json(status, { error: { code, message } }), headers };
}

const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)(.*)$/is;

/**
 * Splits the raw request target without URL's host rules (`//x/y` must not become host "x"). An absolute-form
 * target (`GET http://127.0.0.1:8080/api/health`, which HTTP/1.1 servers must accept, RFC 9112 3.2.2) was answered
 * 404 for its path `http://…`: its path and query are taken after the authority, which is returned too (it then
 * stands for the Host header).
 */
function splitTarget(target: string): { pathname: string; search: string; authority?: string } {
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute) {
    const rest = absolute[2] === '' || absolute[2]!.startsWith('?') ? `/${absolute[2]}` : absolute[2]!;
    return { ...splitTarget(rest), authority: absolute[1]! };
  }
  const q = target.indexOf('?');
  return q === -1 ? { pathname: target, search: '' } : { pathname: target.slice(0, q), search: target.slice(q + 1) };
}

function rawCountParams(search: string): Record<string, string> {
  // URLSearchParams never throws: a bad %-escape stays literal and then fails validation by name.
  const sp = new URLSearchParams(search);
  const raw: Record<string, string> = {};
  for (const [key, value] of sp) {
    if (!COUNT_PARAMS.has(key)) {
      throw new HttpError(400, 'TC_ERR_QUERY', `${JSON.stringify(key.slice(0, 40))}: unknown parameter; use ${[...COUNT_PARAMS].join(', ')}`);
    }
    if (Object.hasOwn(raw, key)) throw new HttpError(400, 'TC_ERR_QUERY', `${key}: given more than once; give it once`);
    raw[key] = value;
  }
  return raw;
}

/** The host name of a Host header or absolute-form authority: lower case, without user, port, brackets or final dot. */
function hostName(authority: string): string {
  let h = authority.trim().toLowerCase();
  h = h.slice(h.lastIndexOf('@') + 1);
  if (h.startsWith('[')) return h.slice(1, h.includes(']') ? h.indexOf(']') : undefined);
  if (net.isIP(h) === 0 && h.includes(':')) h = h.slice(0, h.lastIndexOf(':'));
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** Why the API could not listen on host:port, naming run's flags with the config keys they override. */
function httpListenError(err: NodeJS.ErrnoException, host: string, port: number): UsageError {
  return new UsageError(`http API: ${listenFailure(err, host, port, { host: '--http-host (httpHost)', port: '--http (httpPort)' })}`, { cause: err });
}

/**
 * Rejects, as startHttpServer would, when the API could not listen on host:port (a port in use, an address not of
 * this machine); resolves once a trial listener there has closed again. For `run` to refuse before it starts the
 * simulator, the camera probe or the database, not after.
 */
export async function checkHttpListen(host: string = HTTP_DEFAULTS.host, port: number = HTTP_DEFAULTS.port): Promise<void> {
  const trial = net.createServer();
  await new Promise<void>((resolve, reject) => {
    trial.once('error', (err: NodeJS.ErrnoException) => reject(httpListenError(err, host, port)));
    trial.listen(port, host, () => resolve());
  });
  await new Promise<void>((resolve) => trial.close(() => resolve()));
}

/** Starts the API server; resolves once it listens. Binds 127.0.0.1 unless `host` says otherwise. */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServerHandle> {
  const host = opts.host ?? HTTP_DEFAULTS.host;
  const port = opts.port ?? HTTP_DEFAULTS.port;
  const maxRows = opts.maxRows ?? HTTP_DEFAULTS.maxRows;
  const maxSending = opts.maxSendingAnswers ?? HTTP_DEFAULTS.maxSendingAnswers;
  const sendStallMs = opts.sendStallMs ?? HTTP_DEFAULTS.sendStallMs;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`http port: must be an integer 0-65535 (0 = random), got ${String(port)}`);
  }
  const runner = new QueryRunner(opts.dbPath, {
    timeoutMs: opts.queryTimeoutMs ?? HTTP_DEFAULTS.queryTimeoutMs,
    maxWaiting: opts.maxWaitingQueries ?? HTTP_DEFAULTS.maxWaitingQueries,
  });
  const allowedNames = new Set([...(opts.allowedHosts ?? []).map(hostName), ...(net.isIP(host) === 0 ? [hostName(host)] : [])]);

  /**
   * DNS rebinding: a page on another site that makes its own name resolve to 127.0.0.1 reads the API as its own
   * origin (with Host: that name, /api/counts, /api/health, /metrics and camera images were all answered). A browser
   * always names the host it thinks it talks to, so a name this server does not go by is refused; IP addresses and
   * localhost cannot be rebound to it by another site. No Host at all (HTTP/1.0) comes from no browser.
   */
  function hostRefusal(authority: string | undefined): Reply | undefined {
    if (authority === undefined) return undefined;
    const name = hostName(authority);
    if (name === '' || net.isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost') || allowedNames.has(name)) return undefined;
    return errorReply(
      403,
      'TC_ERR_HTTP_HOST',
      `Host ${JSON.stringify(authority.slice(0, 80))}: not a name this server answers to (refused so that a web page whose name is made to point here cannot read it: DNS rebinding); ` +
        `to reach it by ${JSON.stringify(name.slice(0, 80))}, add that name to httpAllowedHosts in the config or give run --http-allowed-host ${name.slice(0, 80)}, or use its IP address or localhost`,
    );
  }

  let sending = 0; // /api/counts answers written but not yet taken by their clients
  let sendBusy = 0; // queries refused because maxSendingAnswers were being sent
  let stalled = 0; // answers (any endpoint's) cut off: their client took nothing for sendStallMs

  /** Refuses a query while maxSendingAnswers answers are still being sent: each holds its whole body in memory. */
  function checkSending(): void {
    if (sending < maxSending) return;
    sendBusy++;
    throw new QueryLimitError(
      'TC_ERR_QUERY_BUSY',
      `${sending} /api/counts answers are still being sent to clients that have not read them yet, as many as the server holds; retry in a moment (an answer whose client reads none of it for ${sendStallMs / 1000} s is dropped)`,
    );
  }

  async function counts(search: string, gone: AbortSignal): Promise<Reply> {
    const params = parseQueryParams(rawCountParams(search), 'http');
    // Checked here so "no data yet" is a 503 rather than a 400 blaming the parameters.
    if (!fs.existsSync(opts.dbPath)) {
      throw new HttpError(503, 'TC_ERR_STORE', `no count database yet at ${opts.dbPath}; the daemon creates it when it starts`);
    }
    checkSending();
    const body = await runner.run(params, maxRows, gone);
    // Again once answered: the queries waiting in the runner would otherwise each add an answer beyond the bound.
    checkSending();
    return { status: 200, type: COUNT_TYPES[params.format], body, counted: true };
  }

  /**
   * Writes the body in pieces; a client that takes none of it for sendStallMs has its connection cut, so that its
   * answer is not held for as long as it stays connected. A slow client that keeps reading keeps its connection.
   */
  function writeBody(res: http.ServerResponse, body: Uint8Array | undefined, counted: boolean): void {
    if (counted) {
      sending++;
      res.once('close', () => sending--);
    }
    const timer = setTimeout(() => {
      stalled++;
      res.destroy();
    }, sendStallMs);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
    const progress = (): void => {
      timer.refresh();
    };
    let offset = 0;
    const pump = (): void => {
      while (body && offset + PIECE_BYTES < body.length) {
        const piece = body.subarray(offset, offset + PIECE_BYTES);
        offset += piece.length;
        if (!res.write(piece, progress)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end(body?.subarray(offset));
    };
    pump();
  }

  function latestImage(encodedId: string): Reply {
    let id: string;
    try {
      id = decodeURIComponent(encodedId);
    } catch {
      id = encodedId;
    }
    const image = opts.latestImage?.(id);
    const name = JSON.stringify(id.slice(0, 80));
    if (image === undefined) throw new HttpError(404, 'TC_ERR_QUERY', `camera ${name}: no such camera; /api/health lists the cameras`);
    if (image === null) throw new HttpError(503, 'TC_ERR_NO_IMAGE', `camera ${name}: no image yet; /api/health tells why (its status and warnings)`);
    return { status: 200, type: 'image/jpeg', body: image.jpeg, headers: { 'last-modified': new Date(image.capturedAt).toUTCString() } };
  }

  /**
   * /api/health's `queries`: the runner's figures, with the answers being sent and those cut off (stalled), and
   * refusals for either limit counted as busy.
   */
  function queryStats(): QueryRunnerStats & { readonly sending: number; readonly stalled: number } {
    const s = runner.stats();
    return { ...s, busy: s.busy + sendBusy, sending, stalled };
  }

  async function route(req: http.IncomingMessage, gone: AbortSignal): Promise<Reply> {
    const target = req.url ?? '/';
    const { pathname, search, authority } = splitTarget(target);
    // An absolute-form target's authority stands for the Host header (RFC 9112 3.2.2).
    const refused = hostRefusal(authority ?? req.headers.host);
    if (refused) return refused;
    if (target.length > HTTP_DEFAULTS.maxUrlLength) {
      return errorReply(414, 'TC_ERR_QUERY', `request URL is ${target.length} characters; the limit is ${HTTP_DEFAULTS.maxUrlLength}; shorten the query`);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return errorReply(405, 'TC_ERR_QUERY', `${String(req.method).slice(0, 20)} is not supported; use GET`, { allow: 'GET, HEAD' });
    }
    switch (pathname) {
      case '/':
      case '/index.html':
        return { status: 200, type: 'text/html; charset=utf-8', body: DASHBOARD_HTML };
      case '/api/counts':
        return counts(search, gone);
      case '/api/health': {
        // Without a daemon (a server over a database alone) there are no cameras to report. A daemon whose
        // database refuses writes is not healthy (503, for Docker's HEALTHCHECK and load balancers), whatever its
        // cameras do: it said ok while its counts piled up in memory (a full disk, helper 26).
        const stats = opts.stats ? opts.stats() : { cameras: [] };
        const ok = stats.store?.ok ?? true;
        return json(ok ? 200 : 503, { ok, ...stats, queries: queryStats() });
      }
      case '/metrics':
        return { status: 200, type: 'text/plain; version=0.0.4; charset=utf-8', body: formatMetrics(opts.stats ? opts.stats() : { cameras: [] }) };
      default: {
        const image = LATEST_IMAGE.exec(pathname);
        if (image) return latestImage(image[1]!);
        return errorReply(404, 'TC_ERR_QUERY', `${JSON.stringify(pathname.slice(0, 80))}: no such endpoint; use /api/counts?bucket=hour, /api/health, /api/cameras/ID/latest.jpg, /metrics or /`);
      }
    }
  }

  async function respond(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // A client that leaves before its answer gives up its query (its place in the queue, or the read itself).
    const gone = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) gone.abort(new Error('the client closed the connection'));
    };
    res.once('close', onClose);
    let reply: Reply;
    try {
      reply = await route(req, gone.signal);
    } catch (err) {
      if (err instanceof HttpError) reply = errorReply(err.status, err.code, err.message);
      else if (err instanceof QueryError) reply = errorReply(400, err.code, err.message);
      // Busy: worth retrying soon. Timed out: the same query would time out again.
      else if (err instanceof QueryLimitError) reply = errorReply(503, err.code, err.message, err.code === 'TC_ERR_QUERY_BUSY' ? { 'retry-after': '1' } : undefined);
      else if (err instanceof TrafficCounterError) reply = errorReply(500, err.code, err.message);
      else reply = errorReply(500, 'TC_ERR_INTERNAL', `internal error: ${(err as Error)?.message ?? String(err)}`);
    }
    // A client that left while its query ran (or a server closing under it) gets nothing.
    if (res.destroyed) return;
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
    res.writeHead(reply.status, {
      'content-type': reply.type,
      'content-length': body.length,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      // Another site's page may not embed the answers (a camera image in an <img>, counts as a <script>).
      'cross-origin-resource-policy': 'same-origin',
      // The dashboard's only script and style are inline; it talks to this origin only.
      'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'",
      ...reply.headers,
      // Closing: the client is not to send another request on this connection.
      ...(closing ? { connection: 'close' } : {}),
    });
    writeBody(res, req.method === 'HEAD' ? undefined : body, reply.counted === true);
  }

  /** Each request until its answer is written (or its connection is gone): close() lets these finish first. */
  const replies = new Set<Promise<void>>();
  let closing: Promise<void> | undefined;
  const server = http.createServer((req, res) => {
    const written = new Promise<void>((resolve) => res.once('close', resolve));
    replies.add(written);
    void written.then(() => replies.delete(written));
    void respond(req, res);
  });
  // Malformed requests: answer 400 if the socket can still take it, never throw. A request line and headers
  // over Node's limit (16 KB) never reach route(): say so, as route() does for URLs over maxUrlLength.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const [status, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? ['431 Request Header Fields Too Large', `request URL and headers are over the server's ${http.maxHeaderSize}-byte limit; shorten the URL (at most ${HTTP_DEFAULTS.maxUrlLength} characters) or the headers`]
        : ['400 Bad Request', 'malformed HTTP request; send a GET such as /api/counts?bucket=hour'];
    const body = JSON.stringify({ error: { code: 'TC_ERR_QUERY', message } });
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      void runner.close();
      // run's flags, with the config keys they override.
      reject(httpListenError(err, host, port));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', () => {
    // After listening, socket-level errors are per connection; nothing to do at server level.
  });

  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // Stop accepting (idle keep-alive sockets are closed too); then the queries held are refused, and their
      // clients get the 503 saying so. Cutting every socket first, as before, reset their connections instead.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const refused = runner.close();
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, HTTP_DEFAULTS.closeDrainMs);
      });
      await Promise.race([Promise.all([...replies]), limit]);
      clearTimeout(timer);
      // What is left (a client not reading its answer, a keep-alive socket) would hold close() open.
      server.closeAllConnections();
      await Promise.all([closed, refused]);
    })();
    return closing;
  };
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    close,
    [Symbol.asyncDispose]: close,
  };
}
