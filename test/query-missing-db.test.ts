// Querying before the daemon ever ran: a clear error, and no empty database left behind.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { parseQueryParams, queryCounts } from '../dist/src/store/index.js';

test('a missing database file is a query error naming the file, and the file is not created', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-missing-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'counts.db');
  const params = parseQueryParams({ bucket: 'hour' }, 'cli');
  expect(() => queryCounts(file, params)).toThrow(expect.objectContaining({ code: 'TC_ERR_QUERY', message: expect.stringMatching(/counts\.db.*run the daemon/) }));
  expect(fs.readdirSync(dir)).toEqual([]);
});

test('query --db "" (a shell variable not set) names --db, not an empty path', async () => {
  const { runCli } = await import('./helpers/run-cli.js');
  const r = await runCli(['query', '--db', '', '--bucket', 'hour']);
  // It said "traffic-counter: : no count database at this path; … or pass the right --db".
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 2,
    stderr: 'traffic-counter: query: --db given empty; give the database file the daemon writes (--db), or leave --db out for ./data/counts.db [TC_ERR_USAGE]\n',
  });
});
