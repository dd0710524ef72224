// resize-clip makes a clip folder look as another camera of the same view would give it (README, "Frame size"):
// frames resized by area average, ROI and lines scaled alike, truth copied.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { resizeRgba } from '../dist/src/eval/resize-clip.js';
import { renderClip } from '../dist/src/source/camera-sim/render-clip.js';
import { runCli } from './helpers/run-cli.js';

describe('resize-clip', () => {
  it('averages the source pixels each output pixel covers, and repeats them when enlarging', () => {
    // 4x2, grey levels 0, 40, 80, 120 / 160, 200, 240, 255.
    const levels = [0, 40, 80, 120, 160, 200, 240, 255];
    const src = new Uint8Array(levels.flatMap((v) => [v, v, v, 255]));
    const half = resizeRgba(src, 4, 2, 0.5);
    expect([half.width, half.height]).toEqual([2, 1]);
    expect([half.data[0], half.data[4]]).toEqual([Math.floor((0 + 40 + 160 + 200) / 4), Math.floor((80 + 120 + 240 + 255) / 4)]);
    const twice = resizeRgba(src, 4, 2, 2);
    expect([twice.width, twice.height]).toEqual([8, 4]);
    expect(Array.from({ length: 8 }, (_, x) => twice.data[(3 * 8 + x) * 4])).toEqual([160, 160, 200, 200, 240, 240, 255, 255]);
  });

  it('writes the resized frames, the scaled ROI and lines, and the truth', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-resize-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames'), { recursive: true });
    const config = { cameras: [{ id: 'c', roi: [[10, 20], [300, 20], [300, 150], [10, 150]], lines: [{ id: 'l', from: [20, 80], to: [290, 81] }] }] };
    writeFileSync(join(src, 'config.json'), JSON.stringify(config));
    writeFileSync(join(src, 'truth.json'), '{"lines":{"l":{"in":3,"out":1}}}');
    for (const name of ['000001.jpg', '000002.jpg']) {
      writeFileSync(join(src, 'frames', name), jpeg.encode({ width: 320, height: 180, data: new Uint8Array(320 * 180 * 4).fill(100) }, 90).data);
    }
    const out = join(dir, 'small');
    execFileSync(process.execPath, ['dist/src/eval/resize-clip.js', src, out, '0.5']);
    expect(readdirSync(join(out, 'frames')).sort()).toEqual(['000001.jpg', '000002.jpg']);
    const frame = jpeg.decode(readFileSync(join(out, 'frames', '000002.jpg')), { useTArray: true });
    expect([frame.width, frame.height]).toEqual([160, 90]);
    const cam = (JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as typeof config).cameras[0]!;
    expect(cam.roi).toEqual([[5, 10], [150, 10], [150, 75], [5, 75]]);
    expect([cam.lines[0]!.from, cam.lines[0]!.to]).toEqual([[10, 40], [145, 41]]);
    expect(JSON.parse(readFileSync(join(out, 'truth.json'), 'utf8'))).toEqual({ lines: { l: { in: 3, out: 1 } } });
  });

  it('takes the frames eval takes: .JPG and .jpeg too, sub-folders left out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-resize-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames', 'f4.jpg'), { recursive: true });
    writeFileSync(join(src, 'config.json'), JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [32, 0], [32, 16], [0, 16]], lines: [{ id: 'l', from: [0, 8], to: [32, 8] }] }] }));
    writeFileSync(join(src, 'truth.json'), '{"lines":{"l":{"in":0,"out":0}}}');
    const names = ['f1.JPG', 'f2.jpeg', 'f10.jpg'];
    for (const name of names) writeFileSync(join(src, 'frames', name), jpeg.encode({ width: 32, height: 16, data: new Uint8Array(32 * 16 * 4).fill(90) }, 90).data);
    const out = join(dir, 'small');
    // Before: only f10.jpg was resized ("1 frames at 0.5x"): the camera's .JPG and .jpeg frames were dropped.
    expect(execFileSync(process.execPath, ['dist/src/eval/resize-clip.js', src, out, '0.5'], { encoding: 'utf8' })).toBe(`${out}: 3 frames at 0.5x\n`);
    expect(readdirSync(join(out, 'frames')).sort()).toEqual([...names].sort());
    for (const name of names) expect(jpeg.decode(readFileSync(join(out, 'frames', name))).width).toBe(16);
    // A clip folder without frames is refused before anything is written (before: "0 frames at 0.5x").
    const empty = join(dir, 'empty');
    mkdirSync(join(empty, 'frames'), { recursive: true });
    expect(() => execFileSync(process.execPath, ['dist/src/eval/resize-clip.js', empty, join(dir, 'out2'), '0.5'], { stdio: 'pipe' })).toThrow(
      `resize-clip: ${join(empty, 'frames')}: no .jpg/.jpeg files in it; a clip folder holds frames/ (its .jpg/.jpeg files), config.json and truth.json`,
    );
    expect(readdirSync(dir).sort()).toEqual(['clip', 'empty', 'small']);
  });

  it('gives a clip that eval counts as a 640x360 camera, at the scale fitted to it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-resize-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const clip = await renderClip({ dir: join(dir, 'clip'), seed: 3, fps: 2, durationSec: 12 });
    const out = join(dir, 'small');
    execFileSync(process.execPath, ['dist/src/eval/resize-clip.js', join(dir, 'clip'), out, '0.5']);
    const args = ['eval', '--config', join(out, 'config.json'), '--frames', join(out, 'frames'), '--truth', join(out, 'truth.json'), '--fps', '2'];
    const json = await runCli([...args, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as { frames: number; scale: unknown };
    expect(report.frames).toBe(clip.frames);
    expect(report.scale).toEqual({ downscale: 2, minAreaPx: 20, lineMinMarginPx: 2 });
    const text = await runCli(args);
    expect(text.stdout).toContain(`${clip.frames} frames, analysed at 1/2 (minAreaPx 20, lineMinMarginPx 2)`);
  }, 60_000);

  it('names a clip\'s missing or broken file and a frame that is not a JPEG, on one line, without a stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-resize-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames'), { recursive: true });
    writeFileSync(join(src, 'frames', 'f1.jpg'), jpeg.encode({ width: 32, height: 16, data: new Uint8Array(32 * 16 * 4).fill(90) }, 90).data);
    const stderrOf = (): string => {
      try {
        execFileSync(process.execPath, ['dist/src/eval/resize-clip.js', src, join(dir, 'out'), '0.5'], { stdio: 'pipe' });
        return 'no error';
      } catch (err) {
        return String((err as { stderr: Buffer }).stderr);
      }
    };
    // Before: "Error: ENOENT: no such file or directory, copyfile '…/truth.json'" (or "SOI not found") and a stack trace.
    expect(stderrOf()).toBe(`resize-clip: ${join(src, 'config.json')}: cannot read the file (ENOENT); a clip folder holds frames/ (its .jpg/.jpeg files), config.json and truth.json\n`);
    writeFileSync(join(src, 'config.json'), JSON.stringify({ cameras: [{ id: 'c', lines: [] }] }));
    expect(stderrOf()).toBe(`resize-clip: ${join(src, 'config.json')}: cameras[0].roi: must be a polygon [[x, y], ...] of at least 3 points, got nothing\n`);
    writeFileSync(join(src, 'config.json'), JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [32, 0], [32, 16], [0, 16]], lines: [{ id: 'l', from: [0, 8], to: [32, 8] }] }] }));
    expect(stderrOf()).toBe(`resize-clip: ${join(src, 'truth.json')}: cannot read the file (ENOENT); a clip folder holds frames/ (its .jpg/.jpeg files), config.json and truth.json\n`);
    expect(readdirSync(dir)).toEqual(['clip']);
    writeFileSync(join(src, 'truth.json'), '{"lines":{"l":{"in":0,"out":0}}}');
    writeFileSync(join(src, 'frames', 'f2.jpg'), 'not a picture');
    expect(stderrOf()).toBe(`resize-clip: ${join(src, 'frames', 'f2.jpg')}: not a JPEG that can be decoded (SOI not found); every .jpg/.jpeg file in a clip's frames must be a JPEG image: replace or remove this one\n`);
    // A frame that cannot be read (a link to nothing): before, "Error: ENOENT … open" and a stack trace.
    rmSync(join(src, 'frames', 'f2.jpg'));
    symlinkSync(join(dir, 'gone.jpg'), join(src, 'frames', 'f2.jpg'));
    expect(stderrOf()).toBe(`resize-clip: ${join(src, 'frames', 'f2.jpg')}: cannot read the file (ENOENT); every .jpg/.jpeg entry in a clip's frames must be a readable JPEG file: replace or remove this one\n`);
    expect(readdirSync(dir)).toEqual(['clip']);
  });

  it('leaves no clip folder when a frame half-way is not a JPEG, and refuses to write into a clip folder that exists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-resize-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const src = join(dir, 'clip');
    mkdirSync(join(src, 'frames'), { recursive: true });
    writeFileSync(join(src, 'config.json'), JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [32, 0], [32, 16], [0, 16]], lines: [{ id: 'l', from: [0, 8], to: [32, 8] }] }] }));
    writeFileSync(join(src, 'truth.json'), '{"lines":{"l":{"in":0,"out":0}}}');
    const good = jpeg.encode({ width: 32, height: 16, data: new Uint8Array(32 * 16 * 4).fill(90) }, 90).data;
    for (const name of ['f1.jpg', 'f2.jpg', 'f4.jpg']) writeFileSync(join(src, 'frames', name), good);
    writeFileSync(join(src, 'frames', 'f3.jpg'), 'not a picture');
    const resize = (out: string): { code: number; stderr: string } => {
      try {
        execFileSync(process.execPath, ['dist/src/eval/resize-clip.js', src, out, '0.5'], { stdio: 'pipe' });
        return { code: 0, stderr: '' };
      } catch (err) {
        return { code: (err as { status: number }).status, stderr: String((err as { stderr: Buffer }).stderr) };
      }
    };
    // Before: out/ held config.json, truth.json and f1, f2: a clip that eval:real counted as whole, two frames short.
    const out = join(dir, 'small');
    // Exit code 1, as `eval` and `replay` for a frame that cannot be decoded (2 is for the command or config to fix).
    expect(resize(out)).toEqual({ code: 1, stderr: expect.stringContaining(`resize-clip: ${join(src, 'frames', 'f3.jpg')}: not a JPEG`) as unknown as string });
    expect(readdirSync(dir)).toEqual(['clip']);
    // Frames of another clip left in the folder would be mixed in: refused before anything is written.
    writeFileSync(join(src, 'frames', 'f3.jpg'), good);
    mkdirSync(join(out, 'frames'), { recursive: true });
    writeFileSync(join(out, 'frames', 'f9.jpg'), good);
    expect(resize(out)).toEqual({ code: 2, stderr: `resize-clip: ${out}: already exists; give a new folder for the clip, or remove this one first\n` });
    expect(readdirSync(join(out, 'frames'))).toEqual(['f9.jpg']);
    expect(readdirSync(dir).sort()).toEqual(['clip', 'small']);
    // An empty folder made for it is taken.
    rmSync(out, { recursive: true });
    mkdirSync(out);
    expect(resize(out)).toEqual({ code: 0, stderr: '' });
    expect(readdirSync(join(out, 'frames')).sort()).toEqual(['f1.jpg', 'f2.jpg', 'f3.jpg', 'f4.jpg']);
    expect(readdirSync(dir).sort()).toEqual(['clip', 'small']);
  });

  it('refuses a bad factor with its usage', () => {
    expect(() => execFileSync(process.execPath, ['dist/src/eval/resize-clip.js', 'a', 'b', '0'], { stdio: 'pipe' })).toThrow(/usage: .*FACTOR/);
  });
});
