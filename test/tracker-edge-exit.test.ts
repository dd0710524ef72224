// A vehicle near the camera can leave the view through the side of the frame while it crosses the line: its
// blob, cut by the edge, has its centroid on the part still in view, which gets past the line by less than the
// margin before it is gone (a lorry at a low camera, 2 fps). Gone from a blob cut by the edge, past the line
// from the side it was seen on, it crossed; one gone before reaching the line did not.
import { expect, it } from 'vitest';
import { LINE_Y, car, shrunk, tracker } from './helpers/tracker-rig.js';
import type { Detection } from '../dist/src/analyze/blob-filter.js';

/** The part of a vehicle at (x, y) still inside a view whose left edge is x = 0: a blob cut by that edge. */
function cutByLeftEdge(x: number, y: number, f: number): Detection {
  const d = shrunk(car(x, y), f);
  return { ...d, bw: d.bx + d.bw, bx: 0 };
}

function crossingsOf(lastY: number): string[] {
  const { T } = tracker();
  const frames: Detection[][] = [
    [car(330, 300)],
    [car(270, 325)],
    [car(210, 350)],
    [car(150, 373)],
    // Cut by the edge, the blob's centroid moves along the edge more than down the road: a half step on at its
    // latest speed, as for a vehicle missed elsewhere, stays inside the margin, and it is then predicted out of
    // the view, where its track ends.
    [cutByLeftEdge(70, 395, 0.7)],
    [cutByLeftEdge(20, lastY, 0.5)],
    [],
    [],
  ];
  return frames.flatMap((dets, k) => T.step(dets, 10_000 + k * 500, 500)).map((c) => c.direction);
}

it('a vehicle leaving through the side of the view just past the line is counted once', () => {
  const lastY = LINE_Y + 3;
  // Inside the margin (0.2 × the blob's size), so the line's hysteresis alone does not count it.
  expect(lastY - LINE_Y).toBeLessThan(0.2 * cutByLeftEdge(20, lastY, 0.5).size);
  expect(crossingsOf(lastY)).toEqual(['in']);
});

it('a vehicle leaving through the side of the view before the line is not counted', () => {
  expect(crossingsOf(LINE_Y - 3)).toEqual([]);
});
