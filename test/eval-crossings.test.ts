// `eval` crossing by crossing: where the truth file lists its crossings, each counted crossing is paired with a
// true one in time, so a missed vehicle and a phantom no longer cancel out in a count that looks right.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateCrossings, formatCrossingTable } from '../dist/src/eval/evaluate-counts.js';
import { renderClip } from '../dist/src/source/camera-sim/render-clip.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

describe('evaluateCrossings', () => {
  it('a miss and a phantom that cancel in the count show as one missed and one extra', () => {
    const truth = [{ t: 10, line: 'a', direction: 'in' as const }, { t: 20, line: 'a', direction: 'in' as const }];
    const auto = [{ t: 10.5, lineId: 'a', direction: 'in' as const }, { t: 40, lineId: 'a', direction: 'in' as const }];
    const r = evaluateCrossings(truth, auto, 1.7, ['a']);
    expect(r.rows).toEqual([
      { lineId: 'a', direction: 'in', paired: 1, missed: 1, extra: 1 },
      { lineId: 'a', direction: 'out', paired: 0, missed: 0, extra: 0 },
    ]);
    expect(r.precision).toBe(0.5);
    expect(r.recall).toBe(0.5);
    expect(formatCrossingTable(r)).toContain('precision 0.500, recall 0.500');
  });

  it('pairs only within the window, and only with the same line and direction', () => {
    const truth = [{ t: 10, line: 'a', direction: 'in' as const }];
    expect(evaluateCrossings(truth, [{ t: 11, lineId: 'a', direction: 'in' }], 1.2, ['a']).rows[0]).toMatchObject({ paired: 1, missed: 0, extra: 0 });
    expect(evaluateCrossings(truth, [{ t: 11.5, lineId: 'a', direction: 'in' }], 1.2, ['a']).rows[0]).toMatchObject({ paired: 0, missed: 1, extra: 1 });
    const wrongWay = evaluateCrossings(truth, [{ t: 10, lineId: 'a', direction: 'out' }], 1.2, ['a']);
    expect(wrongWay.rows.map((r) => [r.direction, r.paired, r.missed, r.extra])).toEqual([['in', 0, 1, 0], ['out', 0, 0, 1]]);
    // A line only the counts name still gets its rows.
    const other = evaluateCrossings(truth, [{ t: 10, lineId: 'b', direction: 'in' }], 1.2, ['a']);
    expect(other.rows.find((r) => r.lineId === 'b' && r.direction === 'in')).toMatchObject({ paired: 0, extra: 1 });
  });

  it('precision and recall are n/a when nothing was counted or nothing is true', () => {
    const r = evaluateCrossings([], [], 1, ['a']);
    expect([r.precision, r.recall]).toEqual([null, null]);
    expect(formatCrossingTable(r)).toContain('precision n/a, recall n/a');
  });
});

