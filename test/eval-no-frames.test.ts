// `eval` scores only what it counted: a folder none of whose frames could be analysed is refused, not scored.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, test } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

const CONFIG = { cameras: [{ id: 'c', roi: [[0, 0], [64, 0], [64, 48], [0, 48]], lines: [{ id: 'l', from: [0, 24], to: [64, 24] }] }] };

function setUp(files: Record<string, Uint8Array | string>): { dir: string; args: string[] } {
  const dir = tempDir();
  const frames = join(dir, 'frames');
  mkdirSync(frames);
  for (const [name, data] of Object.entries(files)) writeFileSync(join(frames, name), data);
  writeFileSync(join(dir, 'config.json'), JSON.stringify(CONFIG));
  writeFileSync(join(dir, 'truth.json'), JSON.stringify({ lines: { l: { in: 5, out: 0 } } }));
  return { dir, args: ['eval', '--config', join(dir, 'config.json'), '--frames', frames, '--truth', join(dir, 'truth.json')] };
}

test('eval refuses a folder none of whose frames could be analysed, instead of scoring it -100%', async () => {
  // Before: the table, "weighted absolute error: 100.0% (5 of 5)", "0 frames, analysed at 1/4 …" and exit code 0.
  const { dir, args } = setUp({ 'f1.jpg': '<html>login</html>', 'f2.jpg': '<html>login</html>' });
  const r = await runCli(args);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain(`eval: no frame of --frames ${join(dir, 'frames')} could be analysed (0 frames, 2 rejected; see the messages above), so there is nothing to score`);
}, 30_000);

test('eval says how many frames were rejected, as replay does', async () => {
  const good = jpeg.encode({ data: new Uint8Array(64 * 48 * 4).fill(120), width: 64, height: 48 }, 90).data;
  const { args } = setUp({ 'f1.jpg': good, 'f2.jpg': '<html>login</html>', 'f3.jpg': good });
  const r = await runCli(args);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^2 frames, 1 rejected, analysed at /m);
}, 30_000);

test('eval warns of listed crossings timed outside the frames, which can pair with no count', async () => {
  const good = jpeg.encode({ data: new Uint8Array(64 * 48 * 4).fill(120), width: 64, height: 48 }, 90).data;
  const { dir, args } = setUp({ 'f1.jpg': good, 'f2.jpg': good, 'f3.jpg': good });
  // Three frames at 2 fps span 0 to 1 s; an event at frame number 5, or at 1000 (ms), is outside them.
  const truth = { lines: { l: { in: 3, out: 0 } }, events: [{ t: 1, line: 'l', direction: 'in' }, { t: 5, line: 'l', direction: 'in' }, { t: 1000, line: 'l', direction: 'in' }] };
  writeFileSync(join(dir, 'truth.json'), JSON.stringify(truth));
  // Before: no word; every such crossing "missed", recall 0.
  const r = await runCli(args);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`warning: --truth ${join(dir, 'truth.json')}: 2 of the 3 events are timed outside the frames (0 to 1.0 s at --fps 2), the first events[1] at 5 s, and can pair with no count; "t" is seconds from the first frame`);
  writeFileSync(join(dir, 'truth.json'), JSON.stringify({ ...truth, lines: { l: { in: 1, out: 0 } }, events: truth.events.slice(0, 1) }));
  expect((await runCli(args)).stderr).not.toContain('timed outside');
}, 30_000);
