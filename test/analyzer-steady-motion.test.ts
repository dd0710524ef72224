// At 1 fps a vehicle's own step and the step to the one behind it look alike: cars following at about twice their
// step can be linked either way, and the start-up, which learns each place's usual motion from such links, can
// settle on the wrong one (traffic moving away learnt as coming nearer, every crossing then counted the wrong way
// or refused). Cars seen steadily in three frames in a row tell which it is (CameraAnalyzer.relearnFromSteady).
import { describe, expect, it } from 'vitest';
import { CameraAnalyzer } from '../dist/src/analyze/camera-analyzer.js';
import { H, LINE_Y, T0, W, car, roadCamera, roadFrame } from './helpers/synthetic-road.js';

const SPEED = 100; // px/s: a car (48 × 36 px) moves about twice its length between frames
const DURATION_SEC = 40;

/**
 * One lane of identical cars at SPEED, one frame a second, gaps drawn (by `seed`) between 1.3 and 2.6 steps, moving
 * up the image (`up`) or down it; the counts of the line across the lane, and how many cars truly crossed it.
 */
function platoon(seed: number, up: boolean): { right: number; wrong: number; truth: number } {
  let s = seed * 9973 + 7;
  const rnd = (): number => (s = (s * 48271) % 2147483647) / 2147483647;
  // How far (px) each car is along its way at t = 0, from where it would enter the frame; the first is in view.
  const starts: number[] = [];
  for (let d = 100, k = 0; k < 60; k++, d -= SPEED * (1.3 + 1.3 * rnd())) starts.push(d);
  const at = (d: number, t: number): number => (up ? H - (d + SPEED * t) : d + SPEED * t);
  // The start-up is the default one (20 frames at 1 fps), as a 1-fps camera has it.
  const an = new CameraAnalyzer(roadCamera({ bootstrapMinFrames: 20 }), 'cameras[0]');
  for (let t = 0; t <= DURATION_SEC; t++) {
    const ys = starts.map((d) => at(d, t)).filter((y) => y > -20 && y < H + 20);
    an.process({ width: W, height: H, data: roadFrame(ys.map((y) => car(y))), timeMs: T0 + t * 1000 });
  }
  an.flush();
  const [c] = an.counts();
  // The line is halfway down: a car crossed it if it started on one side and ended on the other.
  const truth = starts.filter((d) => (at(d, 0) - LINE_Y) * (at(d, DURATION_SEC) - LINE_Y) < 0).length;
  return up ? { right: c!.out, wrong: c!.in, truth } : { right: c!.in, wrong: c!.out, truth };
}

describe('usual motion at 1 fps, cars following at about twice their step', () => {
  for (const up of [true, false]) {
    it(`counts identical cars ${up ? 'moving up' : 'moving down'} the image the way they go, from every draw of the gaps`, () => {
      const runs = Array.from({ length: 10 }, (_, i) => platoon(i + 1, up));
      const truth = runs.reduce((a, r) => a + r.truth, 0);
      expect(truth).toBeGreaterThan(150);
      // No draw counts its cars the wrong way (without the steady check, 2 of these 10 draws each way did, most of
      // their cars).
      expect(runs.map((r) => r.wrong)).toEqual(runs.map(() => 0));
      const right = runs.reduce((a, r) => a + r.right, 0);
      expect(Math.abs(right - truth)).toBeLessThanOrEqual(0.05 * truth);
    }, 60_000);
  }
});
