// Count queries shared by the CLI (`traffic-counter query`) and the HTTP API: parameter validation with
// errors in the user's own spelling (--bucket vs bucket), and the shapes of a query and its rows. The one-shot
// read-only query of a DB file (queryCounts) is count-reader's, which imports this module.

import { QueryError } from '../errors.js';
import { VEHICLE_CLASSES, type Direction, type VehicleClass } from '../analyze/analyzer-types.js';
import { ID_RE } from '../config/ids.js';
import { TimeZone, canonicalTimeZone, isoOffset } from './time-zone.js';

export type Bucket = 'minute' | 'hour' | 'day';
export type CountFormat = 'table' | 'csv' | 'json';

export const BUCKETS: readonly Bucket[] = Object.freeze(['minute', 'hour', 'day']);

/**
 * What a query may ask for: the stored roll-ups, and 15-minute buckets summed from the minute roll-up (the
 * interval traffic counts are usually reported in, e.g. for a peak hour factor).
 */
export type QueryBucket = Bucket | '15min';
export const QUERY_BUCKETS: readonly QueryBucket[] = Object.freeze(['minute', '15min', 'hour', 'day']);
export const COUNT_FORMATS: readonly CountFormat[] = Object.freeze(['table', 'csv', 'json']);

/** Bucket lengths in ms. Buckets start at multiples of these since the Unix epoch, i.e. on UTC boundaries. */
export const BUCKET_MS: Readonly<Record<Bucket, number>> = Object.freeze({ minute: 60_000, hour: 3_600_000, day: 86_400_000 });

/** Validated query parameters. Time filters select buckets whose start lies in [fromMs, toMs). */
export interface QueryParams {
  readonly bucket: QueryBucket;
  readonly cameraId?: string;
  readonly lineId?: string;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly format: CountFormat;
  /** Table and CSV: add in/out columns per vehicle class (JSON always has them). */
  readonly byClass: boolean;
  /**
   * The IANA time zone whose local minutes, quarter hours, hours and days the buckets are ('UTC': the stored UTC
   * buckets). Bucket starts are then printed in its local time with its offset, and a from/to without a zone is read
   * in it.
   */
  readonly timeZone: string;
}

/** The roll-up column holding one direction's count of one vehicle class: in_car, out_two_wheeler, … */
export function classColumn(direction: Direction, c: VehicleClass): string {
  return `${direction}_${c.replace('-', '_')}`;
}

/** Every class column, in the roll-up tables' order (in and out per class). */
export const CLASS_COLUMNS: readonly string[] = VEHICLE_CLASSES.flatMap((c) => [classColumn('in', c), classColumn('out', c)]);

/** One bucket of one counting line. */
export interface CountRow {
  readonly bucket: QueryBucket;
  /** Bucket start, ISO 8601: UTC ("…Z"), or local time with the offset of the query's time zone ("…+01:00"). */
  readonly start: string;
  readonly cameraId: string;
  readonly lineId: string;
  readonly in: number;
  readonly out: number;
  readonly total: number;
  /**
   * The camera's frames received and expected while the line was monitored (see monitoredMs): the camera's whole
   * bucket where the line was configured for all of it, and in buckets written before schema version 4 (see countSql).
   */
  readonly framesReceived: number;
  readonly framesExpected: number;
  /**
   * framesReceived / framesExpected capped at 1, over the line's monitored time; null when no frame was expected
   * (camera not monitored).
   */
  readonly uptime: number | null;
  /**
   * How long the bucket was monitored (ms): the daemon running with the camera and this line configured, whether or
   * not the camera answered; each expected frame stands for its poll interval. Uptime is over this time only: an hour
   * at 100% uptime that was monitored for a minute holds a minute's traffic. The camera's time where the line was configured
   * for all of it, and in buckets written before schema version 4 (see countSql). Null when unknown: buckets written before schema version 3 (and those in
   * part before it), or with no frame accounting.
   */
  readonly monitoredMs: number | null;
  /**
   * monitoredMs over the bucket's whole length (a local day of 23 or 25 hours as it is), capped at 1, the bucket in
   * progress too (at 08:30 an hour watched since 08:00 reads 0.5: it holds half an hour). Null when monitoredMs is.
   */
  readonly monitored: number | null;
  /**
   * Frames received while the camera's view did not match the one its ROI and lines were learnt on (the camera
   * was turned or zoomed, or its view blocked: see ViewCheck), and their share of framesReceived (null when none
   * was received). The bucket's counts are unreliable where this is above 0. Of the frames of the line's monitored
   * time, as framesReceived: its own where it was added or taken out within the bucket (see countSql).
   */
  readonly framesMoved: number;
  readonly viewMoved: number | null;
  /** The in and out counts split by vehicle class; each direction's classes add up to its count. */
  readonly byClass: Readonly<Record<VehicleClass, { readonly in: number; readonly out: number }>>;
}

