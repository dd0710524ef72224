// A track that turns back has switched to another vehicle (where small, far vehicles of both directions meet):
// the vehicle it continues with is still counted on its own line.
import { expect, test } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { H, T0, W, roadFrame, type Box } from './helpers/synthetic-road.js';

// Two carriageways: outbound (moving up) on the left, counted on "out-line"; inbound (moving down) on the
// right, counted on "in-line". Both lines at row 200, each across its own half. Lines are drawn so that
// moving down is "in".
const camera = validateConfig(
  {
    cameras: [
      {
        id: 'test',
        roi: [[0, 0], [W, 0], [W, H], [0, H]],
        lines: [
          { id: 'out-line', from: [0, 200], to: [300, 200] },
          { id: 'in-line', from: [340, 200], to: [W, 200] },
        ],
        analyzer: { bootstrapMinFrames: 5 },
      },
    ],
  },
  { requireUrl: false },
).cameras[0]!;

const car = (x: number, y: number): Box => ({ x, y, w: 40, h: 30 });

/** Counts of one car box at each point of `path`, 1 s apart, after 6 s of empty road. */
function countPath(path: readonly [number, number][]): { lineId: string; in: number; out: number }[] {
  const an = new CameraAnalyzer(camera, 'cameras[0]');
  for (let t = 0; t < 6; t++) an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + t * 1000 });
  path.forEach(([x, y], i) => an.process({ width: W, height: H, data: roadFrame([car(x, y)]), timeMs: T0 + (6 + i) * 1000 }));
  an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + (6 + path.length) * 1000 });
  an.flush();
  return an.counts();
}

test('a track that switches onto an oncoming vehicle far away still counts that vehicle on its line', () => {
  // One box, 1 s apart: up the left side past the out-line, slowing to a stop at the top, where it drifts to
  // the right carriageway, then down past the in-line. Steps are small enough that one track follows it all.
  const path: [number, number][] = [
    [150, 330], [150, 270], [150, 215], [152, 160], [160, 110], [175, 70], [200, 45], [230, 38],
    [265, 36], [300, 38], [335, 45], [370, 62], [400, 90], [420, 130], [430, 175], [435, 225], [440, 285], [440, 340],
  ];
  expect(countPath(path)).toEqual([
    { lineId: 'out-line', in: 0, out: 1 },
    { lineId: 'in-line', in: 1, out: 0 },
  ]);
});

test('a track that turns onto a vehicle crossing at a slant, mostly sideways to where it went, still counts that vehicle', () => {
  // Up the left side just past the out-line, slowing to a stop; then right, across to the other carriageway,
  // and down past the in-line. It never gets two sizes back down the image from its farthest point before
  // the in-line, so only the distance from that point, not the way back along the first motion, shows the turn.
  const path: [number, number][] = [
    [150, 330], [150, 290], [150, 252], [150, 218], [150, 190], [150, 172], [155, 165],
    [170, 166], [195, 168], [225, 171], [260, 175], [300, 180], [340, 186], [375, 194], [405, 204], [430, 216],
    [450, 230], [462, 248], [470, 270], [474, 300], [476, 340],
  ];
  expect(countPath(path)).toEqual([
    { lineId: 'out-line', in: 0, out: 1 },
    { lineId: 'in-line', in: 1, out: 0 },
  ]);
});
