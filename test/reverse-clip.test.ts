// reverse-clip plays a clip folder backwards (README, "Traffic the other way"): the same frames in reverse order,
// the truth's directions swapped and its crossings mirrored in time.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { reverseTruth } from '../dist/src/eval/reverse-clip.js';
import { renderClip } from '../dist/src/source/camera-sim/render-clip.js';
import { runCli } from './helpers/run-cli.js';

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-reverse-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('reverse-clip', () => {
  it('swaps each line\'s directions and mirrors the crossings in time; twice gives the truth back', () => {
    const truth = {
      lines: { a: { in: 2, out: 1 }, b: { in: 0, out: 4 } },
      events: [
        { t: 0.4, line: 'a', direction: 'in' as const, x: 10 },
        { t: 2.6, line: 'a', direction: 'out' as const, frame: 14 },
        { t: 3.8, line: 'a', direction: 'in' as const },
      ],
      rule: 'kept as it is',
    };
    // 25 frames at 5 fps: the last frame is at 4.8 s.
    const rev = reverseTruth(truth, 25, 5);
    expect(rev.lines).toEqual({ a: { in: 1, out: 2 }, b: { in: 4, out: 0 } });
    expect(rev.events).toEqual([
      { t: 1, line: 'a', direction: 'out' },
      { t: 2.2, line: 'a', direction: 'in', frame: 12 },
      { t: 4.4, line: 'a', direction: 'out', x: 10 },
    ]);
    expect(rev.rule).toBe('kept as it is');
    expect(reverseTruth(rev, 25, 5)).toEqual({ ...truth, events: [...truth.events].sort((p, q) => p.t - q.t) });
  });

  it('writes the same frames in reverse order under the same names, the config, and the reversed truth', () => {
    const dir = tempDir();
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames'), { recursive: true });
    const names = ['000001.jpg', '000002.jpg', '000003.jpg'];
    names.forEach((n, i) => writeFileSync(join(src, 'frames', n), `frame ${i}`));
    writeFileSync(join(src, 'config.json'), '{"cameras":[]}');
    writeFileSync(join(src, 'truth.json'), JSON.stringify({ lines: { l: { in: 3, out: 0 } }, events: [{ t: 0.1, line: 'l', direction: 'in' }] }));
    const out = join(dir, 'rev');
    execFileSync(process.execPath, ['dist/src/eval/reverse-clip.js', src, out, '--fps', '2']);
    expect(readdirSync(join(out, 'frames')).sort()).toEqual(names);
    expect(names.map((n) => readFileSync(join(out, 'frames', n), 'utf8'))).toEqual(['frame 2', 'frame 1', 'frame 0']);
    expect(readFileSync(join(out, 'config.json'), 'utf8')).toBe('{"cameras":[]}');
    expect(JSON.parse(readFileSync(join(out, 'truth.json'), 'utf8'))).toEqual({ lines: { l: { in: 0, out: 3 } }, events: [{ t: 0.9, line: 'l', direction: 'out' }] });
  });

  it('reverses frames named without zero padding in the order eval reads them (f2 before f10)', () => {
    const dir = tempDir();
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames'), { recursive: true });
    const names = ['f1.jpg', 'f2.jpg', 'f10.jpg'];
    names.forEach((n, i) => writeFileSync(join(src, 'frames', n), `frame ${i}`));
    writeFileSync(join(src, 'config.json'), '{"cameras":[]}');
    writeFileSync(join(src, 'truth.json'), JSON.stringify({ lines: { l: { in: 0, out: 0 } } }));
    const out = join(dir, 'rev');
    execFileSync(process.execPath, ['dist/src/eval/reverse-clip.js', src, out]);
    // Before: reversed in code-unit order (f1, f10, f2), so f1 held frame 1, f2 frame 0 and f10 frame 2 (its own).
    expect(names.map((n) => readFileSync(join(out, 'frames', n), 'utf8'))).toEqual(['frame 2', 'frame 1', 'frame 0']);
  });

  it('takes .JPG and .jpeg frames, and leaves a sub-folder named like a frame out, as eval does', () => {
    const dir = tempDir();
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames', 'f3.jpg'), { recursive: true });
    const names = ['f1.JPG', 'f2.jpeg', 'f10.jpg'];
    names.forEach((n, i) => writeFileSync(join(src, 'frames', n), `frame ${i}`));
    writeFileSync(join(src, 'config.json'), '{"cameras":[]}');
    writeFileSync(join(src, 'truth.json'), JSON.stringify({ lines: { l: { in: 0, out: 0 } } }));
    const out = join(dir, 'rev');
    // Before: "Error: EISDIR: illegal operation on a directory, copyfile" and a stack trace.
    execFileSync(process.execPath, ['dist/src/eval/reverse-clip.js', src, out], { stdio: 'pipe' });
    expect(readdirSync(join(out, 'frames')).sort()).toEqual([...names].sort());
    expect(names.map((n) => readFileSync(join(out, 'frames', n), 'utf8'))).toEqual(['frame 2', 'frame 1', 'frame 0']);
  });

  it('a simulated road played backwards is counted as the other way round, crossing by crossing', async () => {
    const dir = tempDir();
    await renderClip({ dir: join(dir, 'clip'), seed: 3, fps: 2, durationSec: 40 });
    execFileSync(process.execPath, ['dist/src/eval/reverse-clip.js', join(dir, 'clip'), join(dir, 'rev'), '--fps', '2']);
    const run = async (c: string) => {
      const r = await runCli(['eval', '--config', join(dir, c, 'config.json'), '--frames', join(dir, c, 'frames'), '--truth', join(dir, c, 'truth.json'), '--fps', '2', '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { rows: { lineId: string; direction: string; auto: number; truth: number }[]; crossings: { precision: number; recall: number } };
    };
    const [fwd, rev] = [await run('clip'), await run('rev')];
    const flip = (d: string) => (d === 'in' ? 'out' : 'in');
    // Both ways, every line and direction: the vehicles that truly crossed it, and none else.
    for (const report of [fwd, rev]) {
      expect(report.rows.reduce((a, r) => a + r.truth, 0)).toBeGreaterThan(10);
      for (const r of report.rows) expect(r.auto, `${r.lineId}/${r.direction}`).toBe(r.truth);
    }
    expect(rev.rows.map((r) => [r.lineId, r.direction, r.truth]).sort()).toEqual(fwd.rows.map((r) => [r.lineId, flip(r.direction), r.truth]).sort());
    // ... each paired in time with a true crossing (the mirrored truth's times are right).
    expect([rev.crossings.precision, rev.crossings.recall]).toEqual([1, 1]);
  }, 90_000);

  it('names a missing config or a truth it cannot reverse, before writing anything', () => {
    const dir = tempDir();
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames'), { recursive: true });
    writeFileSync(join(src, 'frames', 'f1.jpg'), 'frame');
    const run = () => execFileSync(process.execPath, ['dist/src/eval/reverse-clip.js', src, join(dir, 'rev')], { stdio: 'pipe' });
    // Before: "Error: ENOENT: no such file or directory, copyfile …" and a stack trace.
    expect(run).toThrow(`reverse-clip: ${join(src, 'config.json')}: cannot read the file (ENOENT); a clip folder holds frames/`);
    writeFileSync(join(src, 'config.json'), '{"cameras":[]}');
    // Before: "TypeError: Cannot convert undefined or null to object" and a stack trace, after the frames folder was made.
    writeFileSync(join(src, 'truth.json'), '{"counts":{}}');
    expect(run).toThrow(`reverse-clip: ${join(src, 'truth.json')}: lines: must be an object mapping line ids to {"in": N, "out": N}`);
    writeFileSync(join(src, 'truth.json'), '{"lines":');
    expect(run).toThrow(`reverse-clip: ${join(src, 'truth.json')}: not valid JSON (`);
    expect(readdirSync(dir)).toEqual(['clip']);
  });

  it('names a frame it cannot read, on one line, and leaves no clip folder half-copied', () => {
    const dir = tempDir();
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames'), { recursive: true });
    writeFileSync(join(src, 'config.json'), '{"cameras":[]}');
    writeFileSync(join(src, 'truth.json'), '{"lines":{"l":{"in":1,"out":0}}}');
    for (const name of ['f1.jpg', 'f3.jpg']) writeFileSync(join(src, 'frames', name), 'frame');
    symlinkSync(join(dir, 'gone.jpg'), join(src, 'frames', 'f2.jpg'));
    const r = spawnSync(process.execPath, ['dist/src/eval/reverse-clip.js', src, join(dir, 'rev')], { encoding: 'utf8' });
    // Before: "Error: ENOENT: no such file or directory, copyfile …" and a stack trace, rev/ left with f1 only.
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 1,
      stderr: `reverse-clip: ${join(src, 'frames', 'f2.jpg')}: cannot read the file (ENOENT); every .jpg/.jpeg entry in a clip's frames must be a readable JPEG file: replace or remove this one\n`,
    });
    expect(readdirSync(dir).sort()).toEqual(['clip']);
  });

  it('refuses a folder without frames, and bad arguments, with its usage', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'frames'));
    expect(() => execFileSync(process.execPath, ['dist/src/eval/reverse-clip.js', dir, join(dir, 'out')], { stdio: 'pipe' })).toThrow(/frames: no \.jpg\/\.jpeg files in it; a clip folder holds frames\//);
    expect(() => execFileSync(process.execPath, ['dist/src/eval/reverse-clip.js', dir], { stdio: 'pipe' })).toThrow(/usage: .*SRC_CLIP DST_CLIP/);
    expect(() => execFileSync(process.execPath, ['dist/src/eval/reverse-clip.js', dir, 'o', '--fps', '0'], { stdio: 'pipe' })).toThrow(/usage:/);
  });
});
