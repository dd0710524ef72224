// The perspective model learns the typical vehicle's size down the image from blob samples, and the ground
// plane maps the image onto the road from the horizon that model implies.
import { describe, expect, it } from 'vitest';
import { PerspectiveModel } from '../dist/src/analyze/perspective-model.js';
import { GroundPlane } from '../dist/src/analyze/ground-plane.js';

const TOP = 200, BOTTOM = 600;

/** A car's sqrt(area) at row y on a road whose horizon is at row `yh`: proportional to the distance below it. */
const carSize = (y: number, yh: number): number => 0.3 * (y - yh);

/**
 * Adds `n` samples at row y of a vehicle `times` the car's size, with a ±6% spread that repeats. The box is
 * `box` times sqrt(area) wide and high: a car's blob fills most of its box (1.3 × 0.9: 85%).
 */
function addSamples(p: PerspectiveModel, y: number, n: number, times: number, yh: number, box: readonly [number, number] = [1.3, 0.9]): void {
  for (let i = 0; i < n; i++) {
    const s = times * carSize(y, yh) * (1 + 0.06 * Math.sin(i * 2.4 + y));
    p.add(y, s, box[0] * s, box[1] * s);
  }
}

describe('perspective model', () => {
  it('is not ready until its samples give sizes: a track gated by NaN sizes would link anywhere', () => {
    // Twelve samples (the least it uses), two to a band: no band holds the three a fit needs, so no sizes yet.
    // (Ready with NaN sizes, a track's gate was NaN, which no link fails: dense traffic at 1 fps, seed 8.)
    const yh = 100;
    const p = new PerspectiveModel(TOP, BOTTOM);
    for (const y of [225, 275, 325, 375, 425, 475]) addSamples(p, y, 2, 1, yh);
    expect(p.ready).toBe(false);
    expect(p.size(300)).toBeNaN();
    for (const y of [225, 475]) addSamples(p, y, 1, 1, yh);
    expect(p.ready).toBe(true);
    expect(p.size(300)).toBeGreaterThan(0);
  });

  it('learns the car, not the lorries, when lorries fill the near rows and cars the far ones', () => {
    // As at the start of a 1-fps camera: a few lorries near the camera were seen in many frames, the cars
    // mostly far away. Cars are still the commonest vehicle over the whole image.
    const yh = 100;
    const p = new PerspectiveModel(TOP, BOTTOM);
    for (const y of [225, 275, 325, 375]) addSamples(p, y, 12, 1, yh);
    for (const y of [425, 475, 525, 575]) {
      addSamples(p, y, 9, 2.6, yh);
      addSamples(p, y, 4, 1, yh);
    }
    expect(p.ready).toBe(true);
    for (const y of [250, 400, 550]) {
      expect(p.size(y) / carSize(y, yh), `typical size at row ${y}`).toBeGreaterThan(0.85);
      expect(p.size(y) / carSize(y, yh), `typical size at row ${y}`).toBeLessThan(1.15);
    }
    expect(Math.abs(p.horizon() - yh)).toBeLessThan(25);
  });

  it('learns the car, not merged queues, when blobs of several vehicles outnumber the single cars', () => {
    // As at the start of a 1-fps camera on a busy road with lorries: cars queued behind each other and across
    // lanes stay one blob, staggered diagonally, so the blob leaves much of its box empty (1.7 × 1.5: 39%).
    const yh = 100;
    const p = new PerspectiveModel(TOP, BOTTOM);
    for (const y of [225, 275, 325, 375, 425, 475, 525, 575]) {
      addSamples(p, y, 6, 2.4, yh, [1.7, 1.5]);
      addSamples(p, y, 4, 1, yh);
    }
    for (const y of [250, 400, 550]) {
      expect(p.size(y) / carSize(y, yh), `typical size at row ${y}`).toBeGreaterThan(0.85);
      expect(p.size(y) / carSize(y, yh), `typical size at row ${y}`).toBeLessThan(1.15);
    }
  });

  it('learns the car, not its fragments, when a third of the samples are half a car', () => {
    const yh = 60;
    const p = new PerspectiveModel(TOP, BOTTOM);
    for (const y of [225, 275, 325, 375, 425, 475, 525, 575]) {
      addSamples(p, y, 8, 1, yh);
      addSamples(p, y, 4, 0.5, yh);
    }
    for (const y of [250, 550]) expect(p.size(y) / carSize(y, yh), `typical size at row ${y}`).toBeCloseTo(1, 1);
  });

  it('finds no horizon when sizes do not grow down the image (a camera looking straight down)', () => {
    const p = new PerspectiveModel(TOP, BOTTOM);
    for (const y of [225, 275, 325, 375, 425, 475, 525, 575]) for (let i = 0; i < 6; i++) p.add(y, 80 + (i % 3), 100, 70);
    expect(p.size(300)).toBeCloseTo(p.size(500), 0);
    expect(p.horizon()).toBeNaN();
  });
});

describe('ground plane', () => {
  const yref = (TOP + BOTTOM) / 2;

  it('maps rows onto the road with a horizon fitted just above the ROI, held at the nearest row allowed', () => {
    // Widths say the horizon is 5 px above the ROI: too near to trust, but perspective is plainly there.
    const p = new PerspectiveModel(TOP, BOTTOM);
    for (const y of [225, 275, 325, 375, 425, 475, 525, 575]) addSamples(p, y, 6, 1, TOP - 5);
    expect(p.horizon()).toBeGreaterThan(TOP - 0.1 * (yref - TOP));
    const g = new GroundPlane(p, 640, yref, TOP);
    g.refresh();
    expect(g.active).toBe(true);
    // Equal steps on the road shrink towards the horizon: the far step spans fewer rows than the near one.
    const near = g.y(g.gy(550) - 50), far = g.y(g.gy(250) - 50);
    expect(550 - near).toBeGreaterThan(250 - far);
    expect(g.y(g.gy(333))).toBeCloseTo(333, 6);
  });

  it('keeps the image map while sizes do not grow down the image', () => {
    const p = new PerspectiveModel(TOP, BOTTOM);
    for (const y of [225, 275, 325, 375, 425, 475, 525, 575]) for (let i = 0; i < 6; i++) p.add(y, 80, 100, 70);
    const g = new GroundPlane(p, 640, yref, TOP);
    g.refresh();
    expect(g.active).toBe(false);
    expect(g.gy(300)).toBe(300);
  });
});
