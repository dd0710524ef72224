// `traffic-counter query`: stored counts per minute/15-minute/hour/day bucket, as a table, CSV or JSON.

import { once } from 'node:events';
import { parseCliArgs } from './parse-cli-args.js';
import { queryCounts } from '../store/count-reader.js';
import { COUNT_FORMATS, QUERY_BUCKETS, parseQueryParams } from '../store/query-counts.js';
import { formatCountsPieces } from '../store/format-counts.js';

const HELP = `Usage: traffic-counter query --db FILE --bucket minute|15min|hour|day [options]

Prints vehicle counts per bucket (UTC, or local time with --tz), camera and line, with the camera's
uptime in each bucket (frames received / frames expected while the line was watched), so an outage
never reads as zero traffic, and how much of the bucket was monitored (the daemon running with the
camera and line configured; of the whole bucket, so a bucket not over yet reads as the part of it that
it is): uptime is over that monitored time, the line's own where it was added or taken out within the
bucket, so an hour at 100% uptime but 2% monitored holds about a minute of traffic. "?": not recorded
(rows from before schema version 3).

Options:
  --db FILE          SQLite file written by 'traffic-counter run' (default ./data/counts.db)
  --bucket B         minute, 15min, hour or day (required); 15min sums the minute rows per quarter hour
  --camera ID        only this camera (an id the database does not have is refused, with the ids it has)
  --line ID          only this line (likewise)
  --from ISO         buckets starting at or after this time, e.g. 2026-11-22T08:00Z or 2026-11-22
                     (without a zone, in --tz)
  --to ISO           buckets starting before this time; a bucket is never cut, so one that starts
                     before --to is shown whole (--bucket day --to 2026-11-22T12:00Z includes that day)
  --tz ZONE          buckets in this IANA time zone's local time, daylight saving included (local
                     days of 23 or 25 hours), e.g. Europe/Berlin; "local" is this machine's; default UTC
  --format F         table (default), csv or json
  --by-class         table and CSV: also in/out per vehicle class (car, heavy, two-wheeler, unknown);
                     JSON always has them
  -h, --help         this help
`;

export async function queryCommand(argv: string[]): Promise<number> {
  const { values } = parseCliArgs('query', argv, {
    db: { type: 'string' },
    bucket: { type: 'string' },
    camera: { type: 'string' },
    line: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    format: { type: 'string' },
    'by-class': { type: 'boolean' },
    tz: { type: 'string' },
  }, {
    // An empty --db was reported as "traffic-counter: : no count database at this path"; an empty --camera or
    // --from answered every camera, or every time, as if the flag were not there.
    db: 'the database file the daemon writes (--db), or leave --db out for ./data/counts.db',
    bucket: `one of ${QUERY_BUCKETS.join(', ')} (e.g. --bucket hour)`,
    camera: 'a camera id, or leave --camera out for every camera',
    line: 'a line id, or leave --line out for every line',
    from: 'an ISO 8601 time (2026-11-22T08:00Z), a date (2026-11-22) or epoch milliseconds, or leave --from out',
    to: 'an ISO 8601 time (2026-11-22T08:00Z), a date (2026-11-22) or epoch milliseconds, or leave --to out',
    format: `one of ${COUNT_FORMATS.join(', ')}, or leave --format out for table`,
    tz: 'an IANA time zone such as Europe/Berlin, or "local", or leave --tz out for UTC',
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const params = parseQueryParams(
    {
      bucket: values.bucket, camera: values.camera, line: values.line, from: values.from, to: values.to, format: values.format,
      byClass: values['by-class'] ? 'true' : undefined, tz: values.tz,
    },
    'cli',
  );
  const rows = queryCounts(values.db ?? './data/counts.db', params, { source: 'cli' });
  // A reader that stops early (`query … | head`) is not an error: it ended with an EPIPE stack trace and status 1.
  let closed = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    closed = true;
  });
  // Written as it is formatted, in 64-KB batches, waiting for the terminal or pipe to take each: a million rows
  // made one string too long for V8 (JSON) or held 1.2 GB (CSV).
  let batch = '';
  for (const piece of formatCountsPieces(rows, params.format, params.byClass, params.timeZone)) {
    if (closed) return 0;
    batch += piece;
    if (batch.length >= 65_536) {
      // An EPIPE while waiting ends the wait (once() rejects on 'error'); `closed` then ends the loop.
      if (!process.stdout.write(batch)) await once(process.stdout, 'drain').catch(() => {});
      batch = '';
    }
  }
  if (batch !== '') process.stdout.write(batch);
  return 0;
}
