// HTTP front of the camera simulator: /snapshot.jpg, /stream.mjpg (MJPEG), /truth.json (ground truth),
// /config.json (a config that counts this camera) on loopback. Sim time 0 is the moment the server starts.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, UsageError } from '../../errors.js';
import { listenFailure } from '../../listen-error.js';
import { createScene, type Scene } from './scene.js';
import type { ScenarioName } from './scenarios.js';

export interface CameraSimOptions {
  readonly seed?: number;
  readonly scenario?: ScenarioName;
  /** Bind address; default 127.0.0.1. */
  readonly host?: string;
  /** Port; default 0 = any free port. */
  readonly port?: number;
  /** MJPEG stream frame rate, frames/s; default 2. */
  readonly streamFps?: number;
  /** Fixed JPEG quality; default varies 70-85 per frame. */
  readonly jpegQuality?: number;
  /** JPEG encoder (see SceneOptions.jpegEncoder); default 'builtin'. */
  readonly jpegEncoder?: 'builtin' | 'jpeg-js';
  /** Aborting closes the server. */
  readonly signal?: AbortSignal;
  /** Wall clock, epoch ms (default Date.now); tests pass a fixed clock to get reproducible frames. */
  readonly now?: () => number;
}

export interface CameraSim {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Epoch ms of sim time 0. */
  readonly startedAt: number;
  readonly scene: Scene;
  /** Frames skipped for slow MJPEG clients (backpressure). */
  readonly skippedStreamFrames: number;
  /** Ends open streams and stops listening; safe to call twice. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Snapshots are rendered on a 100 ms grid, so concurrent pollers share one encoded frame. */
const QUANTUM_MS = 100;
/** At most this many MJPEG clients; more get 503 (each costs a socket and a write per frame). */
const MAX_STREAM_CLIENTS = 32;
/** close() waits this long for requests in flight before cutting connections. */
const CLOSE_GRACE_MS = 2_000;
/** /truth.json does not simulate further than this beyond the present. */
const MAX_TRUTH_AHEAD_MS = 3_600_000;
const BOUNDARY = 'tcsimframe';

interface EncodedFrame {
  readonly quantum: number;
  readonly simTimeMs: number;
  readonly etag: string;
  readonly jpeg: Buffer;
}

/** Starts the simulator's HTTP server; resolves once it is listening. */
export async function startCameraSim(opts: CameraSimOptions = {}): Promise<CameraSim> {
  opts.signal?.throwIfAborted();
  const seed = opts.seed ?? 1;
  const scenario = opts.scenario ?? 'default';
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? 0;
  const streamFps = opts.streamFps ?? 2;
  const clock = opts.now ?? Date.now;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`camera-sim port: must be an integer from 0 to 65535 (0 = any free port), got ${String(port)}`);
  }
  if (typeof streamFps !== 'number' || !(streamFps >= 0.1 && streamFps <= 30)) {
    throw new ConfigError(`camera-sim streamFps: must be a number from 0.1 to 30 frames/s, got ${String(streamFps)}`);
  }
  const scene = createScene({
    seed,
    scenario,
    ...(opts.jpegQuality !== undefined ? { jpegQuality: opts.jpegQuality } : {}),
    ...(opts.jpegEncoder !== undefined ? { jpegEncoder: opts.jpegEncoder } : {}),
  });
  scene.render(0); // build the background now rather than on the first request

  let startedAt = clock();
  let cached: EncodedFrame | null = null;
  const streams = new Set<ServerResponse>();
  let streamTimer: NodeJS.Timeout | null = null;
  let skipped = 0;
  let baseUrl = '';
  let wildcard = false;

  const quantumAt = (nowMs: number): number => Math.max(0, Math.floor((nowMs - startedAt) / QUANTUM_MS));
  const etagOf = (quantum: number): string => `"sim-${seed}-${scenario}-${quantum}"`;

  const frameAt = (nowMs: number): EncodedFrame => {
    const quantum = quantumAt(nowMs);
    if (cached?.quantum !== quantum) {
      const { jpeg } = scene.encodeJpeg((quantum * QUANTUM_MS) / 1000);
      cached = { quantum, simTimeMs: startedAt + quantum * QUANTUM_MS, etag: etagOf(quantum), jpeg };
    }
    return cached;
  };

  const sendJson = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
    res.end(text);
  };

  const snapshot = (req: IncomingMessage, res: ServerResponse): void => {
    const now = clock();
    const quantum = quantumAt(now);
    const etag = etagOf(quantum);
    const simTimeMs = startedAt + quantum * QUANTUM_MS;
    const common = {
      ETag: etag,
      'Last-Modified': new Date(simTimeMs).toUTCString(),
      'Cache-Control': 'no-cache',
      'X-Sim-Time': String(simTimeMs),
    };
    const inm = req.headers['if-none-match'];
    if (inm && (inm.trim() === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) {
      res.writeHead(304, common); // checked before rendering: a revalidation costs no encode
      res.end();
      return;
    }
    const frame = frameAt(now);
    res.writeHead(200, { ...common, 'Content-Type': 'image/jpeg', 'Content-Length': frame.jpeg.length });
    res.end(frame.jpeg);
  };

  const writePart = (res: ServerResponse, frame: EncodedFrame): void => {
    // Skip rather than queue: a slow client gets fewer frames, never a growing buffer.
    if (res.writableNeedDrain) {
      skipped++;
      return;
    }
    res.write(`--${BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${frame.jpeg.length}\r\nX-Sim-Time: ${frame.simTimeMs}\r\n\r\n`);
    res.write(frame.jpeg);
    res.write('\r\n');
  };

  const stopStreamTimerIfIdle = (): void => {
    if (streams.size === 0 && streamTimer) {
      clearInterval(streamTimer);
      streamTimer = null;
    }
  };

  const stream = (req: IncomingMessage, res: ServerResponse): void => {
    if (streams.size >= MAX_STREAM_CLIENTS) {
      res.writeHead(503, { 'Content-Type': 'text/plain', 'Retry-After': '5' });
      res.end(`camera-sim: at most ${MAX_STREAM_CLIENTS} stream clients\n`);
      return;
    }
    res.writeHead(200, {
      'Content-Type': `multipart/x-mixed-replace; boundary=${BOUNDARY}`,
      'Cache-Control': 'no-cache, no-store',
      Pragma: 'no-cache',
      Connection: 'close', // the socket goes when the stream ends, so close() need not wait for it
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    streams.add(res);
    res.on('close', () => {
      streams.delete(res);
      stopStreamTimerIfIdle();
    });
    writePart(res, frameAt(clock()));
    streamTimer ??= setInterval(() => {
      const frame = frameAt(clock());
      for (const r of streams) writePart(r, frame);
    }, 1000 / streamFps);
  };

  const truth = (url: URL, res: ServerResponse): void => {
    const now = clock();
    let until = now;
    const q = url.searchParams.get('until');
    if (q !== null && q !== '') {
      until = /^\d+$/.test(q) ? Number(q) : Date.parse(q);
      if (!Number.isFinite(until)) {
        sendJson(res, 400, { error: `until: expected epoch milliseconds or an ISO time, got "${q}"` });
        return;
      }
      if (until > now + MAX_TRUTH_AHEAD_MS) {
        sendJson(res, 400, { error: `until: at most one hour ahead of now (${new Date(now).toISOString()}), got ${new Date(until).toISOString()}` });
        return;
      }
    }
    const untilSec = Math.max(0, (until - startedAt) / 1000);
    const events = scene.crossings(untilSec).map((e) => ({
      t: e.t,
      time: new Date(Math.round(startedAt + e.t * 1000)).toISOString(),
      lineId: e.lineId,
      direction: e.direction,
      x: Math.round(e.x * 10) / 10,
      type: e.type,
      vehicleId: e.vehicleId,
    }));
    sendJson(res, 200, {
      lines: scene.truthCounts(untilSec).lines,
      events,
      startedAt: new Date(startedAt).toISOString(),
      until: new Date(Math.max(until, startedAt)).toISOString(),
    });
  };

  const index = (res: ServerResponse): void => {
    const body = `<!doctype html><meta charset="utf-8"><title>traffic-counter camera-sim</title>
<h1>camera-sim</h1><p>seed ${seed}, scenario ${scenario}, started ${new Date(startedAt).toISOString()}</p>
<p><img src="/snapshot.jpg" width="640" height="360" alt="current frame"></p>
<ul><li><a href="/snapshot.jpg">/snapshot.jpg</a> current frame</li><li><a href="/stream.mjpg">/stream.mjpg</a> MJPEG stream (${streamFps} fps)</li>
<li><a href="/truth.json">/truth.json</a> ground-truth crossings (?until=ISO or epoch ms)</li><li><a href="/config.json">/config.json</a> config to count this camera</li></ul>\n`;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };

  /**
   * The camera's URL as a daemon should ask for it. Bound to every interface (0.0.0.0, ::), the bound address names no
   * machine to another one (http://0.0.0.0:PORT sends a daemon elsewhere to itself): the host the client reached this
   * server by (its Host header, as a browser or curl sends it) is used instead, where it is a plain host[:port].
   */
  const cameraBaseUrl = (req: IncomingMessage): string => {
    const host = req.headers.host;
    if (!wildcard || host === undefined || !/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host)) return baseUrl;
    return `http://${host}`;
  };

  const server = createServer((req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
        res.end('camera-sim: only GET and HEAD\n');
        return;
      }
      switch (url.pathname) {
        case '/snapshot.jpg': return snapshot(req, res);
        case '/stream.mjpg': return stream(req, res);
        case '/truth.json': return truth(url, res);
        case '/config.json':
          return sendJson(res, 200, { cameras: [{ ...scene.cameraConfig(), url: `${cameraBaseUrl(req)}/snapshot.jpg`, pollIntervalMs: 500 }] });
        case '/': return index(res);
        default:
          res.writeHead(404, { 'Content-Type': 'text/plain' });
          res.end(`camera-sim: no ${url.pathname}; try /snapshot.jpg, /stream.mjpg, /truth.json, /config.json\n`);
      }
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { error: String((err as Error)?.message ?? err) });
      else res.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      reject(new UsageError(`camera-sim: ${listenFailure(err, host, port, { host: '--host', port: '--port' })}`, { cause: err }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  baseUrl = `http://${urlHost}:${addr.port}`;
  wildcard = addr.address === '0.0.0.0' || addr.address === '::';
  startedAt = clock(); // sim time 0 = when the camera starts answering

  let closing: Promise<void> | null = null;
  const onAbort = (): void => void close();
  const close = (): Promise<void> => {
    closing ??= (async () => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (streamTimer) clearInterval(streamTimer);
      streamTimer = null;
      for (const r of streams) r.end();
      streams.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      await closed;
      clearTimeout(timer);
    })();
    return closing;
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  return {
    url: baseUrl,
    port: addr.port,
    startedAt,
    scene,
    get skippedStreamFrames() {
      return skipped;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
