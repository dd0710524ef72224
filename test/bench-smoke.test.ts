// `npm run bench -- --quick` runs every scenario end to end, prints the Markdown report and writes the JSON
// results file (numbers are not checked: this only proves the benchmark works).
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { tempDir } from './helpers/temp-dir.js';

const RUN = fileURLToPath(new URL('../dist/bench/run.js', import.meta.url));
const SCENARIOS = ['frame-handoff', 'small-messages', 'fan-out', 'decode', 'analyzer', 'end-to-end'];

test('bench --quick reports every scenario with the machine header and writes the JSON file', async () => {
  const dir = tempDir('tc-bench-');
  const stdout = await new Promise<string>((resolve, reject) => {
    // Bounded: a hung scenario fails the test instead of blocking the suite.
    execFile(process.execPath, [RUN, '--quick', '--results-dir', dir], { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (err, out, errOut) =>
      err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out),
    );
  });
  expect(stdout).toMatch(new RegExp(`Node ${process.version.replace(/\./g, '\\.')} · .+ · \\d+ cores · `));
  for (const s of SCENARIOS) expect(stdout).toContain(`| ${s} `);
  expect(stdout).toContain('## Targets (ratios from this run)');

  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  const doc = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as {
    machine: { node: string; cpu: string; cores: number; date: string };
    tables: { scenario: string; rows: { label: string }[] }[];
  };
  expect(doc.machine).toMatchObject({ node: process.version });
  expect(doc.machine.cores).toBeGreaterThan(0);
  expect(doc.tables.map((t) => t.scenario).sort()).toEqual([...SCENARIOS].sort());
  for (const t of doc.tables) expect(t.rows.length).toBeGreaterThan(0);
}, 300_000);
