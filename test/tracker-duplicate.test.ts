// Two crossings at the same place of a line within the duplicate window are one vehicle seen as two blobs,
// unless the two tracks were seen as two whole vehicles apart in one frame: at 1 fps the crossing times are
// interpolated between frames a second apart, and two cars following closely in a lane fall in the window.
import { expect, test } from 'vitest';
import type { Detection } from '../dist/src/analyze/blob-filter.js';
import { car, crossingsOf, shrunk, tracker } from './helpers/tracker-rig.js';

/** Feeds one frame a second with the duplicate window used at 1 fps (700 ms); returns the crossings' directions. */
function run(frames: Detection[][]): string[] {
  return crossingsOf(frames).map(([, direction]) => direction);
}

/** car() in blue: the two vehicles look different, so each track keeps its own. */
function blue(d: Detection): Detection {
  const thumb = new Float32Array(d.thumb.length);
  for (let k = 0; k < thumb.length; k += 4) thumb.set([40, 40, 200, 1], k);
  return { ...d, r: 40, g: 40, b: 200, thumb };
}

type Path = ([number, number] | undefined)[];

/**
 * Frames a second apart of a red blob on path `a` and a blue one on path `b` (x, y per frame; undefined: not
 * seen), made by `make` from car().
 */
function pair(a: Path, b: Path, make: (d: Detection) => Detection = (d) => d): Detection[][] {
  return a.map((p, k) => {
    const q = b[k];
    return [...(p ? [make(car(...p))] : []), ...(q ? [make(blue(car(...q)))] : [])];
  });
}

// A leader and a follower in one lane, 140 px a second down the frame; the line is at row 400 (tracker-rig). The
// leader crosses it 0.71 s after the second frame, the follower 0.36 s after the third: 0.64 s apart.
const leader: [number, number][] = [[600, 160], [600, 300], [600, 440], [600, 580]];
const follower: Path = [undefined, [600, 210], [600, 350], [600, 490]];

test('two cars following closely in a lane at 1 fps, seen apart, are both counted', () => {
  // In the third frame the leader's box spans rows 389-491 and the follower's 313-388: two vehicles, touching.
  expect(run(pair(leader, follower))).toEqual(['in', 'in']);
});

test('the two cut parts of one blob crossing together are counted once', () => {
  // The same positions as parts cut from one blob (the blob filter's split): parts of a vehicle may be fragments.
  const part = (d: Detection): Detection => ({ ...d, whole: false });
  expect(run(pair(leader, follower, part))).toEqual(['in']);
});

test('two overlapping blobs of one vehicle, tracked apart, are counted once', () => {
  // A lorry's cab and box, each the size of a car, their boxes overlapping by half a size.
  const front: [number, number][] = [[600, 200], [600, 320], [600, 440], [600, 560]];
  const back = front.map(([x, y]): [number, number] => [x, y - 0.15 * (y - 100)]);
  expect(run(pair(front, back))).toEqual(['in']);
});

test('blobs much smaller than a vehicle, seen apart, may be fragments and are counted once', () => {
  // Half a vehicle's size: a quarter of its area.
  expect(run(pair(leader, follower, (d) => shrunk(d, 0.25)))).toEqual(['in']);
});

/**
 * Five frames a second (the duplicate window there is 460 ms) of two blobs moving down 150 px/s together: `a`
 * at (ax, y) and `b` 90 px behind at (bx, y - 90), so b crosses row 400 0.6 s after a, past the window. Each
 * is 1.5 typical vehicles' size; `cut` says, per frame, whether the two were the parts of one blob cut apart
 * (see the blob filter's splitAcross) or two blobs of their own. Returns the crossings' directions.
 */
function abreastAt5fps(ax: number, bx: number, cut: (k: number) => boolean): string[] {
  const { T } = tracker();
  const out: string[] = [];
  for (let k = 0; k < 16; k++) {
    const y = 280 + 30 * k;
    const frame = k < 13 ? [shrunk(car(ax, y), 2.25), shrunk(blue(car(bx, y - 90)), 2.25)] : [];
    const dets = frame.map((d) => (cut(k) ? { ...d, whole: false, splitOf: 7 } : d));
    out.push(...T.step(dets, 10_000 + k * 200, 460).map((c) => c.direction));
  }
  return out;
}

test("a lorry cut in two in every frame, its parts crossing at one place 0.6 s apart, is counted once", () => {
  // A white cab and a red box, cut apart by colour: their centres cross 15 px apart along the line.
  expect(abreastAt5fps(600, 615, () => true)).toEqual(['in']);
});

test('two vehicles abreast, cut from one blob in every frame, crossing a lane apart 0.6 s apart, are both counted', () => {
  expect(abreastAt5fps(520, 680, () => true)).toEqual(['in', 'in']);
});

test('two blobs that were not one blob cut apart in their last frames are not taken for its parts', () => {
  // The lorry's geometry, but its two blobs stood apart (uncut) from the fourth frame on: two vehicles.
  expect(abreastAt5fps(600, 615, (k) => k < 3)).toEqual(['in', 'in']);
});

/**
 * Five frames a second of a part of a cut blob (1.5 typical vehicles' size, cut from a blob of 2.3) at x = 600
 * and `other` beside it at x = 600 + dx, both moving down 150 px/s and crossing row 400 together.
 */
function besidePartAt5fps(dx: number, other: (x: number, y: number) => Detection): string[] {
  const { T } = tracker();
  const out: string[] = [];
  for (let k = 0; k < 16; k++) {
    const y = 280 + 30 * k;
    const part = { ...shrunk(car(600, y), 2.25), whole: false, splitOf: 3, splitSize: 2.3 * car(600, y).size };
    out.push(...T.step(k < 13 ? [part, blue(other(600 + dx, y))] : [], 10_000 + k * 200, 460).map((c) => c.direction));
  }
  return out;
}

test("a fragment crossing beside a cut part, within half the cut blob's size, is a piece of its vehicle", () => {
  // A sixth of a vehicle's area, 100 px along the line from the part: beyond half the part's size (68 px),
  // within half the size of the blob it was cut from (104 px).
  expect(besidePartAt5fps(100, (x, y) => shrunk(car(x, y), 1 / 6))).toEqual(['in']);
});

test('a whole vehicle crossing there is a vehicle of its own', () => {
  expect(besidePartAt5fps(100, car)).toEqual(['in', 'in']);
});
