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
 * Default traffic, config drawn on 1280x720 frames (saying so in drawnOn when `drawnOn`); frames of the same scene
 * at `before`, from SWITCH_SEC at `after`. Returns what was counted and what crossed, per line/direction, and the
 * analyzer's last change of frame size.
 */
function countAcrossSwitch(seed: number, before: [number, number], after: [number, number], drawnOn = false) {
  const first = createScene({ seed, scenario: 'default', width: before[0], height: before[1] });
  const second = createScene({ seed, scenario: 'default', width: after[0], height: after[1] });
  const { drawnOn: drawn, ...undrawn } = createScene({ seed, scenario: 'default' }).cameraConfig();
  expect(drawn).toEqual([1280, 720]);
  const camera = validateConfig({ cameras: [drawnOn ? { ...undrawn, drawnOn: drawn } : undrawn] }, { requireUrl: false }).cameras[0]!;
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
  return { counted, truth, resize: analyzer.lastResize, totals: analyzer.counts(), stats: analyzer.stats(), fed: (DURATION_SEC + 3) * FPS + 1 };
}

describe('a camera whose frames change size', () => {
  for (const size of [[1920, 1080], [640, 360]] as [number, number][]) {
    it(`switched from 1280x720 to ${size.join('x')} (the same view) keeps counting every direction`, { timeout: 60_000 }, () => {
      const { counted, truth, resize, totals, stats, fed } = countAcrossSwitch(7, [1280, 720], size);
      // Each direction's count over both minutes within 5% (at least one vehicle) of what crossed: before, the
      // minute after the switch went uncounted.
      expect(Object.keys(truth).sort()).toEqual(['inbound/in', 'outbound/out']);
      for (const [key, n] of Object.entries(truth)) {
        expect(Math.abs((counted[key] ?? 0) - n), `${key}: counted ${counted[key] ?? 0} of ${n}`).toBeLessThanOrEqual(Math.max(1, 0.05 * n));
      }
      // The analyzer's totals run on across the switch (the daemon's health and live counts read them).
      const total = totals.reduce((s, l) => s + l.in + l.out, 0);
      expect(total).toBe(Object.values(counted).reduce((s, n) => s + n, 0));
      // So do its frame count and mean time (eval reports them); they restarted at the switch before.
      expect(stats.frames).toBe(fed);
      expect(stats.avgMs).toBeGreaterThan(0);
      expect(resize?.message).toMatch(new RegExp(`from 1280x720 to ${size.join('x')}: the same shape .* scaled by ${size[0] / 1280} `));
      expect(resize?.misfit).toBe(false);
    });
  }

  it('that starts at another size than the drawnOn its config gives counts right before and after it switches to it', { timeout: 60_000 }, () => {
    // Without drawnOn the first frames (1920x1080) would be taken as the size the ROI and lines are drawn in: the
    // ROI would cover another part of the view, and be scaled the wrong way once the camera switched to 1280x720.
    const { counted, truth, resize } = countAcrossSwitch(8, [1920, 1080], [1280, 720], true);
    expect(Object.keys(truth).sort()).toEqual(['inbound/in', 'outbound/out']);
    for (const [key, n] of Object.entries(truth)) {
      expect(Math.abs((counted[key] ?? 0) - n), `${key}: counted ${counted[key] ?? 0} of ${n}`).toBeLessThanOrEqual(Math.max(1, 0.05 * n));
    }
    expect(resize).toMatchObject({ count: 2, misfit: false });
    expect(resize!.message).toMatch(/^frames changed size from 1920x1080 to 1280x720: the size the ROI and lines were drawn on;/);
  });

  it('tells at its first frame that the frames are not the size drawnOn gives', () => {
    const camera = validateConfig({
      cameras: [{ id: 'cam', roi: [[0, 0], [640, 0], [640, 360], [0, 360]], lines: [{ id: 'l', from: [0, 180], to: [640, 180] }], drawnOn: [640, 360] }],
    }, { requireUrl: false }).cameras[0]!;
    const grey = (w: number, h: number) => new Uint8Array(w * h * 4).fill(128);
    const scaled = new CameraAnalyzer(camera, 'cameras[0]');
    scaled.process({ width: 1280, height: 720, data: grey(1280, 720), timeMs: T0 });
    expect(scaled.lastResize).toEqual({
      count: 1,
      misfit: false,
      message: 'frames are 1280x720: the same shape as the 640x360 frames cameras[0].drawnOn says the ROI and lines were drawn on, so they are scaled by 2 to match',
    });
    const misfit = new CameraAnalyzer(camera, 'cameras[0]');
    misfit.process({ width: 640, height: 480, data: grey(640, 480), timeMs: T0 });
    expect(misfit.lastResize).toMatchObject({ count: 1, misfit: true });
    expect(misfit.lastResize!.message).toMatch(/^frames are 640x480: another shape .* kept as drawn: redraw them on a frame of this size and set drawnOn to it \(cameras\[0\]\)$/);
    const asDrawn = new CameraAnalyzer(camera, 'cameras[0]');
    asDrawn.process({ width: 640, height: 360, data: grey(640, 360), timeMs: T0 });
    expect(asDrawn.lastResize).toBeUndefined();
  });

  it('refuses a frame it cannot take and changes nothing: the same counts as without that frame', { timeout: 60_000 }, () => {
    const scene = createScene({ seed: 7, scenario: 'default' });
    const camera = validateConfig({ cameras: [scene.cameraConfig()] }, { requireUrl: false }).cameras[0]!;
    const plain = new CameraAnalyzer(camera, 'cameras[0]');
    const hit = new CameraAnalyzer(camera, 'cameras[0]');
    const buf = new Uint8Array(scene.width * scene.height * 4);
    const events: Record<'plain' | 'hit', string[]> = { plain: [], hit: [] };
    const keep = (k: 'plain' | 'hit', ev: { lineId: string; direction: string; timeMs: number }[]) => events[k].push(...ev.map((e) => `${e.timeMs} ${e.lineId}/${e.direction}`));
    for (let i = 0; i <= 40 * FPS; i++) {
      const timeMs = T0 + Math.round((i / FPS) * 1000);
      scene.render(i / FPS, buf);
      keep('plain', plain.process({ width: scene.width, height: scene.height, data: buf, timeMs }));
      keep('hit', hit.process({ width: scene.width, height: scene.height, data: buf, timeMs }));
      // Mid-traffic, a frame of another shape too small for the ROI as drawn, then one of the same shape (the ROI
      // scaled to it) whose data is cut short.
      if (i === 20 * FPS) {
        expect(() => hit.process({ width: 320, height: 240, data: new Uint8Array(320 * 240 * 4), timeMs: timeMs + 100 })).toThrow(/cameras\[0\]\.roi\[\d\]: \([\d, ]+\) lies past the (right|bottom) edge/);
        expect(() => hit.process({ width: 1920, height: 1080, data: new Uint8Array(1000), timeMs: timeMs + 200 })).toThrow(/frame data has 1000 bytes/);
      }
    }
    keep('plain', plain.flush());
    keep('hit', hit.flush());
    expect(events.plain.length).toBeGreaterThan(20);
    expect(events.hit).toEqual(events.plain);
    expect(hit.lastResize).toBeUndefined();
  });

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
    // Too small for the ROI as drawn: every frame is refused, naming the ROI and the fix, and the analyzer
    // stays as it was (what it holds is not flushed for a frame it cannot take).
    expect(() => analyzer.process({ width: 320, height: 240, data: grey(320, 240), timeMs: T0 + 2000 })).toThrow(/cameras\[0\]\.roi\[\d\]: \(640, \d+\) lies past the right edge of the camera.s 320x240 frame.*redraw the ROI/);
    expect(analyzer.lastResize).toMatchObject({ count: 1, misfit: true });
    // Back to the size it was drawn on: as drawn, nothing to redraw.
    analyzer.process({ width: 640, height: 360, data: grey(640, 360), timeMs: T0 + 3000 });
    expect(analyzer.lastResize).toMatchObject({ count: 2, misfit: false });
    expect(analyzer.lastResize!.message).toMatch(/^frames changed size from 640x480 to 640x360: the size the ROI and lines were drawn on;/);
  });
});
