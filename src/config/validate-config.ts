// Validates a configuration object once, at start-up, and returns it deeply frozen.
// Every error names the key (e.g. `cameras[0].roi`) and says how to fix it.

import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { CAMERA_DEFAULTS, DAEMON_DEFAULTS, decodeMemoryFor } from './defaults.js';
import type { CameraConfig, Config, LineConfig, Point } from './config-types.js';
import { DECODE_SCALES, isDecodeScale, type DecodeScale } from '../decode/decode-scale.js';
import { DECODERS } from '../decode/decoder-name.js';
import { ID_RE } from './ids.js';
import { findSelfCrossing, segmentInPolygon } from './polygon-self-crossing.js';
import { resolveAnalyzerOptions } from '../analyze/analyzer-options.js';
import { hideUrlPassword } from '../source/camera-url.js';

/** The largest maxMegapixels a camera may be given (`run --camera` refuses a camera whose frames are larger). */
export const MAX_MEGAPIXELS = 100;

export interface ValidateOptions {
  /** Cameras must have a `url` (the daemon); replay and eval do not need one. */
  requireUrl: boolean;
}

const TOP_KEYS = new Set(['cameras', ...Object.keys(DAEMON_DEFAULTS)]);
const CAMERA_KEYS = new Set(['id', 'url', 'kind', 'roi', 'lines', 'drawnOn', 'analyzer', 'tlsFingerprint', 'tlsInsecure', ...Object.keys(CAMERA_DEFAULTS)]);
const LINE_KEYS = new Set(['id', 'from', 'to']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  // Any string may be a camera URL with a password (a url given where a list was expected, say).
  const s = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? hideUrlPassword(x) : x));
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** Points for a message, to 2 decimals: "[1,2]", "[1,2] and [3,4]", "[1,2], [3,4] and [5,6]", the first 3 "and 2 more". */
function listPoints(points: readonly Point[]): string {
  const shown = points.slice(0, 3).map((p) => describe(p.map((v) => Math.round(v * 100) / 100)));
  if (points.length > 3) return `${shown.join(', ')} and ${points.length - 3} more`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}` : shown[0]!;
}

function unknownKeys(obj: Record<string, unknown>, allowed: Set<string>, path: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.has(k)) {
      throw new ConfigError(`${path ? `${path}.` : ''}${k}: unknown key; allowed keys are ${[...allowed].join(', ')}`);
    }
  }
}

function num(obj: Record<string, unknown>, key: string, path: string, def: number, min: number, max: number, integer = false): number {
  const v = obj[key];
  if (v === undefined) return def;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) {
    throw new ConfigError(`${path}${path ? '.' : ''}${key}: must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${describe(v)}`);
  }
  return v;
}

function oneOf<T extends string>(obj: Record<string, unknown>, key: string, path: string, def: T, allowed: readonly T[]): T {
  const v = obj[key];
  if (v === undefined) return def;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new ConfigError(`${path}${path ? '.' : ''}${key}: must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(v)}`);
  }
  return v as T;
}

function point(v: unknown, path: string): Point {
  if (!Array.isArray(v) || v.length !== 2 || !v.every((c) => typeof c === 'number' && Number.isFinite(c))) {
    throw new ConfigError(`${path}: must be a point [x, y] in pixels of the full-size camera frame, got ${describe(v)}`);
  }
  return Object.freeze([v[0] as number, v[1] as number]) as Point;
}

function id(v: unknown, path: string): string {
  if (typeof v !== 'string' || !ID_RE.test(v)) {
    throw new ConfigError(`${path}: must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit, got ${describe(v)}`);
  }
  return v;
}

function validateLine(raw: unknown, path: string): LineConfig {
  if (!isObject(raw)) throw new ConfigError(`${path}: must be an object {"id": "...", "from": [x, y], "to": [x, y]}, got ${describe(raw)}`);
  unknownKeys(raw, LINE_KEYS, path);
  const from = point(raw.from, `${path}.from`);
  const to = point(raw.to, `${path}.to`);
  if (from[0] === to[0] && from[1] === to[1]) {
    throw new ConfigError(`${path}: "from" and "to" are the same point ${describe(from)}; a counting line needs two distinct ends`);
  }
  return Object.freeze({ id: id(raw.id, `${path}.id`), from, to });
}

/**
 * `drawnOn`: the [width, height] of the frame the ROI and lines were drawn on (JPEG sizes: 1 to 65535 px), and
 * every ROI corner and line end inside it.
 */
function validateDrawnOn(raw: unknown, roi: readonly Point[], lines: readonly LineConfig[], path: string): readonly [number, number] {
  const ok = (c: unknown): c is number => typeof c === 'number' && Number.isInteger(c) && c >= 1 && c <= 65535;
  if (!Array.isArray(raw) || raw.length !== 2 || !raw.every(ok)) {
    throw new ConfigError(`${path}.drawnOn: must be [width, height] in pixels (integers from 1 to 65535) of the frame the ROI and lines were drawn on, e.g. [1280, 720], got ${describe(raw)}`);
  }
  const [w, h] = raw as [number, number];
  const outside = (p: Point): boolean => p[0] < 0 || p[1] < 0 || p[0] > w || p[1] > h;
  const where = [...roi.map((p, i) => [p, `roi[${i}]`] as const), ...lines.flatMap((l, i) => [[l.from, `lines[${i}].from`] as const, [l.to, `lines[${i}].to`] as const])];
  for (const [p, key] of where) {
    if (outside(p)) throw new ConfigError(`${path}.${key}: ${describe(p)} lies outside the ${w}x${h} frame that ${path}.drawnOn says the ROI and lines were drawn on; fix the point, or set drawnOn to the size of the frame you drew on`);
  }
  return Object.freeze([w, h] as const);
}

/**
 * Camera ids, and a camera's line ids, must be unique, and differ by more than case: they name the counts in one
 * database, in the API's URLs and in `query --camera/--line`, which tell sim from SIM, easily taken for one another.
 * `key(i)` is the config key of the i-th id.
 */
function checkUniqueIds(ids: readonly string[], key: (i: number) => string, what: 'camera' | 'line'): void {
  const first = new Map<string, number>();
  for (const [i, v] of ids.entries()) {
    const j = first.get(v.toLowerCase());
    if (j === undefined) first.set(v.toLowerCase(), i);
    else if (ids[j] === v) throw new ConfigError(`${key(i)}: "${v}" is used twice${what === 'line' ? ' in this camera' : ''}; ${what} ids must be unique`);
    else throw new ConfigError(`${key(i)}: "${v}" differs from ${key(j)} "${ids[j]}" only in case, easily taken for one another (the database, the API and \`query --${what}\` tell ids apart by case): rename one`);
  }
}

