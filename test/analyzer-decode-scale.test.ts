// The analyzer given frames decoded at 1/2 or 1/4 (AnalyzerFrame.scale) samples the same ROI as at full size:
// config coordinates stay full-resolution pixels, and detections, tracks and events come out identical.
import { describe, expect, it } from 'vitest';
import { createScene } from '../dist/src/source/camera-sim/index.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { boxAverageRgba } from '../dist/src/decode/decode-scale.js';
import type { CrossingEvent } from '../dist/src/analyze/analyzer-types.js';
import { H, LINE_Y, T0, W, car, roadCamera, roadFrame } from './helpers/synthetic-road.js';

/** Repeats each pixel of a small image s x s times: the full-size frame whose box average is `small`. */
function replicate(small: { width: number; height: number; data: Uint8Array }, s: number): Uint8Array {
  const W = small.width * s;
  const out = new Uint8Array(W * small.height * s * 4);
  for (let y = 0; y < small.height * s; y++) {
    for (let x = 0; x < W; x++) {
      const from = (Math.floor(y / s) * small.width + Math.floor(x / s)) * 4;
      out.set(small.data.subarray(from, from + 4), (y * W + x) * 4);
    }
  }
  return out;
}

describe('analyzer at decode scale', () => {
  // Frames made of constant s x s blocks: the full-size analyzer's sub-sampled box and the decoder's box
  // average are then the same numbers, so any difference would be the scale mapping itself (crop offset,
  // block size, coordinates of detections), which must be exact. The simulator's ROI starts at y = 148, so
  // the crop has an offset.
  it.each([2, 4] as const)('counts a simulated clip with the same events at scale %i as at full size', (s) => {
    const scene = createScene({ seed: 7, scenario: 'default' });
    const camera = validateConfig({ cameras: [scene.cameraConfig()] }, { requireUrl: false }).cameras[0]!;
    const full = new CameraAnalyzer(camera, 'cameras[0]');
    const scaled = new CameraAnalyzer(camera, 'cameras[0]');
    const fullEvents: CrossingEvent[] = [];
    const scaledEvents: CrossingEvent[] = [];
    for (let i = 0; i <= 40; i++) {
      const timeMs = T0 + i * 500; // 2 fps, 20 s
      const small = boxAverageRgba({ width: scene.width, height: scene.height, data: scene.render(i / 2), scale: 1 }, s);
      scaledEvents.push(...scaled.process({ width: small.width, height: small.height, scale: s, data: small.data, timeMs }));
      fullEvents.push(...full.process({ width: scene.width, height: scene.height, data: replicate(small, s), timeMs }));
    }
    expect(fullEvents.length).toBeGreaterThan(3);
    expect(scaledEvents).toEqual(fullEvents);
    expect(scaled.counts()).toEqual(full.counts());
  }, 60_000);

  it('counts the synthetic road at scale 4 like at full size, bbox in full-resolution pixels', () => {
    const box = (y: number) => car(y, 322); // edges off the 4-pixel grid
    const run = (s: 1 | 4) => {
      const an = new CameraAnalyzer(roadCamera(), 'cameras[0]');
      const events: CrossingEvent[] = [];
      const frames = [...Array.from({ length: 9 }, () => roadFrame()), roadFrame([box(LINE_Y - 70)]), roadFrame([box(LINE_Y + 80)]), roadFrame()];
      frames.forEach((data, t) => {
        const img = boxAverageRgba({ width: W, height: H, data, scale: 1 }, s);
        events.push(...an.process({ width: img.width, height: img.height, scale: s, data: img.data, timeMs: T0 + t * 1000 }));
      });
      return events;
    };
    const [one, four] = [run(1), run(4)];
    expect(one.map((e) => [e.lineId, e.direction])).toEqual([['main', 'in']]);
    expect(four.map((e) => [e.lineId, e.direction])).toEqual([['main', 'in']]);
    // The same vehicle, in full-resolution pixels, to within one working pixel (4 px).
    for (let k = 0; k < 4; k++) expect(Math.abs(four[0]!.bbox[k]! - one[0]!.bbox[k]!)).toBeLessThanOrEqual(4);
  });

  it('takes a change of scale mid-stream (re-checks the frame) and keeps counting', () => {
    const an = new CameraAnalyzer(roadCamera(), 'cameras[0]');
    const feed = (data: Uint8Array, t: number, s: 1 | 2 | 4) => {
      const img = boxAverageRgba({ width: W, height: H, data, scale: 1 }, s);
      return an.process({ width: img.width, height: img.height, scale: s, data: img.data, timeMs: T0 + t * 1000 });
    };
    for (let t = 0; t < 9; t++) feed(roadFrame(), t, ([1, 4, 2] as const)[t % 3]!);
    feed(roadFrame([car(LINE_Y - 70)]), 9, 4);
    feed(roadFrame([car(LINE_Y + 80)]), 10, 1);
    expect(an.counts()[0]).toEqual({ lineId: 'main', in: 1, out: 0 });
  });

  it('refuses a frame too small for the ROI at its scale, and a scale that does not divide downscale', () => {
    const an = new CameraAnalyzer(roadCamera(), 'cameras[0]');
    // 640x360 at scale 4 is 160x90; 159 columns cover only 636 full-resolution pixels.
    expect(() => an.process({ width: 159, height: 90, scale: 4, data: new Uint8Array(159 * 90 * 4), timeMs: T0 })).toThrow(
      /cameras\[0\]\.roi\[\d\]: \(640, \d+\) lies past the right edge of the camera's 636x360 frame \(decoded at scale 4 as 159x90\)/,
    );
    expect(() => an.process({ width: 214, height: 120, scale: 3, data: new Uint8Array(214 * 120 * 4), timeMs: T0 })).toThrow(
      /frame decoded at scale 3, which does not divide analyzer\.downscale 4/,
    );
    expect(an.process({ width: 160, height: 90, scale: 4, data: boxAverageRgba({ width: W, height: H, data: roadFrame(), scale: 1 }, 4).data, timeMs: T0 })).toEqual([]);
  });
});
