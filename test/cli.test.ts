// The command line as a user meets it: help on every command, clear one-line errors with exit code 2,
// and `replay --json` printing exactly the documented shape on stdout.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { renderClip } from '../dist/src/source/camera-sim/render-clip.js';
import { loadConfigFile } from '../dist/src/config/validate-config.js';
import { countFramesInProcess } from '../dist/src/eval/eval-in-process.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

describe('traffic-counter CLI', () => {
  it.each(['run', 'query', 'replay', 'eval', 'camera-sim', 'decoder', 'zeromq-key'])('%s --help prints usage and exits 0', async (cmd) => {
    const r = await runCli([cmd, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: traffic-counter ${cmd}`);
  });

  it('decoder --connect refuses a port out of range, naming where the right one is told', async () => {
    const r = await runCli(['decoder', '--connect', 'tcp://127.0.0.1:99999']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--connect: must be tcp://HOST:PORT with PORT 1-65535 (the daemon\'s zeromqEndpoint, which its log names), got "tcp://127.0.0.1:99999"');
  });

  it('rejects an unknown command and an unknown flag with exit code 2', async () => {
    const a = await runCli(['count-everything']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('unknown command "count-everything"');
    const b = await runCli(['query', '--bukket', 'minute']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("--bukket");
    expect(b.stderr).toContain("traffic-counter query --help");
  });

  it('names the bad query parameter and the fix', async () => {
    const r = await runCli(['query', '--db', 'nowhere.db', '--bucket', 'week']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--bucket');
    expect(r.stderr).toContain('minute');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('names the config key that is wrong', async () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ cameras: [{ id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [1, 1]], lines: [] }] }));
    const r = await runCli(['run', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cameras[0].roi: polygon needs at least 3 points, got 2');
  });

  it('run refuses a bad analyzer tunable at start-up, by file and key, exits 2 and creates no database', async () => {
    // It printed the error and then hung, its decoder and database open.
    const dir = tempDir();
    const file = join(dir, 'config.json');
    const db = join(dir, 'counts.db');
    writeFileSync(file, JSON.stringify({ db, cameras: [{ id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }], analyzer: { shadowMinRatio: 2 } }] }));
    const r = await runCli(['run', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: cameras[0].analyzer.shadowMinRatio: must be a number from 0.05 to 1`);
    expect(existsSync(db)).toBe(false);
  }, 20_000);

  it('eval names a truth line the config does not have, and the lines it has', async () => {
    const dir = tempDir();
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'northbound', from: [0, 50], to: [100, 50] }] }] }));
    const truth = join(dir, 'truth.json');
    writeFileSync(truth, JSON.stringify({ lines: { nortbound: { in: 3, out: 0 } } }));
    // No frames folder at all: the mismatch is reported before any frame is read.
    const r = await runCli(['eval', '--config', config, '--frames', join(dir, 'no-frames'), '--truth', truth]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line "nortbound" not in --config');
    expect(r.stderr).toContain('whose lines are "northbound"');
    expect(r.stdout).toBe('');
  });

  it('eval begins every message about the truth file alike, "--truth FILE:", as the config\'s begin "--config FILE:"', async () => {
    const dir = tempDir();
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'a', from: [0, 50], to: [100, 50] }] }] }));
    const truth = join(dir, 'truth.json');
    const evalWith = async (content: string) => {
      writeFileSync(truth, content);
      const r = await runCli(['eval', '--config', config, '--frames', join(dir, 'no-frames'), '--truth', truth]);
      expect(r.code).toBe(2);
      return r.stderr;
    };
    expect(await evalWith('{nope')).toContain(`traffic-counter: --truth ${truth}: not valid JSON (`);
    // Before: "traffic-counter: /…/truth.json: lines.a.in: …", without the flag, unlike the message above.
    expect(await evalWith('{"lines": {"a": {"in": -1, "out": 0}}}')).toContain(`traffic-counter: --truth ${truth}: lines.a.in: must be a non-negative integer count, got -1`);
    expect(await evalWith('{"lines": []}')).toContain(`traffic-counter: --truth ${truth}: lines: must be an object`);
  });

  it('names --decode-scale when its value is not one the decoders offer', async () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] }] }));
    const r = await runCli(['replay', '--config', file, '--frames', dir, '--decode-scale', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--decode-scale: must be one of 1, 2, 4, 8');
  });

  it('names the camera\'s roi key when the ROI reaches beyond the frames', async () => {
    const dir = tempDir();
    const clip = await renderClip({ dir, seed: 3, fps: 2, durationSec: 1 });
    const file = join(dir, 'big-roi.json');
    writeFileSync(file, JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [1900, 0], [1900, 1000], [0, 1000]], lines: [{ id: 'l', from: [0, 500], to: [1900, 500] }] }] }));
    const r = await runCli(['replay', '--config', file, '--frames', join(dir, 'frames'), '--fps', '2']);
    expect(r.code).not.toBe(0);
    // With the config file named, as for an error found while loading it.
    expect(r.stderr).toContain(`${file}: cameras[0].roi[1]: (1900, 0) lies past the right edge of the camera's 1280x720 frame`);
    expect(clip.frames).toBeGreaterThan(0);
  }, 60_000);

  it('replay warns where the frames change shape and the ROI is kept as drawn', async () => {
    const dir = tempDir();
    const frames = join(dir, 'frames');
    mkdirSync(frames);
    // Three frames of 640x360, then three of 640x480 (another shape: the ROI, drawn on the first, is kept).
    for (let i = 0; i < 6; i++) {
      const [w, h] = i < 3 ? [640, 360] : [640, 480];
      const data = jpeg.encode({ data: new Uint8Array(w * h * 4).fill(100 + i), width: w, height: h }, 90).data;
      writeFileSync(join(frames, `frame${String(i + 1).padStart(4, '0')}.jpg`), data);
    }
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [640, 0], [640, 360], [0, 360]], lines: [{ id: 'l', from: [0, 180], to: [640, 180] }] }] }));
    const r = await runCli(['replay', '--config', file, '--frames', frames, '--fps', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: frame 4: frames changed size from 640x360 to 640x480: another shape .*redraw them on a frame of this size \(cameras\[0\]\)/);
  }, 60_000);

  it('replay prints each crossing at its seconds from the first frame, not as a date in January 1970', async () => {
    const dir = tempDir();
    await renderClip({ dir, seed: 3, fps: 2, durationSec: 30 });
    const r = await runCli(['replay', '--config', join(dir, 'config.json'), '--frames', join(dir, 'frames'), '--fps', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('1970');
    const crossings = r.stdout.split('\n').filter((l) => / (in|out) {2}\S+$/.test(l));
    expect(crossings.length).toBeGreaterThan(0);
    for (const l of crossings) {
      const m = /^ *(\d+\.\d{3}) s {2}sim {2}(inbound|outbound) {2}(in|out) {2}(car|heavy|two-wheeler|unknown)$/.exec(l);
      expect(m, l).not.toBeNull();
      expect(Number(m![1])).toBeLessThanOrEqual(30);
    }
  }, 60_000);

  it('replay --json prints exactly {frames, cameras:[{id, lines:[{id, in, out}]}]} and counts the clip', async () => {
    const dir = tempDir();
    const clip = await renderClip({ dir, seed: 3, fps: 2, durationSec: 40 });
    const r = await runCli(['replay', '--config', clip.configPath, '--frames', join(dir, 'frames'), '--fps', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { frames: number; cameras: { id: string; lines: { id: string; in: number; out: number }[] }[] };
    expect(Object.keys(out)).toEqual(['frames', 'cameras']);
    expect(out.frames).toBe(clip.frames);
    for (const c of out.cameras) {
      expect(Object.keys(c)).toEqual(['id', 'lines']);
      for (const l of c.lines) expect(Object.keys(l)).toEqual(['id', 'in', 'out']);
    }
    // Going through the decoder processes changes nothing: the same counts as analysing in-process.
    const config = loadConfigFile(clip.configPath, { requireUrl: false });
    const direct = await countFramesInProcess(config.cameras[0], join(dir, 'frames'), { fps: 2, every: 1 });
    expect(out.cameras[0]!.lines).toEqual(direct.lines);
    expect(out.cameras[0]!.lines.some((l) => l.in + l.out > 0)).toBe(true);
  }, 120_000);
});