/** Refuses an ROI whose edges cross or touch: its even-odd mask is not the region the points seem to outline. */
function checkSimplePolygon(roi: readonly Point[], path: string): void {
  const crossing = findSelfCrossing(roi);
  if (!crossing) return;
  const at = (p: Point): string => JSON.stringify(p.map((c) => Math.round(c * 10) / 10));
  const edge = (i: number): string => {
    const j = (i + 1) % roi.length;
    return `roi[${i}] ${at(roi[i]!)} to roi[${j}] ${at(roi[j]!)}`;
  };
  const [i, j] = crossing.edges;
  const how = crossing.kind === 'overlap' ? `run along each other from ${at(crossing.at)} to ${at(crossing.to!)}` : `${crossing.kind === 'cross' ? 'cross' : 'meet'} at ${at(crossing.at)}`;
  throw new ConfigError(
    `${path}.roi: the edges ${edge(i)} and ${edge(j)} ${how}; the mask (filled even-odd) would not be the region you outlined: ` +
      'list the points in order around the region, so that edges meet only where one ends and the next begins',
  );
}

function polygonArea(pts: readonly Point[]): number {
  let a = 0;
  for (let i = 0; i < pts.length; i++) {
    const p = pts[i]!;
    const q = pts[(i + 1) % pts.length]!;
    a += p[0] * q[1] - q[0] * p[1];
  }
  return Math.abs(a) / 2;
}

function validateAnalyzer(raw: unknown, path: string): Record<string, number | boolean> {
  if (raw === undefined) return Object.freeze({});
  if (!isObject(raw)) throw new ConfigError(`${path}: must be an object of analyzer tunables, got ${describe(raw)}`);
  const out = Object.freeze({ ...(raw as Record<string, number | boolean>) });
  // Keys, types, ranges and the checks between keys, at load time, naming the key (the frame-size keys left unset
  // are fitted to the camera's frames later; those given are checked here). resolveAnalyzerOptions checks each
  // value's type against the key's own: a general "number or boolean" check before it answered "no" for a switch
  // and "x" for a number alike, without the key's range, and an unknown key by its value's type.
  resolveAnalyzerOptions(out, path);
  return out;
}

