// Accuracy report: per line and direction errors, the weighted error and its edge cases, the text table,
// and truth-file validation that names the bad key.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkTruthLines, evaluateCounts, formatEvalTable, formatPct, loadTruthFile, truthEvents } from '../dist/src/eval/evaluate-counts.js';

describe('evaluateCounts', () => {
  it('reports per line and direction, and the weighted absolute % error', () => {
    const r = evaluateCounts(
      { lines: [{ id: 'a', in: 9, out: 12 }, { id: 'b', in: 5, out: 0 }] },
      { lines: { a: { in: 10, out: 10 }, b: { in: 5, out: 0 } } },
    );
    const a = r.rows.filter((x) => x.lineId === 'a');
    expect(a).toEqual([
      { lineId: 'a', direction: 'in', auto: 9, truth: 10, error: -1, pctError: -10 },
      { lineId: 'a', direction: 'out', auto: 12, truth: 10, error: 2, pctError: 20 },
    ]);
    expect(r.rows.find((x) => x.lineId === 'b' && x.direction === 'out')!.pctError).toBe(0);
    expect(r.weightedAbsPctError).toBeCloseTo((3 / 25) * 100, 10);
  });

  it('treats a counted direction with truth 0 as an absolute error with no % (n/a)', () => {
    const r = evaluateCounts({ lines: [{ id: 'a', in: 10, out: 2 }] }, { lines: { a: { in: 10, out: 0 } } });
    expect(r.rows[1]).toMatchObject({ direction: 'out', error: 2, pctError: null });
    expect(r.weightedAbsPctError).toBeCloseTo(20, 10);
  });

  it('an empty scene: 0% when nothing is counted, null when anything is', () => {
    expect(evaluateCounts({ lines: [{ id: 'a', in: 0, out: 0 }] }, { lines: { a: { in: 0, out: 0 } } }).weightedAbsPctError).toBe(0);
    expect(evaluateCounts({ lines: [{ id: 'a', in: 1, out: 0 }] }, { lines: { a: { in: 0, out: 0 } } }).weightedAbsPctError).toBeNull();
  });

  it('lines missing on either side count as 0', () => {
    const r = evaluateCounts({ lines: [{ id: 'x', in: 3, out: 0 }] }, { lines: { y: { in: 4, out: 0 } } });
    expect(r.rows.map((x) => `${x.lineId}:${x.direction}:${x.error}`)).toEqual(['x:in:3', 'x:out:0', 'y:in:-4', 'y:out:0']);
  });

  it('formats a table with every row and the weighted error', () => {
    const text = formatEvalTable(evaluateCounts({ lines: [{ id: 'main', in: 23, out: 1 }] }, { lines: { main: { in: 24, out: 0 } } }));
    expect(text).toMatch(/main\s+in\s+23\s+24\s+-1\s+-4\.2%/);
    expect(text).toMatch(/main\s+out\s+1\s+0\s+\+1\s+n\/a/);
    expect(text).toMatch(/weighted absolute error: 8\.3% \(2 of 24\)/);
  });
});

describe('formatPct', () => {
  it('shows an error that rounds to 0 as 0.0%, without a minus sign', () => {
    // 2000 counted of 2001: -0.05%, before shown as "-0.0%".
    const text = formatEvalTable(evaluateCounts({ lines: [{ id: 'a', in: 2000, out: 0 }] }, { lines: { a: { in: 2001, out: 0 } } }));
    expect(text).toMatch(/a\s+in\s+2000\s+2001\s+-1\s+0\.0%\n/);
    expect([formatPct(-0.04), formatPct(-0), formatPct(-0.06), formatPct(-12.34), formatPct(0.04), formatPct(null)]).toEqual(['0.0%', '0.0%', '-0.1%', '-12.3%', '0.0%', 'n/a']);
  });
});

describe('checkTruthLines', () => {
  it('accepts a truth that scores some or all of the camera\'s lines', () => {
    expect(() => checkTruthLines({ lines: { a: { in: 1, out: 0 } } }, ['a', 'b'], 'truth.json', 'config.json')).not.toThrow();
  });

  it('names every truth line the camera lacks, and the ones it has', () => {
    expect(() => checkTruthLines({ lines: { a: { in: 1, out: 0 }, x: { in: 0, out: 0 }, y: { in: 2, out: 2 } } }, ['a', 'b'], 'truth.json', 'config.json'))
      .toThrow('truth.json: lines "x", "y" not in config.json, whose lines are "a", "b"');
  });
});

