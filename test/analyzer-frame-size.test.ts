// Cameras come in many sizes (640x360, 1280x720, 1920x1080, 4K). A camera that leaves the frame-size options
// unset (downscale, minAreaPx, lineMinMarginPx) gets them fitted to its frames, so the same road seen by a
// smaller or larger camera is counted alike; options a camera sets are kept.
import { describe, expect, it } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { ANALYZER_DEFAULTS, resolveAnalyzerOptions } from '../dist/src/analyze/analyzer-options.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { DURATION_SEC } from '../dist/src/eval/eval-sim.js';
import { countSeeds, expectWithin5Percent } from './helpers/scenario-counts.js';

function camera(analyzer: Record<string, number> = {}) {
  return validateConfig({
    cameras: [{ id: 'cam', roi: [[100, 100], [600, 100], [600, 340], [100, 340]], lines: [{ id: 'l', from: [120, 220], to: [580, 220] }], analyzer }],
  }, { requireUrl: false }).cameras[0]!;
}

/** The options an analyzer settles on after one grey frame of w x h pixels decoded at `scale`. */
function optionsAfterFrame(analyzer: Record<string, number>, w: number, h: number, scale = 1) {
  const a = new CameraAnalyzer(camera(analyzer));
  a.process({ width: w / scale, height: h / scale, scale, data: new Uint8Array((w / scale) * (h / scale) * 4).fill(128), timeMs: 0 });
  return a.options;
}

describe('frame-size options', () => {
  it('follow the frame when unset: the working picture and the vehicle-part and margin sizes keep their share of it', () => {
    const at720 = optionsAfterFrame({}, 1280, 720);
    expect([at720.downscale, at720.minAreaPx, at720.lineMinMarginPx]).toEqual([ANALYZER_DEFAULTS.downscale, ANALYZER_DEFAULTS.minAreaPx, ANALYZER_DEFAULTS.lineMinMarginPx]);
    const at1080 = optionsAfterFrame({}, 1920, 1080);
    expect([at1080.downscale, at1080.minAreaPx, at1080.lineMinMarginPx]).toEqual([6, 180, 6]);
    const at360 = optionsAfterFrame({}, 640, 360);
    expect([at360.downscale, at360.minAreaPx, at360.lineMinMarginPx]).toEqual([2, 20, 2]);
    // A 4:3 camera: by area, not by width alone.
    expect(optionsAfterFrame({}, 640, 480).downscale).toBe(2);
  });

  it('keep what the camera sets, and fit the rest', () => {
    const o = optionsAfterFrame({ downscale: 4 }, 1920, 1080);
    expect([o.downscale, o.minAreaPx, o.lineMinMarginPx]).toEqual([4, 180, 6]);
    const all = optionsAfterFrame({ downscale: 3, minAreaPx: 50, lineMinMarginPx: 1 }, 1920, 1080);
    expect([all.downscale, all.minAreaPx, all.lineMinMarginPx]).toEqual([3, 50, 1]);
  });

  it('fit a downscale the decode scale divides', () => {
    // 1920x1080 decoded at 1/4 (480x270 frames): 6 would split decoded pixels, so the nearest multiple of 4.
    expect(optionsAfterFrame({}, 1920, 1080, 4).downscale).toBe(8);
    expect(optionsAfterFrame({}, 1280, 720, 8).downscale).toBe(8);
    expect(optionsAfterFrame({}, 1280, 720, 2).downscale).toBe(4);
  });

  it('are fitted to the first frame taken in, not to a refused one of another size before it', () => {
    // The ROI reaches (600, 340): a 320x180 frame is refused (the ROI does not fit), then 1280x720 frames come,
    // as from a camera whose first answers were a smaller picture (its low-resolution stream, a start-up image).
    const a = new CameraAnalyzer(camera());
    const grey = (w: number, h: number, t: number) => ({ width: w, height: h, scale: 1, data: new Uint8Array(w * h * 4).fill(128), timeMs: t });
    expect(() => a.process(grey(320, 180, 0))).toThrow(/roi/);
    a.process(grey(1280, 720, 500));
    expect([a.options.downscale, a.options.minAreaPx, a.options.lineMinMarginPx]).toEqual([ANALYZER_DEFAULTS.downscale, ANALYZER_DEFAULTS.minAreaPx, ANALYZER_DEFAULTS.lineMinMarginPx]);
  });

  it('are the 1280x720 ones before any frame, and a bad value is still refused by name', () => {
    expect(new CameraAnalyzer(camera()).options).toEqual(ANALYZER_DEFAULTS);
    expect(() => resolveAnalyzerOptions({ minAreaPx: 0 }, 'cameras[0].analyzer', { width: 1920, height: 1080, scale: 1 }))
      .toThrow(/cameras\[0\]\.analyzer\.minAreaPx: must be a number from 1/);
  });
});

// The simulator's default road, rendered at another size with the same field of view (its ROI and lines scale
// with it): counted within the 5% of issue 4, as at 1280x720. At downscale 4 (the 1280x720 default kept for every
// size), 640x360 counted 133 of 145 inbound at 1 fps and 137 of 145 at 2 fps.
describe('the same road seen by a smaller or larger camera', () => {
  for (const [size, fps] of [['640x360', 1], ['640x360', 2], ['1920x1080', 2]] as const) {
    it(`counts within 5% per direction at ${size}, ${fps} fps`, () => {
      const label = `default scene at ${size}, ${fps} fps`;
      expectWithin5Percent(countSeeds('default', fps, DURATION_SEC.default, undefined, undefined, undefined, size), label);
    }, 180_000);
  }
});
