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

test('a track that switches onto an oncoming vehicle far away still counts that vehicle on its line', () => {
  const an = new CameraAnalyzer(camera, 'cameras[0]');
  for (let t = 0; t < 6; t++) an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + t * 1000 });
  // One box, 1 s apart: up the left side past the out-line, slowing to a stop at the top, where it drifts to
  // the right carriageway, then down past the in-line. Steps are small enough that one track follows it all.
  const path: [number, number][] = [
    [150, 330], [150, 270], [150, 215], [152, 160], [160, 110], [175, 70], [200, 45], [230, 38],
    [265, 36], [300, 38], [335, 45], [370, 62], [400, 90], [420, 130], [430, 175], [435, 225], [440, 285], [440, 340],
  ];
  path.forEach(([x, y], i) => an.process({ width: W, height: H, data: roadFrame([car(x, y)]), timeMs: T0 + (6 + i) * 1000 }));
  an.process({ width: W, height: H, data: roadFrame(), timeMs: T0 + (6 + path.length) * 1000 });
  an.flush();
  expect(an.counts()).toEqual([
    { lineId: 'out-line', in: 0, out: 1 },
    { lineId: 'in-line', in: 1, out: 0 },
  ]);
});
