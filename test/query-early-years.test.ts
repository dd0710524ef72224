// from/to with a year before 100 are read as that year, not as 1900-1999 (Date.UTC's two-digit-year rule).
import { expect, test } from 'vitest';
import { parseQueryParams } from '../dist/src/store/index.js';

test.each([
  ['0099-01-01', '0099-01-01T00:00:00.000Z'],
  ['0000-02-29T12:30Z', '0000-02-29T12:30:00.000Z'],
  ['0050-06-15T08:00:00+02:00', '0050-06-15T06:00:00.000Z'],
])('from=%s is read as written', (from, iso) => {
  const p = parseQueryParams({ bucket: 'day', from }, 'http');
  expect(new Date(p.fromMs!).toISOString()).toBe(iso);
});

test('a year-99 date in a time zone is read in that year, and Feb 29 of a common year is refused', () => {
  const p = parseQueryParams({ bucket: 'day', to: '0099-01-02', tz: 'Europe/Berlin' }, 'cli');
  expect(new Date(p.toMs!).getUTCFullYear()).toBe(99);
  expect(() => parseQueryParams({ bucket: 'day', from: '0099-02-29' }, 'http')).toThrow(/^from: must be an ISO 8601 time/);
});

test('from=0099-01-01 with to=1999-06-01 is a range, not from after to', () => {
  const p = parseQueryParams({ bucket: 'day', from: '0099-01-01', to: '1999-06-01' }, 'http');
  expect(p.fromMs!).toBeLessThan(Date.UTC(1900, 0, 1));
});