export interface QueryOptions {
  /** Refuse results larger than this many rows (QueryError asking to narrow the range). Default: no limit. */
  readonly maxRows?: number;
  /** How the user spelt the parameters, for errors found by the query itself (an unknown camera). Default 'http'. */
  readonly source?: 'cli' | 'http';
}

/** A parameter as the user typed it: `--by-class` on the command line, `byClass` over HTTP. */
export function paramName(key: string, source: 'cli' | 'http'): string {
  return source === 'cli' ? `--${key === 'byClass' ? 'by-class' : key}` : key;
}

const MAX_ECHO = 40;

export function echo(value: string): string {
  const shown = value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value;
  return JSON.stringify(shown);
}

/**
 * An empty value (e.g. `camera=` from an HTML form) means "not given". On the command line one is refused before
 * (parseCliArgs: `--camera "$CAM"` with CAM unset answered every camera).
 */
function optional(raw: Record<string, string | undefined>, key: string): string | undefined {
  const v = raw[key];
  return v === undefined || v === '' ? undefined : v;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
/** ISO 8601's basic form with a time (20261207T0800, 20261207T080000Z, 20261207T080000+0100): no dashes or colons. */
const ISO_BASIC_TIME_RE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?:\d{2})?)?$/i;

/** Filled by parseTimeInput when it read a time of day (not a date alone) in the time zone: that wall-clock time, as if UTC. */
interface LocalReading {
  wall?: number;
}

/**
 * Parses a time given as ISO 8601 (a time without a zone is taken in `timeZone`, UTC by default, like everything this
 * tool prints), a date (midnight there) or epoch milliseconds. Returns undefined when it is none of these.
 */
export function parseTimeInput(value: string, timeZone = 'UTC', local?: LocalReading): number | undefined {
  if (/^\d{1,15}$/.test(value)) return Number(value);
  // A '+' left unencoded in a URL's query arrives as a space: "2026-12-06T11:18:00 01:00" can only mean +01:00,
  // "2026-12-06T11:18 01" +01 (an hour offset alone, as ISO_RE takes it), "20261207T0800 0100" +0100.
  const v = value.trim().replace(/^(\d{4}-?\d{2}-?\d{2}[T ]\d{2}:?\d{2}(?::?\d{2}(?:[.,]\d+)?)?) (\d{2}(?::?\d{2})?)$/i, '$1+$2');
  // The basic form is written out in the extended form and read as that. A date alone in it (20261207) stays epoch
  // milliseconds here: parseQueryParams refuses those.
  const basic = ISO_BASIC_TIME_RE.exec(v);
  if (basic) {
    const [, y, mo, d, h, mi, s, frac, zone] = basic;
    return parseTimeInput(`${y}-${mo}-${d}T${h}:${mi}${s ? `:${s}${frac ? `.${frac}` : ''}` : ''}${zone ?? ''}`, timeZone, local);
  }
  const m = ISO_RE.exec(v);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  // Date.UTC reads years 0-99 as 1900-1999 (from=0099-01-01 selected from 1999 on); setUTCFullYear takes them as
  // written.
  let ms = new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(year, month - 1, day);
  ms += ((hour * 60 + minute) * 60 + second) * 1000 + Number(frac.padEnd(3, '0').slice(0, 3));
  // Date.UTC rolls 2024-02-30 over to March; refuse instead.
  if (new Date(ms).getUTCDate() !== day) return undefined;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offH = Number(digits.slice(0, 2));
    const offM = Number(digits.slice(2, 4));
    if (offH > 23 || offM > 59) return undefined;
    ms -= sign * (offH * 60 + offM) * 60_000;
  } else if (!zone && timeZone !== 'UTC') {
    if (local && m[4] !== undefined) local.wall = ms;
    ms = new TimeZone(timeZone).toInstant(ms);
  }
  return ms;
}

