// Local time for count queries: the roll-ups are stored per UTC minute, hour and day, but a traffic engineer in
// Berlin or Chicago reports local days and hours (a UTC day there runs from 1 or 2 a.m., or 6 or 7 p.m.). These are
// the zone's offsets, local bucket starts and local ISO times, read from the IANA time zone database that Node
// carries (Intl), daylight saving time included: a local day is then 23 or 25 hours long.

import type { QueryBucket } from './query-counts.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * The canonical name of an IANA time zone ("Europe/Berlin"; "local" is this machine's zone), or undefined when Node
 * does not know it. Every name for UTC ("UTC", "Etc/UTC", "Z", …) is "UTC".
 */
export function canonicalTimeZone(name: string): string | undefined {
  const wanted = name === 'local' ? new Intl.DateTimeFormat().resolvedOptions().timeZone : name;
  if (/^(z|utc|gmt|etc\/(utc|gmt|uct|zulu|universal)|uct|zulu|universal)$/i.test(wanted)) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: wanted }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The wall-clock time in `zone` at instant `ms`, as if it were UTC (ms since the epoch, whole seconds). */
function wallMs(zone: string, ms: number): number {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  // Date.UTC reads years 0–99 as 1900–1999.
  return p.year! < 100 ? new Date(wall).setUTCFullYear(p.year!) : wall;
}

/** The zone's offset from UTC at instant `ms`, in minutes (+60 for Berlin in winter). */
export function offsetMinutes(zone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return Math.round((wallMs(zone, whole) - whole) / 60_000);
}

/**
 * The instant at which the clocks in `zone` show `wall` (a wall-clock time written as if it were UTC). A time the
 * clocks skip (spring forward) is read with the offset before the change, so it lands just after it; a time they
 * show twice (fall back) is its first showing.
 */
export function wallToInstant(zone: string, wall: number): number {
  const before = wall - offsetMinutes(zone, wall - 86_400_000) * 60_000;
  const after = wall - offsetMinutes(zone, wall + 86_400_000) * 60_000;
  // On a day without a change both readings agree; otherwise the one the zone confirms, the earlier first.
  for (const t of before <= after ? [before, after] : [after, before]) {
    if (t + offsetMinutes(zone, t) * 60_000 === wall) return t;
  }
  return before;
}

const LENGTH_MS: Readonly<Record<Exclude<QueryBucket, 'day'>, number>> = { minute: 60_000, '15min': 900_000, hour: 3_600_000 };

/**
 * The start of the local bucket holding instant `ms`. A minute, quarter or hour starts where the local clock shows
 * it (an hour repeated when the clocks fall back is two buckets); a day starts at its first instant, local midnight
 * (or when the clocks jump past it, the instant they do).
 */
export function localBucketStart(zone: string, bucket: QueryBucket, ms: number): number {
  const wall = wallMs(zone, ms) + (ms - Math.floor(ms / 1000) * 1000);
  if (bucket !== 'day') {
    const length = LENGTH_MS[bucket];
    return ms - (((wall % length) + length) % length);
  }
  // A midnight the clocks skip is read with the offset before the jump, which is the instant they jump.
  return wallToInstant(zone, Math.floor(wall / 86_400_000) * 86_400_000);
}

/** Instant `ms` as an ISO 8601 local time in `zone` with its offset: "2026-03-29T00:00:00+01:00". */
export function localIso(zone: string, ms: number): string {
  const offset = offsetMinutes(zone, ms);
  const wall = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offset);
  return `${wall}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
