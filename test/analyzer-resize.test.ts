// A camera whose frames change size while it runs (switched to another stream or resolution, by its operator or
// a firmware update) keeps counting: the same view at another size has its ROI and lines scaled to it, and the
// background is learnt again. Before, a 1280x720 camera switched to 1920x1080 silently counted half its traffic
// (its ROI now covered another part of the view), and one switched to 640x360 refused every frame.
import { describe, expect, it } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { createScene } from '../dist/src/source/camera-sim/index.js';

const T0 = Date.UTC(2024, 0, 1);
const FPS = 2;
const SWITCH_SEC = 60;
const DURATION_SEC = 120;

/**
 * Default traffic, config drawn on 1280x720 frames; from SWITCH_SEC the same scene at `size`. Returns what was
 * counted and what crossed, per line/direction, and the analyzer's last change of frame size.
 */
function countAcrossSwitch(seed: number, size: [number, number]) {
  const first = createScene({ seed, scenario: 'default' });
  const second = createScene({ seed, scenario: 'default', width: size[0], height: size[1] });
  const camera = validateConfig({ cameras: [first.cameraConfig()] }, { requireUrl: false }).cameras[0]!;
  const analyzer = new CameraAnalyzer(camera, 'cameras[0]');
  const counted: Record<string, number> = {};
  const keep = (events: { lineId: string; direction: string }[]) => {
    for (const e of events) counted[`${e.lineId}/${e.direction}`] = (counted[`${e.lineId}/${e.direction}`] ?? 0) + 1;
  };
  const buffers = new Map<unknown, Uint8Array>();
  // 3 s past the end, so a crossing in the last interval can be confirmed; crossings up to DURATION_SEC judged.
  for (let i = 0; i <= (DURATION_SEC + 3) * FPS; i++) {
    const t = i / FPS;
    const scene = t < SWITCH_SEC ? first : second;
    let buf = buffers.get(scene);
    if (!buf) buffers.set(scene, (buf = new Uint8Array(scene.width * scene.height * 4)));
    scene.render(t, buf);
    keep(analyzer.process({ width: scene.width, height: scene.height, data: buf, timeMs: T0 + Math.round(t * 1000) }));
  }
  keep(analyzer.flush());
  const truth: Record<string, number> = {};
  for (const e of first.crossings(DURATION_SEC)) truth[`${e.lineId}/${e.direction}`] = (truth[`${e.lineId}/${e.direction}`] ?? 0) + 1;
  return { counted, truth, resize: analyzer.lastResize, totals: analyzer.counts() };
}

describe('a camera whose frames change size', () => {
  for (const size of [[1920, 1080], [640, 360]] as [number, number][]) {
    it(`switched from 1280x720 to ${size.join('x')} (the same view) keeps counting every direction`, { timeout: 60_000 }, () => {
      const { counted, truth, resize, totals } = countAcrossSwitch(7, size);
      // Each direction's count over both minutes within 5% (at least one vehicle) of what crossed: before, the
      // minute after the switch went uncounted.
      expect(Object.keys(truth).sort()).toEqual(['inbound/in', 'outbound/out']);
      for (const [key, n] of Object.entries(truth)) {
        expect(Math.abs((counted[key] ?? 0) - n), `${key}: counted ${counted[key] ?? 0} of ${n}`).toBeLessThanOrEqual(Math.max(1, 0.05 * n));
      }
      // The analyzer's totals run on across the switch (the daemon's health and live counts read them).
      const total = totals.reduce((s, l) => s + l.in + l.out, 0);
      expect(total).toBe(Object.values(counted).reduce((s, n) => s + n, 0));
      expect(resize?.message).toMatch(new RegExp(`from 1280x720 to ${size.join('x')}: the same shape .* scaled by ${size[0] / 1280} `));
      expect(resize?.misfit).toBe(false);
    });
  }

  it('of another shape keeps the ROI and lines as drawn and says to redraw them', () => {
    const camera = validateConfig({
      cameras: [{ id: 'cam', roi: [[0, 0], [640, 0], [640, 360], [0, 360]], lines: [{ id: 'l', from: [0, 180], to: [640, 180] }] }],
    }, { requireUrl: false }).cameras[0]!;
    const analyzer = new CameraAnalyzer(camera, 'cameras[0]');
    const grey = (w: number, h: number) => new Uint8Array(w * h * 4).fill(128);
    analyzer.process({ width: 640, height: 360, data: grey(640, 360), timeMs: T0 });
    expect(analyzer.lastResize).toBeUndefined();
    analyzer.process({ width: 640, height: 480, data: grey(640, 480), timeMs: T0 + 1000 });
    expect(analyzer.lastResize).toMatchObject({ count: 1, misfit: true });
    expect(analyzer.lastResize!.message).toMatch(/from 640x360 to 640x480: another shape .* kept as drawn: redraw them on a frame of this size \(cameras\[0\]\)/);
    // Too small for the ROI as drawn: every frame is refused, naming the ROI and the fix.
    expect(() => analyzer.process({ width: 320, height: 240, data: grey(320, 240), timeMs: T0 + 2000 })).toThrow(/cameras\[0\]\.roi: reaches \(640, 360\).*redraw them/);
    expect(analyzer.lastResize).toMatchObject({ count: 2, misfit: true });
    // Back to the size it was drawn on: as drawn, nothing to redraw.
    analyzer.process({ width: 640, height: 360, data: grey(640, 360), timeMs: T0 + 3000 });
    expect(analyzer.lastResize).toMatchObject({ count: 3, misfit: false });
  });
});