/**
 * Whether a camera URL names an MJPEG stream, when the config does not say (`kind`): "mjpg"/"mjpeg" in the path
 * (Axis /axis-cgi/mjpg/video.cgi, /stream.mjpg), a path segment stream, video or videostream(.cgi) (ESP32-CAM
 * /stream, Foscam /videostream.cgi, IP Webcam /video), or mjpg-streamer's ?action=stream. Not "Streaming" within
 * a word (Hikvision's snapshot /ISAPI/Streaming/channels/101/picture). A wrong guess is told at the first answer,
 * with the fix.
 */
function looksLikeMjpeg(url: URL): boolean {
  return /mjpe?g/i.test(url.pathname) || /(^|\/)(stream|video|videostream)(\.cgi)?\/?$/i.test(url.pathname) || /(^|&)action=stream(&|$)/i.test(url.search.slice(1));
}

function validateCamera(raw: unknown, path: string, opts: ValidateOptions): CameraConfig {
  if (!isObject(raw)) throw new ConfigError(`${path}: must be an object with "id", "roi" and "lines", got ${describe(raw)}`);
  unknownKeys(raw, CAMERA_KEYS, path);
  const cameraId = id(raw.id, `${path}.id`);

  let url: string | undefined;
  if (raw.url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(String(raw.url));
    } catch {
      throw new ConfigError(`${path}.url: not a valid URL, got ${describe(raw.url)}; use e.g. "http://192.0.2.10/snapshot.jpg" (a "@", ":" or "/" in a password written %40, %3A, %2F)`);
    }
    if (typeof raw.url !== 'string' || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new ConfigError(`${path}.url: must be an http:// or https:// URL, got ${describe(raw.url)}`);
    }
    try {
      decodeURIComponent(parsed.username);
      decodeURIComponent(parsed.password);
    } catch {
      throw new ConfigError(`${path}.url: the user or password has a "%" that starts no valid escape; write a "%" in them as %25 (and "@" as %40, ":" in the user as %3A)`);
    }
    url = raw.url;
  } else if (opts.requireUrl) {
    throw new ConfigError(`${path}.url: missing; the daemon needs the camera's snapshot or MJPEG URL, e.g. "http://192.0.2.10/snapshot.jpg"`);
  }
  const guessedKind = url && looksLikeMjpeg(new URL(url)) ? 'mjpeg' : 'snapshot';
  const kind = oneOf(raw, 'kind', path, guessedKind, ['snapshot', 'mjpeg'] as const);

  if (!Array.isArray(raw.roi)) throw new ConfigError(`${path}.roi: must be a polygon [[x, y], ...] of at least 3 points, got ${describe(raw.roi)}`);
  if (raw.roi.length < 3) throw new ConfigError(`${path}.roi: polygon needs at least 3 points, got ${raw.roi.length}`);
  const roi = Object.freeze(raw.roi.map((p, i) => point(p, `${path}.roi[${i}]`)));
  // No frame has a pixel left of or above (0, 0): such a corner is a mistake on every camera, said at once, not at
  // the first frame (where a corner past the right or bottom edge, which depends on the frame's size, is told).
  roi.forEach((p, i) => {
    if (p[0] < 0 || p[1] < 0) {
      const edge = [p[0] < 0 && 'left', p[1] < 0 && 'top'].filter(Boolean).join(' and ');
      throw new ConfigError(
        `${path}.roi[${i}]: ${describe(p)} lies past the ${edge} edge of every frame; ROI coordinates are pixels of the full-size ` +
          'frame from (0, 0) at its top-left corner: move the point onto the frame (0 or more)',
      );
    }
  });
  checkSimplePolygon(roi, path);
  if (polygonArea(roi) < 1) throw new ConfigError(`${path}.roi: polygon has zero area; list its corners in order around the region`);

  if (!Array.isArray(raw.lines) || raw.lines.length === 0) {
    throw new ConfigError(`${path}.lines: must be a non-empty array of {"id", "from", "to"}, got ${describe(raw.lines)}`);
  }
  const lines = Object.freeze(raw.lines.map((l, i) => validateLine(l, `${path}.lines[${i}]`)));
  checkUniqueIds(lines.map((l) => l.id), (i) => `${path}.lines[${i}].id`, 'line');
  // A line with no point in the ROI never counts: it was told only once the analyzer had learnt the scene (about 30 s
  // in, as a warning: helper 51); it is the config's mistake, said at once.
  // So does one that only touches it, at a corner or with an end on its edge.
  lines.forEach((l, i) => {
    const lies = segmentInPolygon(l.from, l.to, roi);
    if (lies.kind !== 'stretch') {
      const where = lies.kind === 'point' ? `meets ${path}.roi only at ${listPoints(lies.at)}` : `lies wholly outside ${path}.roi`;
      throw new ConfigError(
        `${path}.lines[${i}] (${JSON.stringify(l.id)}): from ${describe(l.from)} to ${describe(l.to)} ${where}, where nothing is seen; ` +
          `draw the line across the road inside the ROI, or draw the ROI over it`,
      );
    }
  });

  const tls = validateTls(raw, path, url);
  const d = CAMERA_DEFAULTS;
  const backoffInitialMs = num(raw, 'backoffInitialMs', path, d.backoffInitialMs, 10, 3_600_000);
  const backoffMaxMs = num(raw, 'backoffMaxMs', path, d.backoffMaxMs, 10, 3_600_000);
  if (backoffMaxMs < backoffInitialMs) {
    throw new ConfigError(`${path}.backoffMaxMs: must be at least backoffInitialMs (${backoffInitialMs}), got ${backoffMaxMs}`);
  }
  const maxMegapixels = num(raw, 'maxMegapixels', path, d.maxMegapixels, 0.01, MAX_MEGAPIXELS);
  return Object.freeze({
    id: cameraId,
    ...(url !== undefined ? { url } : {}),
    kind,
    pollIntervalMs: num(raw, 'pollIntervalMs', path, d.pollIntervalMs, 10, 3_600_000),
    timeoutMs: num(raw, 'timeoutMs', path, d.timeoutMs, 100, 600_000),
    maxBodyBytes: num(raw, 'maxBodyBytes', path, d.maxBodyBytes, 1024, 256 * 1024 * 1024, true),
    backoffInitialMs,
    backoffMaxMs,
    maxMegapixels,
    maxDecodeMemoryMB: num(raw, 'maxDecodeMemoryMB', path, Math.max(d.maxDecodeMemoryMB, decodeMemoryFor(maxMegapixels)), 8, 4096),
    frozenAfterMs: num(raw, 'frozenAfterMs', path, d.frozenAfterMs, 1_000, 86_400_000),
    ...tls,
    roi,
    lines,
    ...(raw.drawnOn !== undefined ? { drawnOn: validateDrawnOn(raw.drawnOn, roi, lines, path) } : {}),
    analyzer: validateAnalyzer(raw.analyzer, `${path}.analyzer`),
  });
}

