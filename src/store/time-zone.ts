// Local time for count queries: the roll-ups are stored per UTC minute, hour and day, but a traffic engineer in
// Berlin or Chicago reports local days and hours (a UTC day there runs from 1 or 2 a.m., or 6 or 7 p.m.). These are
// the zone's offsets, local bucket starts and local ISO times, read from the IANA time zone database that Node
// carries (Intl), daylight saving time included: a local day is then 23 or 25 hours long.

import { readlinkSync } from 'node:fs';

/**
 * The canonical name of an IANA time zone ("Europe/Berlin"; "local" is this machine's zone), or undefined when Node
 * does not know it. Every name for UTC ("UTC", "Etc/UTC", "Z", …) is "UTC".
 */
export function canonicalTimeZone(name: string): string | undefined {
  const wanted = name === 'local' ? localTimeZone() : name;
  if (/^(z|utc|gmt|etc\/(utc|gmt|uct|zulu|universal)|uct|zulu|universal)$/i.test(wanted)) return 'UTC';
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: wanted }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  // Node's ICU resolves some current names to their old aliases (Asia/Kolkata to Asia/Calcutta, Europe/Kyiv to
  // Europe/Kiev): the name is then kept as given, case included (Intl ignores case); a name that resolves to
  // itself is given ICU's case (europe/berlin: Europe/Berlin).
  return resolved.toLowerCase() === wanted.toLowerCase() ? resolved : wanted;
}

/**
 * This machine's zone by the name it is set with: TZ, or the zone file /etc/localtime links to (…/zoneinfo/Asia/Kolkata).
 * Node's ICU names the zone it runs in by an older alias (Asia/Calcutta, Europe/Kiev), which `--tz local` showed where
 * `--tz Asia/Kolkata` shows Asia/Kolkata; the name set is taken where Intl reads it as that same zone, else Intl's.
 */
function localTimeZone(): string {
  const running = new Intl.DateTimeFormat().resolvedOptions().timeZone as string | undefined;
  // TZ set empty: ICU's "Etc/Unknown", which Intl refuses as a zone to format in; TZ set to a name no zone has
  // (a typo, TZ=Europe/Berlln): no name at all (Node 20), and `--tz local` stopped with "Cannot read properties of
  // undefined (reading 'toLowerCase')" and a stack trace. The clock runs on UTC in both (as `date` shows).
  if (running === undefined || running === 'Etc/Unknown') return 'UTC';
  let linked: string | undefined;
  try {
    linked = /(?:^|\/)zoneinfo\/(?:posix\/|right\/)?(.+)$/.exec(readlinkSync('/etc/localtime'))?.[1];
  } catch {
    // Not a link (a copied file), or no such file (Windows): Intl's name.
  }
  // TZ (":Asia/Kolkata" is the same) decides when set; /etc/localtime only when it is not.
  const set = process.env.TZ ? process.env.TZ.replace(/^:/, '') : linked;
  if (set === undefined || set === '') return running;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: set }).resolvedOptions().timeZone === running ? set : running;
  } catch {
    return running; // a POSIX rule (TZ=CET-1CEST) or a name Intl does not know
  }
}

const MINUTE_MS = 60_000;
const QUARTER_MS = 900_000;
const DAY_MS = 86_400_000;

/**
 * One time zone's clock. Offsets are read from Intl once per UTC quarter hour (a query asks for thousands of rows
 * in a few of them), and exactly within a quarter hour in which the clocks change.
 */
export class TimeZone {
  readonly #format: Intl.DateTimeFormat;
  /** Offset in minutes by UTC quarter-hour index; NaN for a quarter hour in which it changes. */
  readonly #quarters = new Map<number, number>();