/**
 * Why `value`, a local time with no zone (`asUtc`: its wall-clock time written as if UTC), names no instant in `timeZone` (the clocks skip it when they spring forward:
 * it was read as the time that far after the jump, 02:30 as 03:30, without a word), or undefined. A date alone is
 * not refused: where the clocks jump past midnight, its day starts at the jump.
 */
function skippedLocalTime(value: string, asUtc: number, timeZone: string): string | undefined {
  const tz = new TimeZone(timeZone);
  const gap = tz.skipped(asUtc);
  if (gap === undefined) return undefined;
  const wall = (ms: number): string => new Date(ms).toISOString().slice(0, ms % 60_000 === 0 ? 16 : 19);
  return (
    `${value} is no time in ${timeZone}: its clocks jump from ${wall(gap.fromWall).slice(11)} to ${wall(gap.toWall).slice(11)} on ${wall(gap.fromWall).slice(0, 10)} ` +
    `(${isoOffset(gap.before)} to ${isoOffset(gap.after)}); give ${wall(gap.toWall)} (the jump), ` +
    `or the time with its offset (${wall(asUtc)}${isoOffset(gap.before)} is ${tz.iso(asUtc - gap.before * 60_000)})`
  );
}

/**
 * Digits alone that mean a date, refused by parseQueryParams from 1970 on: a date without dashes (ISO 8601's basic
 * form, 20261207: 20 261 207 ms, five hours into 1970), a year alone (its reduced precision, 2026: 2,026 ms) and a
 * year and month (202612).
 */
const DIGITS_FOR_DATES = [
  { re: /^(\d{4})(\d{2})(\d{2})$/, what: 'date' },
  { re: /^(\d{4})$/, what: 'year' },
  { re: /^(\d{4})(0[1-9]|1[0-2])$/, what: 'month' },
] as const;

/**
 * Validates raw query parameters (keys: bucket, camera, line, from, to, format, byClass, tz). Errors name the
 * parameter as the user typed it: `--bucket` on the command line, `bucket` over HTTP.
 * Unknown keys are ignored here; the caller decides whether to refuse them.
 */