describe('truthEvents', () => {
  it('warns when the totals lack a config line that the events list crossings of', () => {
    // Before: no word, and the line's counts were scored against 0 ("0.0%" with 24 crossings listed).
    const raw = { lines: { a: { in: 1, out: 0 } }, events: [{ t: 1, line: 'a', direction: 'in' }, { t: 2, line: 'b', direction: 'out' }, { t: 3, line: 'b', direction: 'in' }] };
    const warnings: string[] = [];
    const events = truthEvents({ lines: { a: { in: 1, out: 0 } } }, raw, 'truth.json', ['a', 'b', 'c'], (m) => warnings.push(m));
    expect(events).toHaveLength(3);
    expect(warnings).toEqual(['truth.json: lines has no "b", so its counts are scored against 0, but events list 2 crossings of it; add "b": {"in": N, "out": N} to lines']);
  });

  it('names a listed crossing that is not an object as what it is', () => {
    const truth = { lines: { a: { in: 1, out: 0 } } };
    const good = { t: 1, line: 'a', direction: 'in' };
    // Before: "events[1].t: must be a number of seconds from the first frame, got nothing" for null, 5 or a list.
    for (const [bad, shown] of [[null, 'null'], [5, '5'], [[1, 'a'], '[1,"a"]']] as const) {
      expect(() => truthEvents(truth, { ...truth, events: [good, bad] }, 'truth.json', ['a'], () => {})).toThrow(
        `truth.json: events[1]: must be a crossing {"t": seconds, "line": id, "direction": "in" or "out"}, got ${shown}`,
      );
    }
  });
});

describe('loadTruthFile', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (content: string) => {
    dir = mkdtempSync(join(tmpdir(), 'tc-truth-'));
    const f = join(dir, 'truth.json');
    writeFileSync(f, content);
    return f;
  };

  it('accepts extra fields', () => {
    const f = write(JSON.stringify({ clip: 'x', lines: { a: { in: 1, out: 2, note: 'ok' } }, events: [] }));
    expect(loadTruthFile(f)).toEqual({ lines: { a: { in: 1, out: 2 } } });
  });

  it('reads a file saved with a byte-order mark, as the config is read', () => {
    // Windows editors write one; before, it was "not valid JSON (Unexpected token '\ufeff', ...)".
    const f = write(`\ufeff${JSON.stringify({ lines: { a: { in: 1, out: 2 } } })}`);
    expect(loadTruthFile(f)).toEqual({ lines: { a: { in: 1, out: 2 } } });
  });

  it('keeps a line named "__proto__", so that it is refused as a line the camera lacks, not dropped', () => {
    const f = write('{"lines": {"a": {"in": 1, "out": 0}, "__proto__": {"in": 5, "out": 5}}}');
    const truth = loadTruthFile(f);
    // Before: {"a"} alone; its 10 true crossings vanished without a word and the score left them out.
    expect(Object.keys(truth.lines)).toEqual(['a', '__proto__']);
    expect(() => checkTruthLines(truth, ['a'], f, 'config.json')).toThrow(`${f}: line "__proto__" not in config.json, whose lines are "a"`);
  });

  it('scores a config line named like an Object method ("constructor") that the truth lacks against 0', () => {
    const truth = loadTruthFile(write(JSON.stringify({ lines: { toString: { in: 1, out: 0 } } })));
    const r = evaluateCounts({ lines: [{ id: 'constructor', in: 1, out: 0 }, { id: 'toString', in: 1, out: 0 }] }, truth);
    // Before: truth undefined and errors NaN for "constructor" (Object.prototype's), weighted "n/a (NaN of NaN)".
    expect(r.rows.filter((x) => x.lineId === 'constructor').map((x) => [x.truth, x.error])).toEqual([[0, 1], [0, 0]]);
    expect([r.totalAbsError, r.totalTruth, r.weightedAbsPctError]).toEqual([1, 1, 100]);
  });

  it('names the bad key', () => {
    expect(() => loadTruthFile(write(JSON.stringify({ lines: { a: { in: -1, out: 0 } } })))).toThrow(/lines\.a\.in: must be a non-negative integer/);
    expect(() => loadTruthFile(write(JSON.stringify({ lines: { a: { in: 1 } } })))).toThrow(/lines\.a\.out/);
    expect(() => loadTruthFile(write(JSON.stringify({ counts: {} })))).toThrow(/lines: must be an object/);
    expect(() => loadTruthFile(write('{nope'))).toThrow(/not valid JSON/);
    expect(() => loadTruthFile(write('{\n "lines": {\n  "a": {"in": 1 "out": 2}\n }\n}'))).toThrow(/not valid JSON \(.* at line 3, column 17\); fix the syntax/);
  });

  it('names a missing file', () => {
    dir = mkdtempSync(join(tmpdir(), 'tc-truth-'));
    expect(() => loadTruthFile(join(dir, 'missing.json'))).toThrow(`${join(dir, 'missing.json')}: cannot read the file (ENOENT); check the path`);
  });
});