  /** `name`: a canonical zone name (canonicalTimeZone). */
  constructor(readonly name: string) {
    this.#format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The offset from UTC at instant `ms`, in minutes (+60 for Berlin in winter). */
  offset(ms: number): number {
    const q = Math.floor(ms / QUARTER_MS);
    let o = this.#quarters.get(q);
    if (o === undefined) {
      const first = this.#exactOffset(q * QUARTER_MS);
      o = first === this.#exactOffset(q * QUARTER_MS + QUARTER_MS - 1) ? first : Number.NaN;
      this.#quarters.set(q, o);
    }
    return Number.isNaN(o) ? this.#exactOffset(ms) : o;
  }

  #exactOffset(ms: number): number {
    const p: Record<string, number> = {};
    const whole = Math.floor(ms / 1000) * 1000;
    for (const part of this.#format.formatToParts(whole)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    const wall = new Date(Date.UTC(2000, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!)).setUTCFullYear(p.year!);
    return Math.round((wall - whole) / MINUTE_MS);
  }

  /** The wall-clock time at instant `ms`, written as if it were UTC. */
  wall(ms: number): number {
    return ms + this.offset(ms) * MINUTE_MS;
  }

  /**
   * The instant at which the clocks show `wall` (a wall-clock time written as if it were UTC). A time the clocks
   * skip (spring forward) is read with the offset before the change, so it lands just after it; a time they show
   * twice (fall back) is its first showing.
   */
  toInstant(wall: number): number {
    const before = wall - this.offset(wall - DAY_MS) * MINUTE_MS;
    const after = wall - this.offset(wall + DAY_MS) * MINUTE_MS;
    // On a day without a change both readings agree; otherwise the one the zone confirms, the earlier first.
    for (const t of before <= after ? [before, after] : [after, before]) {
      if (this.wall(t) === wall) return t;
    }
    return before;
  }

  /**
   * Where the clocks skip `wall` (a wall-clock time written as if it were UTC; spring forward): the instant they jump,
   * the wall-clock times skipped, from `fromWall` up to `toWall`, and the offsets before and after; undefined for a
   * time the clocks show.
   */
  skipped(wall: number): { at: number; fromWall: number; toWall: number; before: number; after: number } | undefined {
    const t = this.toInstant(wall);
    if (this.wall(t) === wall) return undefined;
    const before = this.offset(wall - DAY_MS);
    const after = this.offset(wall + DAY_MS);
    const at = this.#change(wall - before * MINUTE_MS - DAY_MS / 2, wall - after * MINUTE_MS + DAY_MS / 2);
    return { at, fromWall: at + before * MINUTE_MS, toWall: at + after * MINUTE_MS, before, after };
  }

  /**
   * The start of the local bucket `length` ms long (a minute, quarter hour, hour or day) holding instant `ms`. A
   * minute, quarter or hour starts where the local clock shows it (an hour shown twice when the clocks fall back is
   * two buckets), or, for the one in which the clocks change, at the change (Lord Howe Island's half-hour shift,
   * Chatham's at :45); a day starts at its first instant, local midnight, or when the clocks jump past it, the
   * instant they do.
   */
  bucketStart(length: number, ms: number): number {
    if (length === DAY_MS) return this.toInstant(Math.floor(this.wall(ms) / DAY_MS) * DAY_MS);
    const wall = this.wall(ms);
    const start = ms - (((wall % length) + length) % length);
    const offset = this.offset(ms);
    if (this.offset(start) === offset) return start;
    // The clocks changed in between: the bucket starts at the change.
    return this.#change(start, ms);
  }

  /**
   * The instant the clocks change between `from`, which shows one offset, and `to`, which shows another (whole
   * minutes, found by halving).
   */
  #change(from: number, to: number): number {
    const before = this.offset(from);
    let lo = Math.floor(from / MINUTE_MS);
    let hi = Math.floor(to / MINUTE_MS);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.offset(mid * MINUTE_MS) === before) lo = mid;
      else hi = mid;
    }
    return hi * MINUTE_MS;
  }

  /**
   * The end of the local bucket `length` ms long that starts at `start` (a bucketStart): the next bucket's start. A
   * day ends at the next local midnight (23 or 25 hours on the days the clocks change); a shorter bucket where the
   * clock next shows a multiple of its length, or at a change of the clocks before that.
   */
  bucketEnd(length: number, start: number): number {
    const wall = this.wall(start);
    if (length === DAY_MS) return this.toInstant(Math.floor(wall / DAY_MS) * DAY_MS + DAY_MS);
    const end = start + length - (((wall % length) + length) % length);
    // The clocks change before it: the bucket ends at the change.
    return this.offset(end - 1) === this.offset(start) ? end : this.#change(start, end - 1);
  }

  /** Instant `ms` as an ISO 8601 local time with its offset: "2026-03-29T00:00:00+01:00". */
  iso(ms: number): string {
    const offset = this.offset(ms);
    return `${new Date(ms + offset * MINUTE_MS).toISOString().slice(0, 19)}${isoOffset(offset)}`;
  }
}

/** An offset from UTC in minutes as ISO 8601 writes it: "+01:00", "-05:30". */
export function isoOffset(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
