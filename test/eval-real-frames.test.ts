// eval:real (node dist/src/eval/eval-real.js DIR) takes a clip's frames as replay and eval do.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, it, onTestFinished, vi } from 'vitest';
import { listJpegs } from '../dist/src/eval/eval-in-process.js';
import { evalRealClips } from '../dist/src/eval/eval-real.js';
import { tempDir } from './helpers/temp-dir.js';

/** A folder of one clip, `clip`: a 16x16 camera with line "l", a truth of 0 crossings, and frames/ still empty. */
function tinyClip(): { dir: string; clip: string } {
  const dir = tempDir();
  const clip = join(dir, 'clip');
  mkdirSync(join(clip, 'frames'), { recursive: true });
  const view = { roi: [[0, 0], [16, 0], [16, 16], [0, 16]], lines: [{ id: 'l', from: [0, 8], to: [16, 8] }] };
  writeFileSync(join(clip, 'config.json'), JSON.stringify({ cameras: [{ id: 'c', ...view }] }));
  writeFileSync(join(clip, 'truth.json'), JSON.stringify({ lines: { l: { in: 0, out: 0 } } }));
  return { dir, clip };
}

it('lists frames in natural name order (frame2 before frame10), as replay and eval take them', () => {
  const dir = tempDir();
  for (const n of ['f10.jpg', 'f1.jpg', 'f2.jpg', 'f9.jpg', 'f11.jpg', 'notes.txt']) writeFileSync(join(dir, n), '');
  // Before, the clip was counted in code-unit order, f1, f10, f11, f2, f9: a folder named without zero padding
  // was scrambled in time (41.7% off at 1 fps on the freeway clip, against 0% for the same frames in eval).
  expect(listJpegs(dir)).toEqual(['f1.jpg', 'f2.jpg', 'f9.jpg', 'f10.jpg', 'f11.jpg']);
});

it('refuses a folder it cannot read, or one that holds no clips, saying what to give', async () => {
  const dir = tempDir();
  // Before: a stack trace ("Error: ENOENT: no such file or directory, scandir ..."), and for a folder with no
  // clips, or a clip folder given itself, an empty table and exit code 0.
  await expect(evalRealClips(join(dir, 'missing'))).rejects.toMatchObject({
    code: 'TC_ERR_SOURCE_DIR',
    message: expect.stringMatching(/missing: cannot read the folder \(ENOENT\); give a folder of clip folders/),
  });
  await expect(evalRealClips(dir)).rejects.toThrow(/no clip folders in it .*; give the folder that holds them/);
  mkdirSync(join(dir, 'clip', 'frames'), { recursive: true });
  writeFileSync(join(dir, 'clip', 'config.json'), '{}');
  await expect(evalRealClips(join(dir, 'clip'))).rejects.toThrow(`it is a clip itself: give the folder it is in, ${dir}`);
});

it('names a frame that is not a JPEG, without a stack trace', async () => {
  const { dir, clip } = tinyClip();
  writeFileSync(join(clip, 'frames', 'f1.jpg'), 'not a picture');
  // Before: "eval-real: Error: SOI not found" and jpeg-js's stack, naming no file.
  await expect(evalRealClips(dir)).rejects.toMatchObject({
    code: 'TC_ERR_SOURCE_DIR',
    message: `${join(clip, 'frames', 'f1.jpg')}: not a JPEG that can be decoded (SOI not found); every .jpg/.jpeg file in a clip's frames must be a JPEG image: replace or remove this one`,
  });
});

