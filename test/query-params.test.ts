// Query parameters are validated once for CLI and HTTP; errors name the parameter as the user typed it.
import { describe, expect, test } from 'vitest';
import { parseQueryParams } from '../dist/src/store/index.js';

function errorOf(raw: Record<string, string | undefined>, source: 'cli' | 'http'): { code: string; message: string } {
  try {
    parseQueryParams(raw, source);
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
}

describe.each([
  ['cli', '--'],
  ['http', ''],
] as const)('%s spelling', (source, prefix) => {
  test('bucket is required and must be minute, 15min, hour or day', () => {
    expect(errorOf({}, source)).toMatchObject({ code: 'TC_ERR_QUERY', message: expect.stringMatching(new RegExp(`^${prefix}bucket: required`)) });
    expect(errorOf({ bucket: 'week' }, source).message).toBe(`${prefix}bucket: must be one of minute, 15min, hour, day; got "week"`);
  });

  test.each([
    ['from', 'yesterday'],
    ['to', '2024-13-01'],
    ['from', '2024-02-30'],
    ['to', '2024-05-01T25:00Z'],
  ])('%s=%s is not a time', (key, value) => {
    const err = errorOf({ bucket: 'hour', [key]: value }, source);
    expect(err.code).toBe('TC_ERR_QUERY');
    expect(err.message).toMatch(new RegExp(`^${prefix}${key}: must be an ISO 8601 time`));
    expect(err.message).toContain(JSON.stringify(value));
  });

  test('from must be before to', () => {
    const err = errorOf({ bucket: 'hour', from: '2024-05-02', to: '2024-05-01' }, source);
    expect(err.message).toMatch(new RegExp(`^${prefix}from/${prefix}to: from must be before to`));
  });

  test('camera, line and format are checked', () => {
    expect(errorOf({ bucket: 'hour', camera: 'cam 1' }, source).message).toMatch(new RegExp(`^${prefix}camera: must be a camera id`));
    expect(errorOf({ bucket: 'hour', line: '../x' }, source).message).toMatch(new RegExp(`^${prefix}line: must be a line id`));
    expect(errorOf({ bucket: 'hour', format: 'xml' }, source).message).toBe(`${prefix}format: must be one of table, csv, json; got "xml"`);
  });
});

test('a very long bad value is shortened in the message', () => {
  const err = errorOf({ bucket: 'x'.repeat(10_000) }, 'http');
  expect(err.message.length).toBeLessThan(200);
});

test('times accept ISO 8601 with or without a zone, a date, or epoch ms, all meaning the same instant', () => {
  const ms = Date.UTC(2024, 4, 1, 8, 0);
  for (const from of ['2024-05-01T08:00:00Z', '2024-05-01T08:00', '2024-05-01T10:00:00+02:00', '2024-05-01T03:30-04:30', String(ms), '2024-05-01T08:00:00.000Z']) {
    expect(parseQueryParams({ bucket: 'minute', from }, 'cli').fromMs).toBe(ms);
  }
  expect(parseQueryParams({ bucket: 'day', to: '2024-05-01' }, 'cli').toMs).toBe(Date.UTC(2024, 4, 1));
  // A '+' not encoded in a URL arrives as a space; the offset is still read as one.
  expect(parseQueryParams({ bucket: 'minute', from: '2024-05-01T10:00:00 02:00' }, 'http').fromMs).toBe(ms);
});

test('epoch seconds are refused with the milliseconds to give, not read as a time in January 1970', () => {
  expect(errorOf({ bucket: 'hour', from: '1714550400' }, 'http').message).toBe(
    'from: 1714550400 as epoch milliseconds is 1970-01-20T20:15:50.400Z; for epoch seconds give 1714550400000, or an ISO 8601 time',
  );
  expect(parseQueryParams({ bucket: 'hour', from: '1714550400000' }, 'http').fromMs).toBe(Date.UTC(2024, 4, 1, 8, 0));
});

test('a date written without dashes (20261207) is refused with the date to give, not read as ms in January 1970', () => {
  expect(errorOf({ bucket: 'hour', from: '20261207' }, 'cli').message).toBe(
    '--from: 20261207 as epoch milliseconds is 1970-01-01T05:37:41.207Z; for the date give 2026-12-07 (midnight UTC), or an ISO 8601 time',
  );
  expect(errorOf({ bucket: 'day', to: '20261208', tz: 'Europe/Berlin' }, 'http').message).toBe(
    'to: 20261208 as epoch milliseconds is 1970-01-01T05:37:41.208Z; for the date give 2026-12-08 (midnight Europe/Berlin time), or an ISO 8601 time',
  );
  // No date (February 30th, month 13): a mistyped date all the same, refused saying so, not read as ms in 1970.
  expect(errorOf({ bucket: 'hour', from: '20260230' }, 'cli').message).toBe(
    '--from: 20260230 as epoch milliseconds is 1970-01-01T05:37:40.230Z, and as a date without dashes 2026-02-30 is no date; give a date as YYYY-MM-DD (2024-05-01, midnight UTC), or an ISO 8601 time',
  );
  expect(errorOf({ bucket: 'hour', to: '20261307' }, 'http').message).toMatch(/^to: 20261307 .* 2026-13-07 is no date;/);
  // Small numbers are still epoch milliseconds (0: since the epoch).
  expect(parseQueryParams({ bucket: 'hour', from: '0' }, 'cli').fromMs).toBe(0);
  expect(parseQueryParams({ bucket: 'hour', from: '1969' }, 'cli').fromMs).toBe(1969);
});

test('a year alone (2026) is refused with the date to give, not read as ms in January 1970', () => {
  // --from 2026 --to 2027 answered no rows, and --from 2026 every row since 1970.
  expect(errorOf({ bucket: 'day', from: '2026' }, 'cli').message).toBe(
    '--from: 2026 as epoch milliseconds is 1970-01-01T00:00:02.026Z; for the year give 2026-01-01 (midnight UTC), or an ISO 8601 time',
  );
  expect(errorOf({ bucket: 'day', from: '2026-01-01', to: '2027', tz: 'Europe/Berlin' }, 'http').message).toBe(
    'to: 2027 as epoch milliseconds is 1970-01-01T00:00:02.027Z; for the year give 2027-01-01 (midnight Europe/Berlin time), or an ISO 8601 time',
  );
});

test('a year and month without a dash (202612) is refused with the date to give; other six-digit numbers stay ms', () => {
  expect(errorOf({ bucket: 'day', from: '202612' }, 'cli').message).toBe(
    '--from: 202612 as epoch milliseconds is 1970-01-01T00:03:22.612Z; for the month give 2026-12-01 (midnight UTC), or an ISO 8601 time',
  );
  expect(errorOf({ bucket: 'day', to: '202601', tz: 'Europe/Berlin' }, 'http').message).toMatch(/^to: 202601 .*; for the month give 2026-01-01 \(midnight Europe\/Berlin time\)/);
  expect(parseQueryParams({ bucket: 'hour', from: '202613' }, 'cli').fromMs).toBe(202613);
});

test('ISO 8601 basic form with a time (20261207T080000Z) is read as the extended form, with or without seconds and zone', () => {
  const at = (v: string, tz?: string) => parseQueryParams({ bucket: 'hour', from: v, ...(tz ? { tz } : {}) }, 'cli').fromMs;
  expect(at('20261207T080000Z')).toBe(Date.UTC(2026, 11, 7, 8, 0));
  expect(at('20261207T0800')).toBe(Date.UTC(2026, 11, 7, 8, 0));
  expect(at('20261207T080030.5+0100')).toBe(Date.UTC(2026, 11, 7, 7, 0, 30, 500));
  expect(at('20261207T080000-05')).toBe(Date.UTC(2026, 11, 7, 13, 0));
  // A '+' left unencoded in a URL arrives as a space.
  expect(at('20261207T0800 0100')).toBe(Date.UTC(2026, 11, 7, 7, 0));
  // No zone: in the query's time zone, as for the extended form (Berlin is UTC+1 in December).
  expect(at('20261207T0800', 'Europe/Berlin')).toBe(Date.UTC(2026, 11, 7, 7, 0));
  // An hour offset alone in the extended form too.
  expect(at('2026-12-07T08:00+01')).toBe(Date.UTC(2026, 11, 7, 7, 0));
  // Over HTTP with the '+' left unencoded (from=2026-12-07T08:00+01), as the basic form and +01:00 are taken so;
  // a comma before the fraction too.
  const plusUnencoded = (q: string): string => new URLSearchParams(q).get('from')!;
  expect(parseQueryParams({ bucket: 'hour', from: plusUnencoded('from=2026-12-07T08:00+01') }, 'http').fromMs).toBe(Date.UTC(2026, 11, 7, 7, 0));
  expect(parseQueryParams({ bucket: 'hour', from: plusUnencoded('from=2026-12-07T08:00:30,5+01:00') }, 'http').fromMs).toBe(Date.UTC(2026, 11, 7, 7, 0, 30, 500));
  expect(parseQueryParams({ bucket: 'hour', from: plusUnencoded('from=20261207T0800+01') }, 'http').fromMs).toBe(Date.UTC(2026, 11, 7, 7, 0));
  // Not a time (hour 25, February 30th): refused as before.
  expect(errorOf({ bucket: 'hour', from: '20261207T2500Z' }, 'cli').message).toMatch(/^--from: must be an ISO 8601 time/);
  expect(errorOf({ bucket: 'hour', from: '20260230T0800Z' }, 'cli').message).toMatch(/^--from: must be an ISO 8601 time/);
});

test('a time zone is named as given where this Node knows it by an older alias (Asia/Kolkata, not Asia/Calcutta)', () => {
  expect(parseQueryParams({ bucket: 'hour', tz: 'Asia/Kolkata' }, 'cli').timeZone).toBe('Asia/Kolkata');
  expect(parseQueryParams({ bucket: 'hour', tz: 'europe/berlin' }, 'cli').timeZone).toBe('Europe/Berlin');
  // An alias is named as given, as `local` is named as TZ sets it (README): not as the zone it links to.
  expect(parseQueryParams({ bucket: 'hour', tz: 'US/Eastern' }, 'cli').timeZone).toBe('US/Eastern');
});

test('valid parameters are returned with defaults: table on the CLI, json over HTTP', () => {
  expect(parseQueryParams({ bucket: 'hour', camera: 'cam-1', line: 'north.in' }, 'cli')).toEqual({ bucket: 'hour', cameraId: 'cam-1', lineId: 'north.in', format: 'table', byClass: false, timeZone: 'UTC' });
  // An empty form field means "any".
  expect(parseQueryParams({ bucket: 'day', camera: '', from: '' }, 'http')).toEqual({ bucket: 'day', format: 'json', byClass: false, timeZone: 'UTC' });
});

test('an empty value on the command line (a shell variable not set) is refused by name, not read as no filter', async () => {
  // `query --camera "$CAM" --from "$FROM"` with both unset printed every camera's counts since the first. Refused by
  // the command line's parser (parseCliArgs), as every command's empty values are: see cli-empty-values.test.ts.
  const { runCli } = await import('./helpers/run-cli.js');
  for (const key of ['camera', 'line', 'from', 'to', 'tz', 'format']) {
    const r = await runCli(['query', '--bucket', 'day', `--${key}`, '']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(new RegExp(`^traffic-counter: query: --${key} given empty; give .+, or leave --${key} out`)) });
  }
});

test('byClass takes 1, true, 0 or false over HTTP, and anything else is refused by name', () => {
  expect(parseQueryParams({ bucket: 'day', byClass: '1' }, 'http').byClass).toBe(true);
  expect(parseQueryParams({ bucket: 'day', byClass: 'true' }, 'http').byClass).toBe(true);
  expect(parseQueryParams({ bucket: 'day', byClass: '0' }, 'http').byClass).toBe(false);
  expect(parseQueryParams({ bucket: 'day', byClass: 'false' }, 'http').byClass).toBe(false);
  expect(errorOf({ bucket: 'day', byClass: 'yes' }, 'http').message).toBe('byClass: must be 1, true, 0 or false; got "yes"');
});
