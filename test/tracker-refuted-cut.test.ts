// A blob cut in two across the lanes is a guess that it holds two vehicles abreast. When the next frame shows the
// track of one part on an uncut blob of one vehicle's size, and the other part, seen only that once, has no
// sighting of its own, the guess was wrong: that part was a piece of the vehicle, and its track ends. Left to go
// on, it took the next vehicle the usual motion predicted it to (at 1 fps, often one past a line) and counted it.
import { expect, it } from 'vitest';
import type { Detection } from '../dist/src/analyze/blob-filter.js';
import { car, crossingsOf, merged, shrunk, withDownFlow } from './helpers/tracker-rig.js';

/** Parts of one blob cut apart (see Detection.splitOf). */
const part = (d: Detection): Detection => ({ ...d, whole: false, splitOf: 1 });

// The usual motion down the columns of the car and the piece is down the image (in), at 2 sizes per second.
const count = (frames: Detection[][]): [number, string][] => crossingsOf(frames, withDownFlow([600, 660], 200, 680).T);

// One car down the image (the line is at row 400); at row 300 its blob is cut into the car and a piece beside it,
// and at row 380 it is one blob again. A frame later another vehicle is first seen past the line, where the usual
// motion would have taken the piece (`firstSeen`).
const carFrames = (firstSeen: Detection[]): Detection[][] =>
  [[car(600, 220)], [part(car(600, 300)), part(shrunk(car(660, 300), 0.3))], [car(600, 380)], [car(600, 460), ...firstSeen], [car(600, 540)]];

it('a piece cut off a vehicle that is whole in the next frame does not count a vehicle of its own', () => {
  for (const y of [480, 520, 560, 600]) expect(count(carFrames([car(660, y)])), `another vehicle first seen at row ${y}`).toEqual([[0, 'in']]);
});

/**
 * A vehicle of `area` × a car's, and beside it a smaller one of `besideArea`: the first alone at row 220, the pair cut
 * apart at 300, one blob at 380, apart from 460 on.
 */
function abreastFrames(area: number, besideArea: number): Detection[][] {
  const first = (y: number): Detection => shrunk(car(600, y), area);
  const beside = (y: number): Detection => shrunk(car(660, y), besideArea);
  const oneBlob = (y: number): Detection => ({ ...merged(first(y), beside(y)), whole: true });
  return [[first(220)], [part(first(300)), part(beside(300))], [oneBlob(380)], [first(460), beside(460)], [first(540), beside(540)]];
}

it('two vehicles abreast, cut apart and then one blob, are both counted when the part beside is a whole vehicle', () => {
  // Two small cars, 0.9 and 0.55 of the typical car's area (the second over 0.7² of it: a whole vehicle), one blob
  // of 1.45 cars.
  expect(count(abreastFrames(0.9, 0.55))).toEqual([[0, 'in'], [0, 'in']]);
});

it('two vehicles abreast, cut apart and then one blob of more than 1.5 vehicles, are both counted', () => {
  // A van of 1.2 cars and a two-wheeler of 0.4 beside it (a part the size of a piece), one blob of 1.6 cars.
  expect(count(abreastFrames(1.2, 0.4))).toEqual([[0, 'in'], [0, 'in']]);
});

it('a two-wheeler cut apart from the car beside it, then seen apart moving as the car does, is counted', () => {
  // A car and a two-wheeler of 0.4 cars beside it: one blob cut apart at row 330, apart past the line at 410.
  const first = (y: number): Detection => car(600, y);
  const beside = (y: number): Detection => shrunk(car(660, y), 0.4);
  const frames = [[first(250)], [part(first(330)), part(beside(330))], [first(410), beside(410)], [first(490), beside(490)], [first(570), beside(570)]];
  expect(count(frames)).toEqual([[0, 'in'], [0, 'in']]);
});

// With no usual motion known yet (a fresh tracker), a car coming up the image from the bottom, cut at row 640 into
// the car and a piece beside it, whole a second later. The one blob left in that frame is another vehicle, a small
// one far up the image past the line (then gone, as where the two directions' lanes part): the piece's track could
// reach it, but it is not that piece's vehicle (it went over 3× as far as the car did).
it('a piece whose only link runs far beyond where the rest of its blob went does not count the vehicle it took', () => {
  const up = (y: number): Detection => car(600, y);
  const frames = [[part(up(640)), part(shrunk(car(660, 640), 0.3))], [up(560), shrunk(car(700, 300), 0.3)], [up(470)], [up(380)], [up(300)], [up(240)]];
  expect(crossingsOf(frames)).toEqual([[0, 'out']]);
});

it('two vehicles abreast cut apart, then apart and moving alike, are both counted with no usual motion known', () => {
  const a = (y: number): Detection => car(600, y);
  const b = (y: number): Detection => shrunk(car(680, y), 0.6);
  const frames = [[part(a(640)), part(b(640))], [a(560), b(560)], [a(470), b(470)], [a(380), b(380)], [a(300), b(300)], [a(240), b(240)]];
  expect(crossingsOf(frames)).toEqual([[0, 'out'], [0, 'out']]);
});
