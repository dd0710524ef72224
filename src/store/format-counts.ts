// Renders count rows for people (aligned table), spreadsheets (RFC 4180 CSV) and programs (JSON).

import { VEHICLE_CLASSES } from '../analyze/analyzer-types.js';
import { CLASS_COLUMNS, type CountFormat, type CountRow } from './query-counts.js';

const CSV_COLUMNS = ['bucket', 'start', 'camera', 'line', 'in', 'out', 'total', 'frames_received', 'frames_expected', 'uptime'] as const;
// Added after the class columns (schema version 2): last, so that the columns a script already reads keep their places.
const MOVED_COLUMNS = ['frames_moved', 'view_moved'] as const;
// Schema version 3, after those for the same reason.
const MONITORED_COLUMNS = ['monitored_ms', 'monitored'] as const;

/** The values of one row's class columns, in CLASS_COLUMNS order. */
const classValues = (r: CountRow): number[] => VEHICLE_CLASSES.flatMap((c) => [r.byClass[c].in, r.byClass[c].out]);

function csvField(value: string | number | null): string {
  const s = value === null ? '' : String(value);
  // RFC 4180: quote fields holding a comma, quote or line break; double the quotes inside.
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function* csvLines(rows: readonly CountRow[], byClass: boolean): Generator<string> {
  // RFC 4180 records end with CRLF, the last one included.
  yield `${[...CSV_COLUMNS, ...(byClass ? CLASS_COLUMNS : []), ...MOVED_COLUMNS, ...MONITORED_COLUMNS].join(',')}\r\n`;
  for (const r of rows) {
    const fields = [
      r.bucket, r.start, r.cameraId, r.lineId, r.in, r.out, r.total, r.framesReceived, r.framesExpected, r.uptime,
      ...(byClass ? classValues(r) : []), r.framesMoved, r.viewMoved, r.monitoredMs, r.monitored,
    ];
    yield `${fields.map(csvField).join(',')}\r\n`;
  }
}

function uptimeText(uptime: number | null): string {
  // "-" when nothing was expected: not monitored is not the same as 0 % uptime.
  return uptime === null ? '-' : `${(uptime * 100).toFixed(1)}%`;
}

/**
 * The share of the bucket's time monitored, in whole percent: "<1%" for a few seconds of an hour (never "0%" for some),
 * "?" when unknown (never a guess).
 */
function monitoredText(monitored: number | null): string {
  if (monitored === null) return '?';
  return monitored > 0 && monitored < 0.005 ? '<1%' : `${Math.round(monitored * 100)}%`;
}

/** The share of a bucket's frames taken while the view had moved, marked so it stands out; blank when none. */
function movedText(r: CountRow): string {
  if (r.framesMoved === 0 || r.viewMoved === null) return '';
  // Never "0.0%" for a bucket that has moved frames.
  return `${Math.max(0.1, r.viewMoved * 100).toFixed(1)}% !`;
}

function* tableLines(rows: readonly CountRow[], byClass: boolean, timeZone: string): Generator<string> {
  // The column is there only when a bucket in the answer had its camera's view moved.
  const moved = rows.some((r) => r.framesMoved > 0);
  const header = [`start (${timeZone})`, 'camera', 'line', 'in', 'out', 'total', ...(byClass ? CLASS_COLUMNS : []), 'uptime', 'monitored', ...(moved ? ['view moved'] : [])];
  const rightAligned = header.map((_, i) => i >= 3);
  const cellsOf = (r: CountRow): string[] => [
    r.start, r.cameraId, r.lineId, String(r.in), String(r.out), String(r.total),
    ...(byClass ? classValues(r).map(String) : []),
    uptimeText(r.uptime),
    monitoredText(r.monitored),
    ...(moved ? [movedText(r)] : []),
  ];
  // A loop, not Math.max(...column): spreading 125,000 rows or more overflowed the stack (one line's minutes over
  // three months).
  const widths = header.map((h) => h.length);
  for (const r of rows) cellsOf(r).forEach((c, i) => (widths[i] = Math.max(widths[i]!, c.length)));
  const render = (cells: string[]): string =>
    `${cells
      .map((c, i) => (rightAligned[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()}\n`;
  yield render(header);
  yield `${widths.map((w) => '-'.repeat(w)).join('  ')}\n`;
  for (const r of rows) yield render(cellsOf(r));
  if (rows.length === 0) yield '(no buckets match: none starting in the range asked (from ≤ start < to) was monitored or counted)\n';
  const unknown = rows.filter((r) => r.monitored === null).length;
  if (unknown > 0) {
    yield '\n';
    yield `? monitored: unknown in ${unknown} of these rows, written (in whole or in part) before traffic-counter recorded it (database ` +
      'schema version 3) or without frame accounting; their uptime is over the time the daemon ran, which may be a small part of the bucket\n';
  }
  if (moved) {
    const n = rows.filter((r) => r.framesMoved > 0).length;
    yield '\n';
    yield `! view moved: in ${n} of these rows, part of the bucket's frames came while the camera's view did not match the one its ROI ` +
      'and lines were learnt on (turned, zoomed or blocked); their counts are unreliable (see "Has the camera moved?" in the README)\n';
  }
}

/** JSON.stringify(rows, null, 2), a row at a time (one string of a million rows is over V8's string limit). */
function* jsonLines(rows: readonly CountRow[]): Generator<string> {
  if (rows.length === 0) {
    yield '[]\n';
    return;
  }
  yield '[\n';
  for (let i = 0; i < rows.length; i++) yield `  ${JSON.stringify(rows[i], null, 2).replace(/\n/g, '\n  ')}${i < rows.length - 1 ? ',' : ''}\n`;
  yield ']\n';
}

/**
 * Formats rows in pieces (a line or a row each), for answers too large for one string; every format ends with a
 * newline. `byClass` adds the class columns to table and CSV; `timeZone` is the one the rows' starts are in
 * (QueryParams.timeZone), named in the table's header.
 */
export function formatCountsPieces(rows: readonly CountRow[], format: CountFormat, byClass = false, timeZone = 'UTC'): Iterable<string> {
  switch (format) {
    case 'csv':
      return csvLines(rows, byClass);
    case 'json':
      return jsonLines(rows);
    case 'table':
      return tableLines(rows, byClass, timeZone);
  }
}

/** formatCountsPieces as one string. */
export function formatCounts(rows: readonly CountRow[], format: CountFormat, byClass = false, timeZone = 'UTC'): string {
  let out = '';
  for (const piece of formatCountsPieces(rows, format, byClass, timeZone)) out += piece;
  return out;
}