describe('traffic-counter eval with a truth file that lists its crossings', () => {
  it('reports paired, missed and extra crossings consistent with the counts, and catches counts at the wrong times', async () => {
    const dir = join(tempDir(), 'clip');
    mkdirSync(dir);
    const clip = await renderClip({ dir, seed: 3, fps: 2, durationSec: 40 });
    const args = ['eval', '--config', clip.configPath, '--frames', join(dir, 'frames'), '--fps', '2', '--json'];

    type Report = {
      rows: { lineId: string; direction: string; auto: number; truth: number }[];
      weightedAbsPctError: number;
      crossings: { windowSec: number; rows: { lineId: string; direction: string; paired: number; missed: number; extra: number }[]; precision: number; recall: number };
    };
    const run = async (truthPath: string): Promise<Report> => {
      const r = await runCli([...args, '--truth', truthPath]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Report;
    };

    const doc = JSON.parse(readFileSync(clip.truthPath, 'utf8')) as { events: { t: number; lineId: string; direction: string }[] };
    expect(doc.events.length).toBeGreaterThanOrEqual(10); // traffic enough for the test to mean something
    const report = await run(clip.truthPath);
    expect(report.crossings.windowSec).toBeCloseTo(1.2 / 2 + 0.5, 10);
    for (const c of report.crossings.rows) {
      const counts = report.rows.find((r) => r.lineId === c.lineId && r.direction === c.direction)!;
      const trueEvents = doc.events.filter((e) => e.lineId === c.lineId && e.direction === c.direction).length;
      expect(c.paired + c.missed, `${c.lineId} ${c.direction}`).toBe(trueEvents);
      expect(c.paired + c.extra, `${c.lineId} ${c.direction}`).toBe(counts.auto);
    }
    expect(report.crossings.recall).toBeGreaterThan(0.5);
    expect(report.crossings.precision).toBeGreaterThan(0.5);

    // The same counts, but every true crossing a minute later: the count table cannot tell, the pairing can.
    const shifted = join(dir, 'truth-shifted.json');
    writeFileSync(shifted, JSON.stringify({ ...doc, events: doc.events.map((e) => ({ ...e, t: e.t + 60 })) }));
    const late = await run(shifted);
    expect(late.weightedAbsPctError).toBe(report.weightedAbsPctError);
    expect(late.crossings.rows.every((c) => c.paired === 0)).toBe(true);
    expect([late.crossings.precision, late.crossings.recall]).toEqual([0, 0]);

    // Text output: the count table, then the crossing table.
    const text = await runCli(args.filter((a) => a !== '--json').concat('--truth', clip.truthPath));
    expect(text.stdout).toMatch(/weighted absolute error[\s\S]*crossing by crossing[\s\S]*precision \d\.\d{3}, recall \d\.\d{3}/);
  }, 120_000);

  it('without events in the truth file, reports the counts only', async () => {
    const dir = join(tempDir(), 'clip');
    mkdirSync(dir);
    const clip = await renderClip({ dir, seed: 3, fps: 2, durationSec: 6 });
    const doc = JSON.parse(readFileSync(clip.truthPath, 'utf8')) as { lines: unknown };
    const countsOnly = join(dir, 'counts-only.json');
    writeFileSync(countsOnly, JSON.stringify({ lines: doc.lines }));
    const r = await runCli(['eval', '--config', clip.configPath, '--frames', join(dir, 'frames'), '--fps', '2', '--truth', countsOnly, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).not.toHaveProperty('crossings');
  }, 60_000);

  it('refuses a listed crossing it cannot score, by its place in the list, and says where totals and crossings disagree', async () => {
    const dir = join(tempDir(), 'clip');
    mkdirSync(dir);
    const clip = await renderClip({ dir, seed: 3, fps: 2, durationSec: 6 });
    const doc = JSON.parse(readFileSync(clip.truthPath, 'utf8')) as { lines: Record<string, { in: number; out: number }> };
    const [line] = Object.keys(doc.lines);
    const truth = join(dir, 'truth-edited.json');
    const evalWith = (events: unknown[], lines: unknown = doc.lines) => {
      writeFileSync(truth, JSON.stringify({ lines, events }));
      return runCli(['eval', '--config', clip.configPath, '--frames', join(dir, 'frames'), '--fps', '2', '--truth', truth, '--json']);
    };
    const good = { t: 1, line, direction: 'in' };
    for (const [bad, message] of [
      [{ ...good, line: 'nope' }, `events[1].line: must be one of the config's lines "${line}"`],
      [{ ...good, direction: 'sideways' }, 'events[1].direction: must be "in" or "out", got "sideways"'],
      [{ ...good, t: 'abc' }, 'events[1].t: must be a number of seconds from the first frame, got "abc"'],
    ] as const) {
      const r = await evalWith([good, bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--truth ${truth}: ${message}`);
    }
    // Totals that the list does not add up to: scored as given, with a warning naming both.
    const r = await evalWith([good], { [line!]: { in: 5, out: 0 } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`lines.${line}.in is 5, but events list 1 such crossings`);
  }, 60_000);
});
