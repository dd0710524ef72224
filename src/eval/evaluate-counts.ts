// Compares automatic counts with hand-counted truth: per line and direction error and % error, and the
// overall weighted absolute % error (Σ|auto − truth| / Σ truth × 100).

import { ConfigError } from '../errors.js';
import { readJsonFile } from '../config/validate-config.js';
import type { Direction } from '../analyze/analyzer-types.js';
import { pairCrossings } from './match-crossings.js';

export interface TruthFile {
  lines: Record<string, { in: number; out: number }>;
}

/** A hand-counted crossing, as truth files list them under `events` (optional). */
export interface TruthEvent {
  /** s from the first frame. */
  t: number;
  line: string;
  direction: Direction;
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
    // Own keys only: a config line named "constructor" or "toString" is not Object.prototype's.
    const t = Object.hasOwn(truth.lines, id) ? truth.lines[id] : undefined;
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

/** One decimal, with a minus sign only where the rounded value is below 0 (-0.04 shows as 0.0%, not -0.0%). */
export function formatPct(p: number | null): string {
  if (p === null) return 'n/a';
  const digits = Math.abs(p).toFixed(1);
  return `${p < 0 && Number(digits) !== 0 ? '-' : ''}${digits}%`;
}

/** A fixed-width text table of the report, with the weighted error as the last line. */
export function formatEvalTable(report: EvalReport): string {
  const lines = textTable(
    ['line', 'dir', 'auto', 'truth', 'error', '% error'],
    report.rows.map((r) => [r.lineId, r.direction, String(r.auto), String(r.truth), (r.error > 0 ? '+' : '') + r.error, formatPct(r.pctError)]),
  );
  lines.push(`weighted absolute error: ${formatPct(report.weightedAbsPctError)} (${report.totalAbsError} of ${report.totalTruth})`);
  return lines.join('\n');
}

export interface CrossingRow {
  lineId: string;
  direction: Direction;
  /** Counted crossings paired with a true one within the window. */
  paired: number;
  /** True crossings no counted one was paired with. */
  missed: number;
  /** Counted crossings no true one was paired with. */
  extra: number;
}

export interface CrossingReport {
  /** How far (s) a counted crossing may be from the true one it is paired with. */
  windowSec: number;
  rows: CrossingRow[];
  /** paired / (paired + extra); null when nothing was counted. */
  precision: number | null;
  /** paired / (paired + missed); null when nothing is true. */
  recall: number | null;
}

/**
 * Crossing by crossing: each counted crossing paired with a true one of its line and direction within `windowSec`
 * (see pairCrossings), so that a missed vehicle and a phantom do not cancel out as they do in the counts. Rows for
 * the lines of `lineIds`, both directions, and any other line either side names.
 */
export function evaluateCrossings(
  truth: readonly TruthEvent[], auto: readonly { lineId: string; direction: Direction; t: number }[], windowSec: number, lineIds: readonly string[],
): CrossingReport {
  const key = (line: string, d: Direction): string => JSON.stringify([line, d]);
  const pairs = pairCrossings(truth.map((e) => ({ key: key(e.line, e.direction), t: e.t })), auto.map((e) => ({ key: key(e.lineId, e.direction), t: e.t })), windowSec);
  const ids = [...lineIds];
  for (const id of [...truth.map((e) => e.line), ...auto.map((e) => e.lineId)]) if (!ids.includes(id)) ids.push(id);
  const rows: CrossingRow[] = [];
  let paired = 0, missed = 0, extra = 0;
  for (const lineId of ids) {
    for (const direction of ['in', 'out'] as const) {
      const p = pairs.get(key(lineId, direction)) ?? { paired: 0, missed: 0, extra: 0 };
      rows.push({ lineId, direction, ...p });
      paired += p.paired; missed += p.missed; extra += p.extra;
    }
  }
  return {
    windowSec,
    rows,
    precision: paired + extra > 0 ? paired / (paired + extra) : null,
    recall: paired + missed > 0 ? paired / (paired + missed) : null,
  };
}

/** A fixed-width text table of the crossing report, with precision and recall as the last line. */
export function formatCrossingTable(report: CrossingReport): string {
  const ratio = (v: number | null): string => (v === null ? 'n/a' : v.toFixed(3));
  return [
    `crossing by crossing (the truth's events; a count pairs with a true crossing of its line and direction within ${report.windowSec.toFixed(1)} s):`,
    ...textTable(['line', 'dir', 'paired', 'missed', 'extra'], report.rows.map((r) => [r.lineId, r.direction, String(r.paired), String(r.missed), String(r.extra)])),
    `precision ${ratio(report.precision)}, recall ${ratio(report.recall)}`,
  ].join('\n');
}

/** Lines of a fixed-width table: the first two columns (line, direction) left-aligned, the numbers right-aligned. */
function textTable(head: readonly string[], body: readonly string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: readonly string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)];
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
  // No prototype: a line "__proto__" is kept as a line (and refused by checkTruthLines, as no config line is named so),
  // not taken as the object's prototype and dropped.
  const out: Record<string, { in: number; out: number }> = Object.create(null) as Record<string, { in: number; out: number }>;
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