/**
 * tlsFingerprint (the camera certificate's SHA-256, with or without colons, any case; kept as "AB:CD:…") and
 * tlsInsecure: for https:// URLs only, and not both.
 */
function validateTls(raw: Record<string, unknown>, path: string, url: string | undefined): { tlsFingerprint?: string; tlsInsecure: boolean } {
  const insecure = raw.tlsInsecure ?? false;
  if (typeof insecure !== 'boolean') throw new ConfigError(`${path}.tlsInsecure: must be true or false, got ${describe(insecure)}`);
  let fingerprint: string | undefined;
  if (raw.tlsFingerprint !== undefined) {
    const hex = typeof raw.tlsFingerprint === 'string' ? raw.tlsFingerprint.replace(/[:\s]/g, '').toUpperCase() : '';
    if (!/^[0-9A-F]{64}$/.test(hex)) {
      throw new ConfigError(
        `${path}.tlsFingerprint: must be the SHA-256 fingerprint of the camera's certificate, 32 bytes in hex ("AB:CD:…", as a TC_ERR_SOURCE_TLS message or \`openssl x509 -fingerprint -sha256\` gives it), got ${describe(raw.tlsFingerprint)}`,
      );
    }
    fingerprint = hex.match(/../g)!.join(':');
  }
  if ((fingerprint !== undefined || insecure) && url !== undefined && new URL(url).protocol !== 'https:') {
    throw new ConfigError(`${path}.${fingerprint !== undefined ? 'tlsFingerprint' : 'tlsInsecure'}: applies to https:// camera URLs only, and url is ${describe(url)}; remove it`);
  }
  if (fingerprint !== undefined && insecure) {
    throw new ConfigError(`${path}.tlsInsecure: set beside tlsFingerprint, which it would make pointless; remove tlsInsecure (the pinned certificate is accepted, any other refused)`);
  }
  return { ...(fingerprint !== undefined ? { tlsFingerprint: fingerprint } : {}), tlsInsecure: insecure };
}