export function parseQueryParams(raw: Record<string, string | undefined>, source: 'cli' | 'http'): QueryParams {
  const name = (key: string): string => paramName(key, source);

  const bucketRaw = raw.bucket;
  if (bucketRaw === undefined || bucketRaw === '') {
    throw new QueryError(`${name('bucket')}: required; give one of ${QUERY_BUCKETS.join(', ')} (e.g. ${source === 'cli' ? '--bucket hour' : 'bucket=hour'})`);
  }
  if (!(QUERY_BUCKETS as readonly string[]).includes(bucketRaw)) {
    throw new QueryError(`${name('bucket')}: must be one of ${QUERY_BUCKETS.join(', ')}; got ${echo(bucketRaw)}`);
  }
  const bucket = bucketRaw as QueryBucket;

  const ids: { cameraId?: string; lineId?: string } = {};
  for (const [key, field] of [['camera', 'cameraId'], ['line', 'lineId']] as const) {
    const v = optional(raw, key);
    if (v === undefined) continue;
    if (!ID_RE.test(v)) {
      throw new QueryError(`${name(key)}: must be a ${key} id as in the configuration (1-64 letters, digits, '.', '_' or '-'); got ${echo(v)}`);
    }
    ids[field] = v;
  }

  const tzRaw = optional(raw, 'tz');
  const timeZone = tzRaw === undefined ? 'UTC' : canonicalTimeZone(tzRaw);
  if (timeZone === undefined) {
    throw new QueryError(
      `${name('tz')}: unknown time zone ${echo(tzRaw!)}; give an IANA time zone name such as Europe/Berlin or America/New_York, "local" for this machine's, or UTC (the default)`,
    );
  }
  const where = timeZone === 'UTC' ? 'UTC' : `${timeZone} time`;

  const times: { fromMs?: number; toMs?: number } = {};
  for (const [key, field] of [['from', 'fromMs'], ['to', 'toMs']] as const) {
    const v = optional(raw, key);
    if (v === undefined) continue;
    const local: LocalReading = {};
    const ms = parseTimeInput(v, timeZone, local);
    // Epoch seconds (10 digits today) read as milliseconds fall in January 1970, before any count: refused, not
    // answered with every row since then.
    if (/^\d{9,11}$/.test(v) && ms! < 1e11) {
      throw new QueryError(`${name(key)}: ${v} as epoch milliseconds is ${new Date(ms!).toISOString()}; for epoch seconds give ${v}000, or an ISO 8601 time`);
    }
    // A date, year or month written as digits alone would be read as epoch milliseconds in 1970: --from answered every
    // row since then, --to none. Refused, with the date to give.
    for (const { re, what } of DIGITS_FOR_DATES) {
      const m = re.exec(v);
      if (!m || Number(m[1]) < 1970) continue;
      const [, y, mo = '01', d = '01'] = m;
      const date = `${y}-${mo}-${d}`;
      const asMs = `${v} as epoch milliseconds is ${new Date(ms!).toISOString()}`;
      // One that is no date (20260230, 20261307) is a mistyped date all the same: refused too, saying so.
      throw new QueryError(
        parseTimeInput(date, timeZone) !== undefined
          ? `${name(key)}: ${asMs}; for the ${what} give ${date} (midnight ${where}), or an ISO 8601 time`
          : `${name(key)}: ${asMs}, and as a date without dashes ${date} is no date; give a date as YYYY-MM-DD (2024-05-01, midnight ${where}), or an ISO 8601 time`,
      );
    }
    if (ms === undefined || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
      throw new QueryError(
        `${name(key)}: must be an ISO 8601 time (2024-05-01T08:00:00Z; no zone means ${where}), a date (2024-05-01, midnight ${where}) or epoch milliseconds; got ${echo(v)}`,
      );
    }
    if (local.wall !== undefined) {
      const gap = skippedLocalTime(v, local.wall, timeZone);
      if (gap !== undefined) throw new QueryError(`${name(key)}: ${gap}`);
    }
    times[field] = ms;
  }
  if (times.fromMs !== undefined && times.toMs !== undefined && times.fromMs >= times.toMs) {
    throw new QueryError(
      `${name('from')}/${name('to')}: from must be before to; got from ${new Date(times.fromMs).toISOString()}, to ${new Date(times.toMs).toISOString()}`,
    );
  }

  const formatRaw = optional(raw, 'format');
  let format: CountFormat = source === 'cli' ? 'table' : 'json';
  if (formatRaw !== undefined) {
    if (!(COUNT_FORMATS as readonly string[]).includes(formatRaw)) {
      throw new QueryError(`${name('format')}: must be one of ${COUNT_FORMATS.join(', ')}; got ${echo(formatRaw)}`);
    }
    format = formatRaw as CountFormat;
  }

  // A flag on the command line; over HTTP byClass=1|true|0|false.
  const byClassRaw = optional(raw, 'byClass');
  let byClass = false;
  if (byClassRaw !== undefined) {
    if (!['1', 'true', '0', 'false'].includes(byClassRaw)) {
      throw new QueryError(`${name('byClass')}: must be 1, true, 0 or false; got ${echo(byClassRaw)}`);
    }
    byClass = byClassRaw === '1' || byClassRaw === 'true';
  }

  return Object.freeze({ bucket, ...ids, ...times, format, byClass, timeZone });
}
