// eval:real (node dist/src/eval/eval-real.js DIR) takes a clip's frames as replay and eval do.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { listJpegs } from '../dist/src/eval/eval-in-process.js';
import { tempDir } from './helpers/temp-dir.js';

it('lists frames in natural name order (frame2 before frame10), as replay and eval take them', () => {
  const dir = tempDir();
  for (const n of ['f10.jpg', 'f1.jpg', 'f2.jpg', 'f9.jpg', 'f11.jpg', 'notes.txt']) writeFileSync(join(dir, n), '');
  // Before, the clip was counted in code-unit order, f1, f10, f11, f2, f9: a folder named without zero padding
  // was scrambled in time (41.7% off at 1 fps on the freeway clip, against 0% for the same frames in eval).
  expect(listJpegs(dir)).toEqual(['f1.jpg', 'f2.jpg', 'f9.jpg', 'f10.jpg', 'f11.jpg']);
});
