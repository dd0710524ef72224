// The one benchmark reporter: a Markdown report (machine header, one table per scenario, the target ratios)
// on stdout, and the same data as JSON in bench/results/<date>.json.

import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

export type Cell = string | number | null;

export interface Row {
  /** Scenario and parameters, e.g. `frame-handoff channel=shared size=1280x720`. */
  readonly label: string;
  readonly values: Readonly<Record<string, Cell>>;
}

export interface Table {
  readonly scenario: string;
  readonly title: string;
  /** Column keys in order, with their headings (units included). */
  readonly columns: readonly (readonly [key: string, heading: string])[];
  readonly rows: Row[];
  /** How it was measured, printed under the table. */
  readonly method: string;
}

export interface Ratio {
  readonly name: string;
  readonly value: number;
  /** e.g. '≥ 50×' */
  readonly target: string;
  readonly met: boolean | null;
  readonly note?: string;
}

export interface Machine {
  readonly node: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGB: number;
  readonly platform: string;
  readonly date: string;
  readonly loadAvgAtStart: readonly number[];
}

export class Reporter {
  readonly machine: Machine;
  readonly tables: Table[] = [];
  readonly ratios: Ratio[] = [];
  readonly #mode: string;
  #loadAtEnd: number[] = [];

  constructor(mode: string) {
    this.#mode = mode;
    this.machine = {
      node: process.version,
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      memoryGB: Math.round(totalmem() / 2 ** 30),
      platform: `${process.platform}-${process.arch}`,
      date: new Date().toISOString(),
      loadAvgAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
    };
  }

  add(table: Table): void {
    this.tables.push(table);
  }

  ratio(r: Ratio): void {
    this.ratios.push(r);
  }

  markdown(): string {
    this.#loadAtEnd = loadavg().map((l) => Math.round(l * 100) / 100);
    const m = this.machine;
    const out: string[] = [
      `# traffic-counter benchmark (${this.#mode})`,
      '',
      `Node ${m.node} · ${m.cpu} · ${m.cores} cores · ${m.memoryGB} GB · ${m.platform} · ${m.date}`,
      `Load average at start ${m.loadAvgAtStart.join(' ')}, at end ${this.#loadAtEnd.join(' ')} (numbers from a loaded machine are noisy).`,
      '',
    ];
    for (const t of this.tables) {
      out.push(`## ${t.title}`, '');
      out.push(`| ${['case', ...t.columns.map(([, h]) => h)].join(' | ')} |`);
      out.push(`|${['---', ...t.columns.map(() => '---:')].join('|')}|`);
      for (const r of t.rows) out.push(`| ${[r.label, ...t.columns.map(([k]) => fmt(r.values[k] ?? null))].join(' | ')} |`);
      out.push('', `Method: ${t.method}`, '');
    }
    if (this.ratios.length > 0) {
      out.push('## Targets (ratios from this run)', '', '| ratio | value | target | met |', '|---|---:|---:|:---:|');
      for (const r of this.ratios) {
        const met = r.met === null ? 'n/a' : r.met ? 'yes' : 'no';
        out.push(`| ${r.name}${r.note ? ` (${r.note})` : ''} | ${fmt(r.value)} | ${r.target} | ${met} |`);
      }
      out.push('');
    }
    return out.join('\n');
  }

  /** Writes the JSON file; returns its path. */
  writeJson(dir: string): string {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${this.machine.date.replace(/[:.]/g, '-')}.json`);
    const doc = { mode: this.#mode, machine: { ...this.machine, loadAvgAtEnd: this.#loadAtEnd }, tables: this.tables, ratios: this.ratios };
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    return file;
  }
}

function fmt(v: Cell): string {
  if (v === null) return '–';
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}
