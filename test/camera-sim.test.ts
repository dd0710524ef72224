// The camera simulator's scene: deterministic frames and truth, truth consistent with the vehicles'
// motion and the project's direction rule, a valid camera config, and a clip writer.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { createScene, renderClip, SCENARIOS } from '../dist/src/source/camera-sim/index.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { tempDir } from './helpers/temp-dir.js';

const sha1 = (b: Uint8Array): string => createHash('sha1').update(b).digest('hex');
// Small frames keep the test quick; geometry and traffic scale with the frame.
const SMALL = { width: 320, height: 180 } as const;

describe('camera-sim scene', () => {
  it('renders identical frames and truth for the same seed, and different ones for another seed', () => {
    const a = createScene({ seed: 11, ...SMALL });
    const b = createScene({ seed: 11, ...SMALL });
    const c = createScene({ seed: 12, ...SMALL });
    // Render b out of order: the frame at t must not depend on what was rendered before.
    b.render(40);
    expect(sha1(a.render(25.3))).toBe(sha1(b.render(25.3)));
    expect(a.crossings(120)).toEqual(b.crossings(120));
    expect(sha1(a.render(25.3))).not.toBe(sha1(c.render(25.3)));
    expect(a.crossings(120)).not.toEqual(c.crossings(120));
    // Even after the scene has run far ahead (past its retained history), an early instant is the same.
    const d = createScene({ seed: 11, ...SMALL });
    d.render(700);
    expect(sha1(d.render(25.3))).toBe(sha1(a.render(25.3)));
    // Time moves the scene: two instants differ.
    expect(sha1(a.render(25.3))).not.toBe(sha1(a.render(25.8)));
  });

  it('reports crossings that only grow with `until`, inside the requested window, one per vehicle and line', () => {
    const scene = createScene({ seed: 3, ...SMALL });
    const all = scene.crossings(180);
    expect(all.length).toBeGreaterThan(20);
    for (const until of [30, 60, 90, 120, 180]) {
      const upTo = scene.crossings(until);
      expect(upTo).toEqual(all.filter((e) => e.t <= until));
      const counts = scene.truthCounts(until);
      const total = Object.values(counts.lines).reduce((s, l) => s + l.in + l.out, 0);
      expect(total).toBe(upTo.length);
    }
    const window = scene.crossings(90, 60);
    expect(window.every((e) => e.t > 60 && e.t <= 90)).toBe(true);
    expect(window).toEqual(all.filter((e) => e.t > 60 && e.t <= 90));
    const keys = all.map((e) => `${e.vehicleId}/${e.lineId}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('labels a crossing "in" when the vehicle moves down the image through a left-to-right line, "out" when up', () => {
    const scene = createScene({ seed: 5, ...SMALL });
    const lines = new Map(scene.cameraConfig().lines.map((l) => [l.id, l]));
    const events = scene.crossings(120);
    expect(new Set(events.map((e) => e.direction))).toEqual(new Set(['in', 'out']));
    for (const e of events.slice(0, 40)) {
      const line = lines.get(e.lineId)!;
      const before = scene.vehicles(e.t - 0.2).find((v) => v.vehicleId === e.vehicleId);
      const after = scene.vehicles(e.t + 0.2).find((v) => v.vehicleId === e.vehicleId);
      expect(before && after, `vehicle ${e.vehicleId} visible around its crossing`).toBeTruthy();
      const cy = (v: typeof before) => v!.bbox[1] + v!.bbox[3] / 2;
      const cx = (v: typeof before) => v!.bbox[0] + v!.bbox[2] / 2;
      const motion = [cx(after) - cx(before), cy(after) - cy(before)];
      const dir = [line.to[0] - line.from[0], line.to[1] - line.from[1]];
      const cross = dir[0]! * motion[1]! - dir[1]! * motion[0]!;
      expect(cross > 0 ? 'in' : 'out').toBe(e.direction);
      // The body's bounding-box centre is on opposite sides of the line's row before and after.
      expect(Math.sign(cy(before) - line.from[1])).toBe(-Math.sign(cy(after) - line.from[1]));
      expect(e.x).toBeGreaterThanOrEqual(Math.min(line.from[0], line.to[0]));
      expect(e.x).toBeLessThanOrEqual(Math.max(line.from[0], line.to[0]));
    }
  });

  it('gives a counter a quiet start: no crossing in the first 3 s of any scenario', () => {
    for (const scenario of SCENARIOS) {
      for (const seed of [1, 2, 3]) {
        expect(createScene({ seed, scenario, ...SMALL }).crossings(3), `${scenario} seed ${seed}`).toEqual([]);
      }
    }
  });

  it('has no crossings in the empty scenario although the lighting changes', () => {
    const scene = createScene({ seed: 9, scenario: 'empty', ...SMALL });
    expect(scene.crossings(900)).toEqual([]);
    expect(scene.truthCounts(900)).toEqual({ lines: { inbound: { in: 0, out: 0 }, outbound: { in: 0, out: 0 } } });
    const mean = (t: number): number => {
      const f = scene.render(t);
      let s = 0;
      for (let i = 0; i < f.length; i += 4) s += f[i + 1]!;
      return s / (f.length / 4);
    };
    // Brightness steps of 30-40% happen a few times per minute: over a minute the mean level must move a lot.
    const levels = Array.from({ length: 13 }, (_, k) => mean(k * 5));
    expect(Math.max(...levels) / Math.min(...levels)).toBeGreaterThan(1.25);
  });

  it('every scenario has traffic except empty, and dense has more than light', () => {
    const counts = Object.fromEntries(SCENARIOS.map((s) => [s, createScene({ seed: 4, scenario: s, ...SMALL }).crossings(300).length]));
    for (const s of SCENARIOS) if (s !== 'empty') expect(counts[s], s).toBeGreaterThan(5);
    expect(counts.dense).toBeGreaterThan(counts.light * 2);
  });

  it('provides a camera config the config validator accepts, with both lines inside the ROI', () => {
    const scene = createScene({ seed: 1 });
    const cam = scene.cameraConfig();
    const config = validateConfig({ cameras: [cam] }, { requireUrl: false });
    expect(config.cameras[0]!.lines.map((l) => l.id)).toEqual(['inbound', 'outbound']);
    const inside = (x: number, y: number): boolean => {
      let c = false;
      const r = cam.roi;
      for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
        const [xi, yi] = r[i]!, [xj, yj] = r[j]!;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
      }
      return c;
    };
    for (const l of cam.lines) {
      const mid: [number, number] = [(l.from[0] + l.to[0]) / 2, (l.from[1] + l.to[1]) / 2];
      expect(inside(mid[0], mid[1]), `${l.id} midpoint in ROI`).toBe(true);
      expect(l.from[0]).toBeLessThan(l.to[0]); // drawn left to right
    }
  });

  it('encodes decodable 1280x720 JPEGs with quality 70-85 by default, or the fixed quality asked for', () => {
    const scene = createScene({ seed: 2 });
    const qualities = new Set<number>();
    for (const t of [4, 4.5]) {
      const { jpeg: bytes, quality } = scene.encodeJpeg(t);
      const img = jpeg.decode(bytes, { useTArray: true });
      expect([img.width, img.height]).toEqual([1280, 720]);
      expect(quality).toBeGreaterThanOrEqual(70);
      expect(quality).toBeLessThanOrEqual(85);
      qualities.add(quality);
    }
    for (let t = 0; t < 10; t += 0.5) qualities.add(scene.jpegQualityAt(t));
    expect(qualities.size).toBeGreaterThan(1);
    const fixed = createScene({ seed: 2, jpegQuality: 60, ...SMALL });
    expect(fixed.encodeJpeg(4).quality).toBe(60);
  });

  it('tells how much of each vehicle is in view: a lorry in the near lane hides the car beside it', () => {
    const s = createScene({ seed: 8, scenario: 'occlusion' });
    const overlap = (a: readonly number[], b: readonly number[]): number =>
      Math.max(0, Math.min(a[0]! + a[2]!, b[0]! + b[2]!) - Math.max(a[0]!, b[0]!)) * Math.max(0, Math.min(a[1]! + a[3]!, b[1]! + b[3]!) - Math.max(a[1]!, b[1]!));
    let alone = 0, hiddenCars = 0;
    for (let t = 30; t <= 60; t++) {
      const shares = s.visibleShares(t);
      const vs = s.vehicles(t);
      for (const [, share] of shares) {
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(1);
      }
      for (const v of vs) {
        const others = vs.filter((o) => o !== v && overlap(v.bbox, o.bbox) > 0);
        // Nothing in front of it: all of it shows.
        if (others.length === 0 && shares.has(v.vehicleId)) { expect(shares.get(v.vehicleId)).toBeGreaterThan(0.99); alone++; }
        // A car mostly inside a lorry's box, where the lorry shows whole: the lorry is in front of it.
        const lorry = others.find((o) => o.type === 'heavy' && overlap(v.bbox, o.bbox) >= 0.5 * v.bbox[2] * v.bbox[3] && shares.get(o.vehicleId)! > 0.9);
        if (v.type === 'car' && lorry && shares.get(v.vehicleId)! < 0.5) hiddenCars++;
      }
    }
    expect(alone).toBeGreaterThan(20);
    expect(hiddenCars).toBeGreaterThan(0);
    // Counting only pixels of a region: none in an empty one.
    const none = s.visibleShares(44, new Uint8Array(s.width * s.height));
    expect(none.size).toBeGreaterThan(0);
    for (const [, share] of none) expect(share).toBe(0);
    expect(() => s.visibleShares(44, new Uint8Array(10))).toThrow(/visibleShares\(t, region\): region must hold 921600 bytes \(1280x720\), got 10/);
  });

  it('rejects bad options with a message naming the option', () => {
    expect(() => createScene({ seed: 1, scenario: 'rush-hour' as never })).toThrow(/scenario: unknown "rush-hour"; use one of default/);
    expect(() => createScene({ seed: -1 })).toThrow(/seed: must be an integer/);
    expect(() => createScene({ seed: 1, ...SMALL }).render(-1)).toThrow(/render\(t\): must be a time in seconds >= 0/);
    expect(() => createScene({ seed: 1, pose: { height: 1 } })).toThrow(/pose\.height: must be a number from 3 to 40, got 1/);
    expect(() => createScene({ seed: 1, pose: { tilt: 0.2 } as never })).toThrow(/pose\.tilt: unknown; use x, height, yaw, pitch, focalPerWidth/);
    expect(() => createScene({ seed: 1, pose: JSON.parse('{"constructor": 1}') })).toThrow(/pose\.constructor: unknown/);
  });
});

describe('renderClip', () => {
  it('writes numbered frames, a valid config and the truth for the frames\' time window', async () => {
    const dir = tempDir('tc-camsim-clip-');
    const clip = await renderClip({ dir, seed: 1, fps: 2, durationSec: 3, startSec: 5, jpegQuality: 75 });
    expect(clip.frames).toBe(6);
    const files = readdirSync(join(dir, 'frames')).sort();
    expect(files).toEqual(['000001.jpg', '000002.jpg', '000003.jpg', '000004.jpg', '000005.jpg', '000006.jpg']);
    const scene = createScene({ seed: 1, jpegQuality: 75 });
    // Frame k shows sim time startSec + (k - 1) / fps.
    expect(sha1(readFileSync(join(dir, 'frames', '000003.jpg')))).toBe(sha1(scene.encodeJpeg(6).jpeg));
    validateConfig(JSON.parse(readFileSync(clip.configPath, 'utf8')), { requireUrl: false });
    const truth = JSON.parse(readFileSync(clip.truthPath, 'utf8')) as { lines: unknown; events: { t: number }[] };
    // Crossings between the first frame (5 s) and the last (7.5 s).
    expect(truth.lines).toEqual(scene.truthCounts(7.5, 5).lines);
    expect(clip.truth.lines).toEqual(truth.lines);
    expect(truth.events.map((e) => e.t)).toEqual(scene.crossings(7.5, 5).map((e) => e.t));
  });
});
