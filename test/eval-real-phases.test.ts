// `npm run eval:real` counts each clip at 2.5 and 1 fps from every possible first frame, and judges each
// sampling phase only by the crossings that happen between the first and the last frame it uses.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { renderClip } from '../dist/src/source/camera-sim/render-clip.js';
import { evalRealClips, formatPhaseTable } from '../dist/src/eval/eval-real.js';
import { tempDir } from './helpers/temp-dir.js';

it('eval:real reports every sampling phase, each against the crossings inside the time its frames span', async () => {
  const root = tempDir();
  const dir = join(root, 'clip-a');
  mkdirSync(dir);
  // 50 frames at 5 fps: frame k at k / 5 s, the last at 9.8 s.
  await renderClip({ dir, seed: 3, fps: 5, durationSec: 10 });
  const doc = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as { lines: Record<string, { in: number; out: number }> };
  const line = Object.keys(doc.lines)[0]!;
  // Crossings at 0.1 s (before the first frame of every phase but the first), 5 s, and 9.7 s (after the last
  // frame at 1 fps unless it starts at frame 4, whose last frame is at 9.8 s).
  const events = [0.1, 5, 9.7].map((t) => ({ t, line, direction: 'in' }));
  writeFileSync(join(dir, 'truth.json'), JSON.stringify({ lines: { [line]: { in: 3, out: 0 } }, events }));

  const { rows, phases } = await evalRealClips(root);
  expect(rows.map((r) => r.fps)).toContain(1);
  // Crossing by crossing, each row's counts split into pairs and leftovers: every true crossing is paired or
  // missed, every counted one paired or extra.
  for (const r of rows) {
    expect(r.crossings, `${r.fps} fps ${r.lineId} ${r.direction}`).toBeDefined();
    expect(r.crossings!.paired + r.crossings!.missed).toBe(r.truth);
    expect(r.crossings!.paired + r.crossings!.extra).toBe(r.auto);
  }
  expect(phases.map((p) => [p.fps, p.truth])).toEqual([
    // 2.5 fps: first frame 0 → last 48 (9.6 s); first frame 1 → last 49 (9.8 s).
    [2.5, [2, 2]],
    // 1 fps: last frames at 9.0, 9.2, 9.4, 9.6 and 9.8 s.
    [1, [2, 1, 1, 1, 2]],
  ]);
  expect(phases.every((p) => p.auto.length === p.truth.length && p.weighted.length === p.truth.length)).toBe(true);
  expect(formatPhaseTable(phases)).toContain('| clip-a | 1 |');
}, 180_000);
