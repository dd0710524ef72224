// Entry of `npm run bench`: runs every scenario (or --only some), prints one Markdown report and writes
// bench/results/<date>.json.  Usage: node dist/bench/run.js [--quick] [--only a,b] [--results-dir DIR]

import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { BenchContext } from './bench-util.js';
import { Reporter } from './reporter.js';
import { frameHandoff } from './frame-handoff.bench.js';
import { smallMessages } from './small-messages.bench.js';
import { fanOut } from './fan-out.bench.js';
import { endToEnd } from './end-to-end.bench.js';
import { decode } from './decode.bench.js';
import { analyzer } from './analyzer.bench.js';

const SCENARIOS: Record<string, (ctx: BenchContext, report: Reporter) => Promise<void>> = {
  'frame-handoff': frameHandoff,
  'small-messages': smallMessages,
  'fan-out': fanOut,
  decode,
  analyzer,
  'end-to-end': endToEnd,
};

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, 'results-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(`Usage: npm run bench -- [--quick] [--only ${Object.keys(SCENARIOS).join(',')}] [--results-dir DIR]\n`);
    return 0;
  }
  const names = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(SCENARIOS);
  const unknown = names.filter((n) => !(n in SCENARIOS));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown scenario ${unknown.join(', ')}; choose from ${Object.keys(SCENARIOS).join(', ')}\n`);
    return 2;
  }
  const quick = values.quick ?? false;
  const report = new Reporter(quick ? 'quick' : 'full');
  const started = performance.now();
  const ctx: BenchContext = {
    quick,
    log: (msg) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1)}s] ${msg}\n`),
  };
  for (const name of names) await SCENARIOS[name]!(ctx, report);
  process.stdout.write(`${report.markdown()}\n`);
  process.stdout.write(`Total bench time ${((performance.now() - started) / 1000).toFixed(0)} s.\n`);
  const dir = values['results-dir'] ?? fileURLToPath(new URL('../../bench/results/', import.meta.url));
  const file = report.writeJson(dir);
  process.stderr.write(`bench: results written to ${file}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
