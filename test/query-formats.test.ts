// Count rows render as an aligned table, RFC 4180 CSV, or JSON that round-trips.
import { expect, test } from 'vitest';
import { formatCounts } from '../dist/src/store/index.js';
import type { CountRow } from '../dist/src/store/index.js';

const NONE = { in: 0, out: 0 };

// An hour's rows of a 0.5-s camera: monitored for expected × 500 ms unless given (null: not recorded, before schema 3).
function row(start: string, cameraId: string, lineId: string, inN: number, outN: number, received: number, expected: number, moved = 0, monitoredMs: number | null = expected * 500): CountRow {
  return {
    bucket: 'hour', start, cameraId, lineId, in: inN, out: outN, total: inN + outN, framesReceived: received, framesExpected: expected,
    uptime: expected ? Math.min(1, received / expected) : null,
    monitoredMs, monitored: monitoredMs === null ? null : Math.min(1, monitoredMs / 3_600_000),
    framesMoved: moved, viewMoved: received ? moved / received : null,
    // All cars: the classes add up to in and out, as in a stored row (shown only with byClass, not used here).
    byClass: { car: { in: inN, out: outN }, heavy: NONE, 'two-wheeler': NONE, unknown: NONE },
  };
}

const ROWS: CountRow[] = [
  row('2024-05-01T08:00:00.000Z', 'main-street', 'north', 1234, 56, 7200, 7200),
  row('2024-05-01T08:00:00.000Z', 'cam2', 'a', 0, 0, 1800, 7200),
  row('2024-05-01T09:00:00.000Z', 'cam2', 'a', 3, 4, 0, 0),
];

test('table: one header, aligned columns, uptime and monitored as percentages, uptime "-" when nothing was expected', () => {
  const lines = formatCounts(ROWS, 'table').trimEnd().split('\n');
  expect(lines).toHaveLength(2 + ROWS.length);
  // No view moved in these rows: no column and no footnote for it.
  expect(lines[0]).toMatch(/^start \(UTC\)\s+camera\s+line\s+in\s+out\s+total\s+uptime\s+monitored$/);
  // Right-aligned numbers: every "total" cell ends at the same column as its header.
  const totalEnd = lines[0].indexOf('total') + 'total'.length;
  for (const [i, r] of ROWS.entries()) {
    const line = lines[2 + i];
    expect(line.slice(0, totalEnd).trimEnd().endsWith(` ${r.total}`)).toBe(true);
    expect(line).toContain(r.cameraId);
  }
  expect(lines[2]).toMatch(/\s100\.0%\s+100%$/);
  expect(lines[3]).toMatch(/\s25\.0%\s+100%$/);
  expect(lines[4]).toMatch(/\s-\s+0%$/);
});

test('table: an hour at full uptime that was monitored for a minute reads 2%, a few seconds "<1%", unknown "?" with a note', () => {
  const rows = [
    row('2024-05-01T08:00:00.000Z', 'cam2', 'a', 3, 1, 120, 120),
    row('2024-05-01T09:00:00.000Z', 'cam2', 'a', 0, 0, 4, 4),
    row('2024-05-01T10:00:00.000Z', 'cam2', 'a', 40, 2, 7200, 7200, 0, null),
  ];
  const lines = formatCounts(rows, 'table').trimEnd().split('\n');
  // The monitored column, right-aligned under its header.
  const end = lines[0]!.length;
  expect(lines[0]).toMatch(/\suptime  monitored$/);
  expect(lines.slice(2, 5).map((l) => [l.length, l.trim().split(/\s+/).slice(-2)])).toEqual([
    [end, ['100.0%', '2%']],
    [end, ['100.0%', '<1%']],
    [end, ['100.0%', '?']],
  ]);
  expect(lines.at(-1)).toMatch(/^\? monitored: unknown in 1 of these rows, written .*before .*schema version 3/);
  // None unknown: no note.
  expect(formatCounts(rows.slice(0, 2), 'table').trimEnd().split('\n')).toHaveLength(4);
});

test('table with no rows says so', () => {
  expect(formatCounts([], 'table')).toMatch(/no buckets match/);
});