it('leaves a sub-folder named like a frame out, as replay does, and names a frame it cannot read', async () => {
  const { dir, clip } = tinyClip();
  const frames = join(clip, 'frames');
  const grey = jpeg.encode({ width: 16, height: 16, data: new Uint8Array(16 * 16 * 4).fill(120) }, 90).data;
  for (const n of ['f1.jpg', 'f2.JPG', 'f3.jpeg']) writeFileSync(join(frames, n), grey);
  mkdirSync(join(frames, 'f4.jpg'));
  // Before: "eval-real: Error: EISDIR: illegal operation on a directory, read" and a stack trace.
  expect(listJpegs(frames)).toEqual(['f1.jpg', 'f2.JPG', 'f3.jpeg']);
  const { rows } = await evalRealClips(dir);
  expect(rows).toEqual([]);
  // A dangling link: before, "Error: ENOENT: no such file or directory, open ..." and a stack trace.
  symlinkSync(join(dir, 'gone.jpg'), join(frames, 'f5.jpg'));
  await expect(evalRealClips(dir)).rejects.toMatchObject({
    code: 'TC_ERR_SOURCE_DIR',
    message: `${join(frames, 'f5.jpg')}: cannot read the file (ENOENT); every .jpg/.jpeg entry in a clip's frames must be a readable JPEG file: replace or remove this one`,
  });
});

it('begins every message about a clip\'s truth file with its path, as it has no --truth flag', async () => {
  const { dir, clip } = tinyClip();
  const truth = join(clip, 'truth.json');
  const messageOf = (): Promise<string> => evalRealClips(dir).then(() => 'no error', (err: Error) => err.message);
  // Before: "--truth /…/truth.json: not valid JSON …" here, but "/…/truth.json: lines.l.in: …" below.
  writeFileSync(truth, '{nope');
  expect((await messageOf()).startsWith(`${truth}: not valid JSON (`)).toBe(true);
  writeFileSync(truth, '{"lines": {"l": {"in": -1, "out": 0}}}');
  expect(await messageOf()).toBe(`${truth}: lines.l.in: must be a non-negative integer count, got -1`);
});

it('begins a message about a clip\'s config.json with its path, not a --config flag it does not take', async () => {
  const { dir, clip } = tinyClip();
  const config = join(clip, 'config.json');
  writeFileSync(config, '{');
  // Before: "--config /…/config.json: not valid JSON …", naming a flag eval:real has not.
  await expect(evalRealClips(dir)).rejects.toMatchObject({ code: 'TC_ERR_CONFIG', message: expect.stringMatching(/^\/\S+\/clip\/config\.json: not valid JSON \(/) });
  writeFileSync(config, JSON.stringify({ cameras: [{ id: 'c' }] }));
  await expect(evalRealClips(dir)).rejects.toThrow(`${config}: cameras[0].roi: must be a polygon`);
});

it('exits as the CLI does: 2 for a clip\'s config.json to fix, 1 for a frame that cannot be read', () => {
  const { dir, clip } = tinyClip();
  const evalReal = (): { status: number | null; stderr: string } => {
    const r = spawnSync(process.execPath, ['dist/src/eval/eval-real.js', dir], { encoding: 'utf8' });
    return { status: r.status, stderr: r.stderr };
  };
  writeFileSync(join(clip, 'frames', 'f1.jpg'), 'not a picture');
  expect(evalReal()).toEqual({ status: 1, stderr: expect.stringMatching(/^eval-real: \S+f1\.jpg: not a JPEG/) });
  // Before: 1, where `traffic-counter eval --config` says 2 of the same file (scripts tell "fix the input" by it).
  writeFileSync(join(clip, 'config.json'), '{');
  expect(evalReal()).toEqual({ status: 2, stderr: expect.stringMatching(/^eval-real: \S+config\.json: not valid JSON/) });
});

it('leaves out a link to nothing beside the clip folders, saying so, and goes on with the clips', async () => {
  const { dir, clip } = tinyClip();
  writeFileSync(join(clip, 'frames', 'f1.jpg'), jpeg.encode({ width: 16, height: 16, data: new Uint8Array(16 * 16 * 4).fill(120) }, 90).data);
  symlinkSync(join(dir, 'gone'), join(dir, 'old-clip'));
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
  onTestFinished(() => spy.mockRestore());
  // Before: "eval-real: Error: ENOENT: no such file or directory, stat '…/old-clip'" and a stack trace.
  await expect(evalRealClips(dir)).resolves.toEqual({ rows: [], phases: [] });
  expect(written).toEqual([`warning: ${join(dir, 'old-clip')}: cannot look at it (ENOENT; a link to nothing?); not a clip folder, left out\n`]);
});
