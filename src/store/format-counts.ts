// Renders count rows for people (aligned table), spreadsheets (RFC 4180 CSV) and programs (JSON).

import { VEHICLE_CLASSES } from '../analyze/analyzer-types.js';
import { CLASS_COLUMNS, type CountFormat, type CountRow } from './query-counts.js';

const CSV_COLUMNS = ['bucket', 'start', 'camera', 'line', 'in', 'out', 'total', 'frames_received', 'frames_expected', 'uptime'] as const;
// Added after the class columns (schema version 2): last, so that the columns a script already reads keep their places.
const MOVED_COLUMNS = ['frames_moved', 'view_moved'] as const;

/** The values of one row's class columns, in CLASS_COLUMNS order. */
const classValues = (r: CountRow): number[] => VEHICLE_CLASSES.flatMap((c) => [r.byClass[c].in, r.byClass[c].out]);

function csvField(value: string | number | null): string {
  const s = value === null ? '' : String(value);
  // RFC 4180: quote fields holding a comma, quote or line break; double the quotes inside.
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function toCsv(rows: readonly CountRow[], byClass: boolean): string {
  const lines = [[...CSV_COLUMNS, ...(byClass ? CLASS_COLUMNS : []), ...MOVED_COLUMNS].join(',')];
  for (const r of rows) {
    lines.push(
      [r.bucket, r.start, r.cameraId, r.lineId, r.in, r.out, r.total, r.framesReceived, r.framesExpected, r.uptime, ...(byClass ? classValues(r) : []), r.framesMoved, r.viewMoved]
        .map(csvField)
        .join(','),
    );
  }
  // RFC 4180 records end with CRLF, the last one included.
  return `${lines.join('\r\n')}\r\n`;
}

function uptimeText(uptime: number | null): string {
  // "-" when nothing was expected: not monitored is not the same as 0 % uptime.
  return uptime === null ? '-' : `${(uptime * 100).toFixed(1)}%`;
}

/** The share of a bucket's frames taken while the view had moved, marked so it stands out; blank when none. */
function movedText(r: CountRow): string {
  if (r.framesMoved === 0 || r.viewMoved === null) return '';
  // Never "0.0%" for a bucket that has moved frames.
  return `${Math.max(0.1, r.viewMoved * 100).toFixed(1)}% !`;
}

function toTable(rows: readonly CountRow[], byClass: boolean, timeZone: string): string {
  // The column is there only when a bucket in the answer had its camera's view moved.
  const moved = rows.some((r) => r.framesMoved > 0);
  const header = [`start (${timeZone})`, 'camera', 'line', 'in', 'out', 'total', ...(byClass ? CLASS_COLUMNS : []), 'uptime', ...(moved ? ['view moved'] : [])];
  const rightAligned = header.map((_, i) => i >= 3);
  const body = rows.map((r) => [
    r.start, r.cameraId, r.lineId, String(r.in), String(r.out), String(r.total),
    ...(byClass ? classValues(r).map(String) : []),
    uptimeText(r.uptime),
    ...(moved ? [movedText(r)] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
  const render = (cells: string[]): string =>
    cells
      .map((c, i) => (rightAligned[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [render(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const cells of body) out.push(render(cells));
  if (rows.length === 0) out.push('(no buckets match: nothing was monitored or counted in this range)');
  if (moved) {
    const n = rows.filter((r) => r.framesMoved > 0).length;
    out.push(
      '',
      `! view moved: in ${n} of these rows, part of the bucket's frames came while the camera's view did not match the one its ROI ` +
        'and lines were learnt on (turned, zoomed or blocked); their counts are unreliable (see "Has the camera moved?" in the README)',
    );
  }
  return `${out.join('\n')}\n`;
}

/**
 * Formats rows; every format ends with a newline. `byClass` adds the class columns to table and CSV; `timeZone` is
 * the one the rows' starts are in (QueryParams.timeZone), named in the table's header.
 */
export function formatCounts(rows: readonly CountRow[], format: CountFormat, byClass = false, timeZone = 'UTC'): string {
  switch (format) {
    case 'csv':
      return toCsv(rows, byClass);
    case 'json':
      return `${JSON.stringify(rows, null, 2)}\n`;
    case 'table':
      return toTable(rows, byClass, timeZone);
  }
}
