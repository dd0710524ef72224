// `replay` skips a frame file it cannot read or decode and says which file, and how to fix it: not the camera
// URL advice a live camera's bad frame gets (it used to say "camera replay frame 2: ... check that the camera URL
// serves image/jpeg snapshots"), and an unreadable file was skipped without a word.
import { symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { expect, test } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

test('replay names the frame file that is truncated, not a JPEG or unreadable, and counts on', async () => {
  const dir = tempDir();
  const frames = join(dir, 'frames');
  mkdirSync(frames);
  const good = jpeg.encode({ data: new Uint8Array(64 * 48 * 4).fill(120), width: 64, height: 48 }, 90).data;
  writeFileSync(join(frames, 'f1.jpg'), good);
  writeFileSync(join(frames, 'f2.jpg'), good.subarray(0, 200));
  writeFileSync(join(frames, 'f3.jpg'), '<html>not a picture</html>');
  symlinkSync(join(dir, 'gone.jpg'), join(frames, 'f4.jpg'));
  writeFileSync(join(frames, 'f5.jpg'), good);
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ cameras: [{ id: 'c', roi: [[0, 0], [64, 0], [64, 48], [0, 48]], lines: [{ id: 'l', from: [0, 24], to: [64, 24] }] }] }));

  const r = await runCli(['replay', '--config', config, '--frames', frames]);
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stderr.trim().split('\n').sort();
  expect(lines).toEqual([
    `traffic-counter: ${join(frames, 'f2.jpg')}: truncated JPEG (200 bytes, no end-of-image marker); the file is damaged (an interrupted copy or download?): copy it again or remove it; frame skipped`,
    `traffic-counter: ${join(frames, 'f3.jpg')}: not a JPEG but an HTML page (starts with "<html>not a picture</html>"); every .jpg/.jpeg file in --frames must be a JPEG image: replace or remove this one; frame skipped`,
    `traffic-counter: ${join(frames, 'f4.jpg')}: cannot read the file (ENOENT); check that it is still there and readable; frame skipped`,
  ]);
  expect(r.stdout).toContain('2 frames, 2 rejected, 1 unreadable');
}, 30_000);