/**
 * decodeScale must divide every camera's analyzer.downscale: a working pixel is then a whole block of decoded
 * pixels, and the analyzer's box average over it is the same picture as at full resolution. A camera that
 * leaves downscale unset gets a multiple of decodeScale fitted to its frame size (see frameSizeDefaults).
 */
function validateDecodeScale(raw: Record<string, unknown>, cameras: readonly CameraConfig[]): DecodeScale {
  const v = raw.decodeScale ?? DAEMON_DEFAULTS.decodeScale;
  if (!isDecodeScale(v)) {
    throw new ConfigError(
      `decodeScale: must be one of ${DECODE_SCALES.join(', ')} (full-resolution pixels per decoded pixel; 1 = full size), got ${describe(v)}`,
    );
  }
  for (const [i, c] of cameras.entries()) {
    // A bad downscale itself is reported by the analyzer's option check, with its range.
    const downscale = c.analyzer.downscale;
    if (typeof downscale !== 'number' || !Number.isInteger(downscale) || downscale < 1) continue;
    if (downscale % v !== 0) {
      const divisors = DECODE_SCALES.filter((s) => downscale % s === 0);
      const fits = divisors.length > 1 ? `${divisors.slice(0, -1).join(', ')} or ${divisors.at(-1)}` : `${divisors[0]}`;
      throw new ConfigError(
        `decodeScale: ${v} does not divide cameras[${i}].analyzer.downscale (${downscale}); the analyzer averages whole decoded pixels, ` +
          `so use decodeScale ${fits}, or set cameras[${i}].analyzer.downscale to a multiple of ${v}`,
      );
    }
  }
  return v;
}

