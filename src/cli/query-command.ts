// `traffic-counter query`: stored counts per minute/15-minute/hour/day bucket, as a table, CSV or JSON.

import { parseCliArgs } from './parse-cli-args.js';
import { queryCounts } from '../store/count-reader.js';
import { parseQueryParams } from '../store/query-counts.js';
import { formatCounts } from '../store/format-counts.js';

const HELP = `Usage: traffic-counter query --db FILE --bucket minute|15min|hour|day [options]

Prints vehicle counts per bucket (UTC, or local time with --tz), camera and line, with the camera's
uptime in each bucket (frames received / frames expected), so an outage never reads as zero traffic.

Options:
  --db FILE          SQLite file written by 'traffic-counter run' (default ./data/counts.db)
  --bucket B         minute, 15min, hour or day (required); 15min sums the minute rows per quarter hour
  --camera ID        only this camera (an id the database does not have is refused, with the ids it has)
  --line ID          only this line (likewise)
  --from ISO         first bucket start, e.g. 2026-11-22T08:00Z or 2026-11-22 (inclusive; without a
                     zone, in --tz)
  --to ISO           end time (exclusive)
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
  process.stdout.write(formatCounts(rows, params.format, params.byClass, params.timeZone));
  return 0;
}