test('csv: header, CRLF records, one record per row, empty uptime when not monitored', () => {
  const csv = formatCounts(ROWS, 'csv');
  const records = csv.split('\r\n');
  expect(records.at(-1)).toBe(''); // final CRLF
  // The columns of before schema version 3 keep their places; monitored_ms and monitored come last.
  expect(records[0]).toBe('bucket,start,camera,line,in,out,total,frames_received,frames_expected,uptime,frames_moved,view_moved,monitored_ms,monitored');
  const parsed = records.slice(1, -1).map((r) => r.split(','));
  expect(parsed.map((f) => [f[2], f[3], Number(f[6]), f[9]])).toEqual(ROWS.map((r) => [r.cameraId, r.lineId, r.total, r.uptime === null ? '' : String(r.uptime)]));
  expect(parsed.map((f) => f.slice(12))).toEqual([['3600000', '1'], ['3600000', '1'], ['0', '0']]);
  // Unknown is empty, as a missing uptime is: never 0.
  const unknown = formatCounts([row('2024-05-01T08:00:00.000Z', 'cam2', 'a', 1, 0, 7200, 7200, 0, null)], 'csv').split('\r\n')[1]!;
  expect(unknown.split(',').slice(9)).toEqual(['1', '0', '0', '', '']);
});

test('json: an array that parses back to the rows', () => {
  expect(JSON.parse(formatCounts(ROWS, 'json'))).toEqual(ROWS);
  expect(JSON.parse(formatCounts([], 'json'))).toEqual([]);
});

test('rows counted while the camera view had moved are marked in every format, with a note under the table', () => {
  const rows = [
    row('2024-05-01T08:00:00.000Z', 'cam2', 'a', 10, 12, 7200, 7200),
    row('2024-05-01T09:00:00.000Z', 'cam2', 'a', 51, 3, 7000, 7200, 1750),
    row('2024-05-01T10:00:00.000Z', 'cam2', 'a', 40, 2, 7200, 7200, 3),
  ];
  const lines = formatCounts(rows, 'table').trimEnd().split('\n');
  expect(lines[0]).toMatch(/\suptime\s+monitored\s+view moved$/);
  expect(lines[2]).toMatch(/100\.0%\s+100%$/);
  expect(lines[3]).toMatch(/25\.0% !$/);
  // A few moved frames are never shown as 0.0%.
  expect(lines[4]).toMatch(/0\.1% !$/);
  expect(lines.at(-1)).toMatch(/^! view moved: in 2 of these rows.*unreliable/);

  const csv = formatCounts(rows, 'csv').split('\r\n');
  expect(csv[2]!.split(',').slice(10, 12)).toEqual(['1750', '0.25']);
  expect(csv[1]!.split(',').slice(10, 12)).toEqual(['0', '0']);
  expect(JSON.parse(formatCounts(rows, 'json'))[1]).toMatchObject({ framesMoved: 1750, viewMoved: 0.25 });
});

test('a quarter of a million rows: every format renders them all, JSON as JSON.stringify would, piece by piece', async () => {
  // One line's minutes over 174 days. The table spread a column into Math.max and overflowed the stack from about
  // 125,000 rows on (the query CLI exited with "Maximum call stack size exceeded" and printed nothing).
  const { formatCountsPieces } = await import('../dist/src/store/format-counts.js');
  const many = Array.from({ length: 250_000 }, (_, k) => row(new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString(), 'cam', 'l', k % 7, k % 3, 60, 60));
  const table = formatCounts(many, 'table').trimEnd().split('\n');
  expect(table).toHaveLength(2 + many.length);
  expect(table.at(-1)).toMatch(/^2026-06-23T14:39\S+\s+cam\s+l\s+\d+\s+\d+\s+\d+\s+100\.0%\s+\d+%$/);
  expect(formatCounts(many, 'csv').split('\r\n')).toHaveLength(1 + many.length + 1);
  const few = many.slice(0, 3);
  expect([...formatCountsPieces(few, 'json')].join('')).toBe(`${JSON.stringify(few, null, 2)}\n`);
  expect([...formatCountsPieces([], 'json')].join('')).toBe('[]\n');
  expect((JSON.parse([...formatCountsPieces(many, 'json')].join('')) as unknown[]).length).toBe(many.length);
});