/** A host name as a browser sends it in Host: letters, digits, '-', '_' and dots (a final one dropped), at most 253. */
const HOST_NAME_RE = /^(?=.{1,254}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

function validateAllowedHosts(v: unknown): readonly string[] {
  if (v === undefined) return DAEMON_DEFAULTS.httpAllowedHosts;
  if (!Array.isArray(v)) throw new ConfigError(`httpAllowedHosts: must be an array of host names the HTTP API answers to, e.g. ["traffic.lan"], got ${describe(v)}`);
  return Object.freeze(
    v.map((h: unknown) => {
      if (typeof h !== 'string' || !HOST_NAME_RE.test(h)) {
        throw new ConfigError(`httpAllowedHosts: ${typeof h === 'string' ? JSON.stringify(h.slice(0, 80)) : describe(h)} is not a host name; give the name as in the browser's address bar, without scheme, port or path, e.g. "traffic.lan"`);
      }
      return h.toLowerCase().replace(/\.$/, '');
    }),
  );
}

/** Validates a parsed config object; returns a deeply frozen Config. */
export function validateConfig(raw: unknown, opts: ValidateOptions = { requireUrl: true }): Config {
  if (!isObject(raw)) throw new ConfigError(`config: must be a JSON object {"cameras": [...]}, got ${describe(raw)}`);
  unknownKeys(raw, TOP_KEYS, '');
  if (!Array.isArray(raw.cameras) || raw.cameras.length === 0) {
    throw new ConfigError(`cameras: must be a non-empty array of camera objects, got ${describe(raw.cameras)}`);
  }
  const cameras = Object.freeze(raw.cameras.map((c, i) => validateCamera(c, `cameras[${i}]`, opts)));
  checkUniqueIds(cameras.map((c) => c.id), (i) => `cameras[${i}].id`, 'camera');
  const d = DAEMON_DEFAULTS;
  if (raw.db !== undefined && (typeof raw.db !== 'string' || raw.db.length === 0)) {
    throw new ConfigError(`db: must be a file path for the SQLite database, got ${describe(raw.db)}`);
  }
  // "" is what a validated config holds for unset, but in a config file it is a slip (a value left blank), as the
  // flags' "" is: left out says the same on purpose.
  if (raw.zeromqEndpoint === '') {
    throw new ConfigError('zeromqEndpoint: given empty (""); give "ipc://PATH" or "tcp://HOST:PORT", or leave zeromqEndpoint out for a private ipc:// socket');
  }
  if (raw.zeromqKeyFile === '') {
    throw new ConfigError('zeromqKeyFile: given empty (""); give the path of a key file written by `traffic-counter zeromq-key FILE`, or leave zeromqKeyFile out for none');
  }
  if (
    raw.zeromqEndpoint !== undefined &&
    (typeof raw.zeromqEndpoint !== 'string' || !/^(ipc:\/\/.+|tcp:\/\/[^/]+:\d+)$/.test(raw.zeromqEndpoint) || Number(/:(\d+)$/.exec(raw.zeromqEndpoint)?.[1] ?? 0) > 65_535)
  ) {
    throw new ConfigError(`zeromqEndpoint: must be "ipc://PATH" or "tcp://HOST:PORT" with PORT 0-65535 (0: any free port, named in the log), got ${describe(raw.zeromqEndpoint)}`);
  }
  if (raw.zeromqKeyFile !== undefined && typeof raw.zeromqKeyFile !== 'string') {
    throw new ConfigError(`zeromqKeyFile: must be the path of a key file written by \`traffic-counter zeromq-key FILE\`, got ${describe(raw.zeromqKeyFile)}`);
  }
  if (raw.httpHost !== undefined && (typeof raw.httpHost !== 'string' || raw.httpHost.length === 0)) {
    throw new ConfigError(`httpHost: must be an address to bind, e.g. "127.0.0.1", got ${describe(raw.httpHost)}`);
  }
  const channel = oneOf(raw, 'channel', '', d.channel, ['ipc', 'zeromq', 'shared'] as const);
  // 0 local decoders makes sense only for zeromq, where remote `traffic-counter decoder` processes connect.
  if (raw.decoders === 0 && channel !== 'zeromq') {
    throw new ConfigError(
      `decoders: 0 (no local decoder: remote \`traffic-counter decoder\` processes only) needs channel "zeromq", but the channel is "${channel}"; set decoders to 1 to 64, or channel to "zeromq" (--channel zeromq) with a tcp:// zeromqEndpoint`,
    );
  }
  const decoders = num(raw, 'decoders', '', d.decoders, channel === 'zeromq' ? 0 : 1, 64, true);
  const zeromqEndpoint = (raw.zeromqEndpoint as string | undefined) ?? d.zeromqEndpoint;
  // Remote decoders connect over tcp:// only (`decoder --connect` refuses anything else).
  if (decoders === 0 && !zeromqEndpoint.startsWith('tcp://')) {
    throw new ConfigError(
      `decoders: 0 local decoders needs a zeromqEndpoint "tcp://HOST:PORT" that remote \`traffic-counter decoder --connect\` processes can reach, got ${zeromqEndpoint ? JSON.stringify(zeromqEndpoint) : 'the private ipc:// default'}; set zeromqEndpoint (--zeromq-endpoint) to tcp://, or decoders to 1 or more`,
    );
  }
  return Object.freeze({
    cameras,
    db: (raw.db as string | undefined) ?? d.db,
    channel,
    ipcSerialization: oneOf(raw, 'ipcSerialization', '', d.ipcSerialization, ['advanced', 'json'] as const),
    zeromqEndpoint: (raw.zeromqEndpoint as string | undefined) ?? d.zeromqEndpoint,
    // A non-loopback tcp:// endpoint needs one, checked where the endpoint is bound (see requireKeyForEndpoint): not
    // here, where a config file is checked before the flags that may give its key, and replay and eval never bind it.
    zeromqKeyFile: (raw.zeromqKeyFile as string | undefined) ?? d.zeromqKeyFile,
    decoder: oneOf(raw, 'decoder', '', d.decoder, DECODERS),
    decoders,
    decodeScale: validateDecodeScale(raw, cameras),
    maxFramesInFlight: num(raw, 'maxFramesInFlight', '', d.maxFramesInFlight, 1, 64, true),
    decodeTimeoutMs: num(raw, 'decodeTimeoutMs', '', d.decodeTimeoutMs, 1_000, 600_000, true),
    flushIntervalMs: num(raw, 'flushIntervalMs', '', d.flushIntervalMs, 50, 60_000),
    httpHost: (raw.httpHost as string | undefined) ?? d.httpHost,
    httpPort: num(raw, 'httpPort', '', d.httpPort, 0, 65_535, true),
    httpAllowedHosts: validateAllowedHosts(raw.httpAllowedHosts),
    eventRetentionDays: num(raw, 'eventRetentionDays', '', d.eventRetentionDays, 0, 36_500, true),
  });
}

/**
 * A ROI and line that validate on any frame, for a camera config made only to check something else (the --camera
 * probe's source, run's flags before the real camera is known).
 */
export const STAND_IN_VIEW = {
  roi: [[0, 0], [16, 0], [16, 16], [0, 16]],
  lines: [{ id: 'l', from: [0, 8], to: [16, 8] }],
} as const;

/**
 * JSON.parse's message for `text`, with V8's "at position N" (a character offset, of little use in a file of a few
 * hundred lines) given as the line and column an editor shows.
 */
export function jsonErrorWhere(message: string, text: string): string {
  const lineColumn = (n: number): string => {
    const before = text.slice(0, n).split('\n');
    return `at line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
  };
  // "Unexpected token '}', ..."lines": [}\n  "... is not valid JSON": V8 quotes the text around the token (up to 10
  // characters either side, "..." where it cut), line ends and all, and gives no position. The quote is left out (a
  // config's may hold part of a camera's password), and the token placed where the quoted text is found.
  const quoted = /^(Unexpected token '([\s\S]+?)'), (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/.exec(message);
  if (quoted) {
    const [, head, token, cutBefore, context, cutAfter] = quoted as unknown as [string, string, string, string | undefined, string, string | undefined];
    const at = text.indexOf(context);
    const n = cutBefore ? at + 10 : cutAfter ? at + context.length - 10 : -1;
    const found = at >= 0 && text.indexOf(context, at + 1) < 0 && n >= 0 && text.startsWith(token, n);
    return found ? `${head} ${lineColumn(n)}` : head;
  }
  return message.replace(/at position (\d+)(?: \(line \d+ column \d+\))?/, (whole, pos: string) => {
    const n = Number(pos);
    return n <= text.length ? lineColumn(n) : whole;
  });
}

/**
 * `err` with the config file named first, as loadConfigFile names it, when it is a ConfigError about a camera's keys
 * ("cameras[0].roi: …") thrown after loading: by the camera's analyzer at start, or at its first frames (a ROI past
 * the frame's edge). `file` undefined (no --config: the simulator's or a --camera probe's config) or another error:
 * `err` as it is. Before, such an error named the key but not the file, where a loading error names both.
 */
export function inConfigFile(err: unknown, file: string | undefined): unknown {
  if (file === undefined || !(err instanceof ConfigError) || !/^cameras\[\d+\]/.test(err.message)) return err;
  return new ConfigError(`--config ${file}: ${err.message}`, { cause: err });
}

/**
 * Reads and validates a JSON config file. Every message begins with `source`: `--config FILE` where a flag gave
 * the file (run, replay, eval), the path where none did (eval:real's clips).
 */
export function loadConfigFile(file: string, opts: ValidateOptions = { requireUrl: true }, source = `--config ${file}`): Config {
  return validateConfigFrom(readJsonFile(file, source), opts, source);
}

/**
 * A JSON file's content, parsed; ConfigError beginning with `source` when it cannot be read (`readFix`: what to do
 * then) or is not JSON. For the config, truth and clip files alike.
 */
export function readJsonFile(file: string, source: string, readFix = 'check the path'): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${source}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)}); ${readFix}`, { cause: err });
  }
  // A leading byte-order mark (Windows editors write one) is not JSON but says nothing wrong with the file.
  const json = text.startsWith('\ufeff') ? text.slice(1) : text;
  try {
    return JSON.parse(json);
  } catch (err) {
    // Newer V8 quotes the text around the error, which may be part of a camera's password: left out.
    const why = jsonErrorWhere((err as Error).message, json);
    throw new ConfigError(`${source}: not valid JSON (${why}); fix the syntax`, { cause: err });
  }
}

/** validateConfig of a file's parsed content, its ConfigErrors beginning with `source` (see loadConfigFile). */
export function validateConfigFrom(raw: unknown, opts: ValidateOptions, source: string): Config {
  try {
    return validateConfig(raw, opts);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${source}: ${err.message}`, { cause: err });
    throw err;
  }
}
