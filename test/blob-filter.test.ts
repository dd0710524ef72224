// Blobs → vehicle detections: the parts of one vehicle are joined, separate vehicles are not, even when the
// learnt typical vehicle is too large; vehicles abreast with no gap between them are cut apart where their
// colours differ, even in a blob too narrow to be cut at a valley.
import { describe, expect, it } from 'vitest';
import { componentsToDetections } from '../dist/src/analyze/blob-filter.js';
import { ComponentLabeler } from '../dist/src/analyze/connected-components.js';
import { allocPlanes } from '../dist/src/analyze/background-model.js';
import { buildRoiGeometry } from '../dist/src/analyze/roi-mask.js';
import { PerspectiveModel } from '../dist/src/analyze/perspective-model.js';
import { ANALYZER_DEFAULTS } from '../dist/src/analyze/analyzer-options.js';

const W = 640, H = 480, SCALE = 4;

type Rgb = [number, number, number];

/**
 * Detections of the given full-resolution rectangles [x, y, w, h] of foreground, each of its colour (grey 90 by
 * default), with a flat perspective model.
 */
function detect(rects: ([number, number, number, number] | [number, number, number, number, Rgb])[], typical: { size: number; width: number; height: number }) {
  const geom = buildRoiGeometry([[0, 0], [W, 0], [W, H], [0, H]], SCALE);
  const n = geom.width * geom.height;
  const fg = new Uint8Array(n);
  const cur = allocPlanes(n);
  cur.r.fill(90); cur.g.fill(90); cur.b.fill(90);
  for (const [x, y, w, h, rgb = [90, 90, 90]] of rects) {
    for (let r = y / SCALE; r < (y + h) / SCALE; r++) {
      for (let c = x / SCALE; c < (x + w) / SCALE; c++) {
        const i = r * geom.width + c;
        fg[i] = 1;
        [cur.r[i], cur.g[i], cur.b[i]] = rgb;
      }
    }
  }
  const labeler = new ComponentLabeler(n);
  const comps = labeler.label(fg, geom.width, geom.height, cur);
  // The same typical vehicle at every row (a camera looking down), learnt from enough samples.
  const persp = new PerspectiveModel(0, H);
  for (let y = 30; y < H; y += 30) for (let i = 0; i < 3; i++) persp.add(y, typical.size, typical.width, typical.height);
  expect(persp.ready).toBe(true);
  return componentsToDetections(comps, labeler.labels, cur, geom, persp, ANALYZER_DEFAULTS);
}

describe('blob filter', () => {
  it('joins a car broken at its windscreen into one detection', () => {
    // Bonnet and roof, 100 px wide, with a 12-px windscreen the colour of the road between them.
    const dets = detect([[200, 200, 100, 32], [200, 244, 100, 28]], { size: 80, width: 100, height: 70 });
    expect(dets).toHaveLength(1);
    expect(dets[0]!.bh).toBe(72);
  });

  it('keeps two cars apart when their joint box fits the typical vehicle of a model that learnt lorries', () => {
    // Two 80x64 cars 80 px apart across and 48 px apart along: their joint box (240x176) fits a 240x200 lorry.
    const dets = detect([[40, 40, 80, 64], [200, 152, 80, 64]], { size: 200, width: 240, height: 200 });
    expect(dets.map((d) => [d.bx, d.by, d.bw, d.bh]).sort((a, b) => a[0]! - b[0]!)).toEqual([[40, 40, 80, 64], [200, 152, 80, 64]]);
    // Two blobs, not the parts of one cut apart: the tracker must not take them for vehicles seen side by side.
    expect(dets.map((d) => d.splitOf)).toEqual([undefined, undefined]);
  });

  // Two 100x80 cars abreast with no gap: their blob's columns are equally full, so there is no valley to cut at.
  const RED: Rgb = [150, 28, 26], WHITE: Rgb = [222, 224, 226], BLUE: Rgb = [34, 52, 104];
  const boxes = (dets: { bx: number; by: number; bw: number; bh: number }[]) => dets.map((d) => [d.bx, d.by, d.bw, d.bh]).sort((a, b) => a[0]! - b[0]!);
  const car = { size: 90, width: 100, height: 80 };

  it('cuts two touching cars abreast apart where their colours differ, and marks the parts as one blob\'s', () => {
    const redWhite = detect([[200, 200, 100, 80, RED], [300, 200, 100, 80, WHITE]], car);
    expect(boxes(redWhite)).toEqual([[200, 200, 100, 80], [300, 200, 100, 80]]);
    // The tracker finds both vehicles in the blob should they merge again (see Tracker.hide).
    expect(redWhite[0]!.splitOf).toBeDefined();
    expect(redWhite[1]!.splitOf).toBe(redWhite[0]!.splitOf);
    expect(boxes(detect([[200, 200, 100, 80, BLUE], [300, 200, 100, 80, WHITE]], car))).toEqual([[200, 200, 100, 80], [300, 200, 100, 80]]);
  });

  it('leaves a blob of one colour whole, however bright or shaded its parts', () => {
    // Two grey cars abreast, and one wide vehicle whose shaded side is darker with the same chromaticity.
    expect(boxes(detect([[200, 200, 100, 80, [120, 120, 124]], [300, 200, 100, 80, WHITE]], car))).toEqual([[200, 200, 200, 80]]);
    expect(boxes(detect([[200, 200, 100, 80, [60, 40, 30]], [300, 200, 100, 80, [180, 120, 90]]], car))).toEqual([[200, 200, 200, 80]]);
  });

  it('cuts by colour a blob too narrow to be cut at a valley: a car half hidden beside a lorry', () => {
    // 160 px wide, 1.6 × the typical car: the car's visible 72 px beside the lorry's 88.
    expect(boxes(detect([[200, 200, 72, 80, RED], [272, 160, 88, 160, WHITE]], car))).toEqual([[200, 200, 72, 80], [272, 160, 88, 160]]);
  });

  it('does not cut a blob of one colour at a valley unless it is wider than splitWidthFactor vehicles', () => {
    // Two grey parts joined by a low bridge: a valley between them, in a blob 1.6 × the typical car wide.
    const parts: [number, number, number, number][] = [[200, 200, 72, 80], [272, 264, 16, 16], [288, 200, 72, 80]];
    expect(boxes(detect(parts, car))).toEqual([[200, 200, 160, 80]]);
    // Two such parts and bridge 188 px wide in all are wider than 1.75 cars, and are cut in the valley.
    const cut = boxes(detect([[200, 200, 88, 80], [288, 264, 12, 16], [300, 200, 88, 80]], car));
    expect(cut).toHaveLength(2);
    expect(cut[0]![0]! + cut[0]![2]!).toBeGreaterThanOrEqual(288);
    expect(cut[1]![0]!).toBeLessThanOrEqual(300);
    expect(cut[1]![0]! + cut[1]![2]!).toBe(388);
  });

  it('does not cut far vehicles of a few working pixels by colour', () => {
    // The typical vehicle 24 px wide: 6 working pixels at 1/4, too few for a colour of its own.
    expect(boxes(detect([[200, 200, 24, 20, RED], [224, 200, 24, 20, WHITE]], { size: 22, width: 24, height: 20 }))).toEqual([[200, 200, 48, 20]]);
  });
});
