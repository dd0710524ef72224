// Compares automatic counts with hand-counted truth: per line and direction error and % error, and the
// overall weighted absolute % error (Σ|auto − truth| / Σ truth × 100).

import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import type { Direction } from '../analyze/analyzer-types.js';

export interface TruthFile {
  lines: Record<string, { in: number; out: number }>;
}

export interface EvalRow {
  lineId: string;
  direction: Direction;
  auto: number;
  truth: number;
  /** auto − truth. */
  error: number;
  /** error / truth × 100; 0 when both are 0; null when truth is 0 but auto is not (undefined ratio). */
  pctError: number | null;
}

export interface EvalReport {
  rows: EvalRow[];
  /**
   * Σ|error| / Σtruth × 100 over all rows. When Σtruth is 0: 0 if every auto count is 0, otherwise null
   * (any count on an empty scene is an unbounded relative error; look at the rows' `error`).
   */
  weightedAbsPctError: number | null;
  totalAbsError: number;
  totalTruth: number;
}

/**
 * Rows for every line in either input, both directions. A line missing from `auto` counts 0; a line missing
 * from the truth is compared with truth 0 (it shows as an absolute error).
 */
export function evaluateCounts(
  auto: { lines: readonly { id: string; in: number; out: number }[] },
  truth: { lines: Readonly<Record<string, { in: number; out: number }>> },
): EvalReport {
  const ids: string[] = [];
  for (const l of auto.lines) if (!ids.includes(l.id)) ids.push(l.id);
  for (const id of Object.keys(truth.lines)) if (!ids.includes(id)) ids.push(id);
  const rows: EvalRow[] = [];
  let totalAbsError = 0, totalTruth = 0;
  for (const id of ids) {
    const a = auto.lines.find((l) => l.id === id);
    const t = truth.lines[id];
    for (const direction of ['in', 'out'] as const) {
      const av = a ? a[direction] : 0;
      const tv = t ? t[direction] : 0;
      const error = av - tv;
      rows.push({ lineId: id, direction, auto: av, truth: tv, error, pctError: tv > 0 ? (error / tv) * 100 : error === 0 ? 0 : null });
      totalAbsError += Math.abs(error);
      totalTruth += tv;
    }
  }
  const weightedAbsPctError = totalTruth > 0 ? (totalAbsError / totalTruth) * 100 : totalAbsError === 0 ? 0 : null;
  return { rows, weightedAbsPctError, totalAbsError, totalTruth };
}

export function formatPct(p: number | null): string {
  return p === null ? 'n/a' : `${p >= 0 ? '' : '-'}${Math.abs(p).toFixed(1)}%`;
}

/** A fixed-width text table of the report, with the weighted error as the last line. */
export function formatEvalTable(report: EvalReport): string {
  const head = ['line', 'dir', 'auto', 'truth', 'error', '% error'];
  const body = report.rows.map((r) => [r.lineId, r.direction, String(r.auto), String(r.truth), (r.error > 0 ? '+' : '') + r.error, formatPct(r.pctError)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const lines = [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)];
  lines.push(`weighted absolute error: ${formatPct(report.weightedAbsPctError)} (${report.totalAbsError} of ${report.totalTruth})`);
  return lines.join('\n');
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** Validates a parsed truth object `{"lines": {"<id>": {"in": N, "out": N}}}`; extra fields are allowed. */
export function validateTruth(raw: unknown, source: string): TruthFile {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(`${source}: must be a JSON object {"lines": {"<lineId>": {"in": N, "out": N}}}`);
  }
  const lines = (raw as Record<string, unknown>).lines;
  if (typeof lines !== 'object' || lines === null || Array.isArray(lines)) {
    throw new ConfigError(`${source}: lines: must be an object mapping line ids to {"in": N, "out": N}`);
  }
  const out: Record<string, { in: number; out: number }> = {};
  for (const [id, v] of Object.entries(lines as Record<string, unknown>)) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new ConfigError(`${source}: lines.${id}: must be an object {"in": N, "out": N}`);
    }
    const rec = v as Record<string, unknown>;
    for (const dir of ['in', 'out'] as const) {
      if (!isCount(rec[dir])) {
        throw new ConfigError(`${source}: lines.${id}.${dir}: must be a non-negative integer count, got ${JSON.stringify(rec[dir]) ?? 'nothing'}`);
      }
    }
    out[id] = { in: rec.in as number, out: rec.out as number };
  }
  return { lines: out };
}

/**
 * Throws when the truth names a line the camera does not have (a typo, or the truth of another camera): its
 * counts would be scored against zero and every line the camera does have against a missing truth.
 */
export function checkTruthLines(truth: TruthFile, lineIds: readonly string[], truthSource: string, configSource: string): void {
  const unknown = Object.keys(truth.lines).filter((id) => !lineIds.includes(id));
  if (unknown.length === 0) return;
  const names = unknown.map((id) => JSON.stringify(id)).join(', ');
  throw new ConfigError(
    `${truthSource}: ${unknown.length === 1 ? 'line' : 'lines'} ${names} not in ${configSource}, whose lines are ${lineIds.map((id) => JSON.stringify(id)).join(', ')}; use the config's line ids in the truth file, or the config the truth was counted for`,
  );
}

/** Reads and validates a truth file. */
export function loadTruthFile(path: string): TruthFile {
  return validateTruth(readTruthJson(path), path);
}

/** A truth file's parsed JSON, not yet validated (its extra fields, such as `events`, included). */
export function readTruthJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`--truth ${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)}); check the path`, { cause: err });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`--truth ${path}: not valid JSON (${(err as Error).message}); fix the syntax`, { cause: err });
  }
}
