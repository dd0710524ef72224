// An ROI whose edges cross or touch (points listed out of order) is refused at load, naming the two edges: its
// mask, filled even-odd, would leave out or add parts of the region. The check stays fast for finely traced ROIs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfigFile, validateConfig } from '../dist/src/config/validate-config.js';
import { configErrorOf } from './helpers/config-error.js';
import { tempDir } from './helpers/temp-dir.js';

type Point = [number, number];

// The line runs along the ROI's first edge: on the ROI, as a line must be, whatever its shape.
const config = (roi: Point[]) => ({ cameras: [{ id: 'cam1', roi, lines: [{ id: 'l1', from: roi[0], to: roi[1] }] }] });
const FIX = 'the mask (filled even-odd) would not be the region you outlined: list the points in order around the region, so that edges meet only where one ends and the next begins';

it('refuses a road ROI with two corners swapped, naming the file, the camera, both edges, where they cross and the fix', () => {
  const file = join(tempDir(), 'config.json');
  writeFileSync(file, JSON.stringify(config([[400, 200], [880, 200], [100, 700], [1180, 700]])));
  expect(configErrorOf(() => loadConfigFile(file, { requireUrl: false }))).toBe(
    `--config ${file}: cameras[0].roi: the edges roi[1] [880,200] to roi[2] [100,700] and roi[3] [1180,700] to roi[0] [400,200] cross at [640,353.8]; ${FIX}`,
  );
});

it.each<[string, Point[], string]>([
  // Zero area overall, so it used to be refused as "zero area"; the crossing says more.
  ['a symmetric bow-tie', [[0, 0], [100, 100], [100, 0], [0, 100]], 'the edges roi[0] [0,0] to roi[1] [100,100] and roi[2] [100,0] to roi[3] [0,100] cross at [50,50]'],
  ['a corner on another edge', [[0, 0], [100, 0], [100, 100], [50, 0], [0, 100]], 'the edges roi[0] [0,0] to roi[1] [100,0] and roi[3] [50,0] to roi[4] [0,100] meet at [50,0]'],
  ['a boundary through one point twice', [[0, 0], [50, 50], [100, 0], [100, 100], [50, 50], [0, 100]], 'the edges roi[0] [0,0] to roi[1] [50,50] and roi[4] [50,50] to roi[5] [0,100] meet at [50,50]'],
  ['an edge turning straight back', [[0, 0], [100, 0], [60, 0], [60, 100]], 'the edges roi[0] [0,0] to roi[1] [100,0] and roi[1] [100,0] to roi[2] [60,0] run along each other from [60,0] to [100,0]'],
  ['two edges along each other', [[0, 0], [100, 0], [100, 100], [70, 100], [70, 0], [30, 0], [30, 100], [0, 100]], 'the edges roi[0] [0,0] to roi[1] [100,0] and roi[4] [70,0] to roi[5] [30,0] run along each other from [30,0] to [70,0]'],
])('refuses %s', (_, roi, message) => {
  expect(configErrorOf(() => validateConfig(config(roi), { requireUrl: false }))).toBe(`cameras[0].roi: ${message}; ${FIX}`);
});

it.each<[string, Point[]]>([
  ['a concave polygon', [[100, 100], [600, 100], [600, 500], [350, 200], [100, 500]]],
  ['a ring closed on its first point', [[0, 0], [100, 0], [100, 100], [0, 100], [0, 0]]],
  ['a point repeated', [[0, 0], [100, 0], [100, 0], [100, 100], [0, 100]]],
  ['corners along a straight edge', [[0, 0], [50, 0], [100, 0], [100, 100], [0, 100]]],
  ['a notch reaching almost across', [[0, 0], [100, 0], [100, 100], [51, 100], [51, 1], [49, 1], [49, 100], [0, 100]]],
])('takes %s', (_, roi) => {
  expect(validateConfig(config(roi), { requireUrl: false }).cameras[0]!.roi).toEqual(roi);
});

/** n points around an ellipse, or a star whose points alternate between two radii (long spokes overlapping in x). */
function traced(n: number, shape: 'ellipse' | 'star'): Point[] {
  return Array.from({ length: n }, (_, i) => {
    const a = (i / n) * 2 * Math.PI;
    const [rx, ry] = shape === 'ellipse' ? [500, 300] : i % 2 ? [350, 350] : [60, 60];
    return [640 + rx * Math.cos(a), 360 + ry * Math.sin(a)];
  });
}

// The check is a sweep (O(n log n)); comparing every pair of edges whose x-ranges overlap took 6 s for the
// star, whose long spokes all overlap in x (0.1 s with the sweep, measured by hand: speed is the bench's business,
// not a test's). Both outlines are simple and taken as they are.
it('takes a 50,000-point ellipse and star', () => {
  for (const shape of ['ellipse', 'star'] as const) {
    const roi = traced(50_000, shape);
    expect(validateConfig({ cameras: [{ id: 'cam1', roi, lines: [{ id: 'l1', from: [200, 360], to: [1080, 360] }] }] }, { requireUrl: false }).cameras[0]!.roi, shape).toHaveLength(50_000);
  }
});

it('names the crossing in a 50,000-point ROI with two neighbouring points swapped', () => {
  const roi = traced(50_000, 'ellipse');
  [roi[30_000], roi[30_001]] = [roi[30_001]!, roi[30_000]!];
  expect(configErrorOf(() => validateConfig(config(roi), { requireUrl: false }))).toMatch(
    /^cameras\[0\]\.roi: the edges roi\[29999\] \[[-\d.,]+\] to roi\[30000\] \[[-\d.,]+\] and roi\[30001\] \[[-\d.,]+\] to roi\[30002\] \[[-\d.,]+\] cross at /,
  );
});