/** Reads and validates a truth file; messages begin with `source` (default the path). */
export function loadTruthFile(path: string, source = path): TruthFile {
  return validateTruth(readTruthJson(path, source), source);
}

/**
 * A truth file's parsed JSON, not yet validated (its extra fields, such as `events`, included). Messages begin with
 * `source`, as validateTruth's, checkTruthLines' and truthEvents' do: `--truth FILE` for eval, the path for eval:real.
 */
export function readTruthJson(path: string, source: string): unknown {
  return readJsonFile(path, source);
}

/**
 * The `events` list of a truth file's JSON (each with `t` in s from the first frame, `line` or `lineId`, and
 * `direction`), or undefined when it has none or one without times.
 */
export function truthEvents(truth: TruthFile, raw: unknown, source: string, lineIds: readonly string[], warn: (message: string) => void): TruthEvent[] | undefined {
  const doc = raw as { events?: unknown; startSec?: unknown };
  if (doc.events === undefined || (Array.isArray(doc.events) && doc.events.length === 0)) return undefined;
  if (!Array.isArray(doc.events)) throw new ConfigError(`${source}: events: must be a list of {"t": seconds, "line": id, "direction": "in" or "out"}`);
  // A list of crossings without times cannot be paired with the counted ones: only the totals are scored.
  if (doc.events.every((e) => typeof e === 'object' && e !== null && (e as Record<string, unknown>).t === undefined)) return undefined;
  // The simulator's clips give times on the scene's clock, starting at startSec.
  const t0 = typeof doc.startSec === 'number' ? doc.startSec : 0;
  const out: TruthEvent[] = [];
  for (const [i, e] of (doc.events as unknown[]).entries()) {
    // A crossing that is not an object (null, 5, a list) has no t to miss: it is named as what it is.
    if (typeof e !== 'object' || e === null || Array.isArray(e)) {
      throw new ConfigError(`${source}: events[${i}]: must be a crossing {"t": seconds, "line": id, "direction": "in" or "out"}, got ${JSON.stringify(e) ?? 'nothing'}`);
    }
    const rec = e as Record<string, unknown>;
    const line = rec.line ?? rec.lineId;
    const problem = !Number.isFinite(rec.t)
      ? `t: must be a number of seconds from the first frame, got ${JSON.stringify(rec.t) ?? 'nothing'}`
      : typeof line !== 'string' || !lineIds.includes(line)
        ? `line: must be one of the config's lines ${lineIds.map((id) => JSON.stringify(id)).join(', ')}, got ${JSON.stringify(line) ?? 'nothing'}`
        : rec.direction !== 'in' && rec.direction !== 'out'
          ? `direction: must be "in" or "out", got ${JSON.stringify(rec.direction) ?? 'nothing'}`
          : undefined;
    if (problem !== undefined) throw new ConfigError(`${source}: events[${i}].${problem}`);
    out.push({ t: (rec.t as number) - t0, line: line as string, direction: rec.direction as Direction });
  }
  // The totals and the crossings listed should be the same count: a mismatch is a slip in one of them.
  for (const [id, want] of Object.entries(truth.lines)) {
    for (const dir of ['in', 'out'] as const) {
      const listed = out.filter((e) => e.line === id && e.direction === dir).length;
      if (listed !== want[dir]) warn(`${source}: lines.${id}.${dir} is ${want[dir]}, but events list ${listed} such crossings; the totals are scored as given, the crossings one by one as listed`);
    }
  }
  // A config line the totals lack is scored against 0: the crossings listed for it say otherwise.
  for (const id of lineIds) {
    if (Object.hasOwn(truth.lines, id)) continue;
    const listed = out.filter((e) => e.line === id).length;
    if (listed > 0) warn(`${source}: lines has no ${JSON.stringify(id)}, so its counts are scored against 0, but events list ${listed} crossings of it; add "${id}": {"in": N, "out": N} to lines`);
  }
  return out;
}
