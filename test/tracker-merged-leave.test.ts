// Two vehicles close together in one lane are often one blob until both are past the line (at 1 fps, from the
// moment they come into view). The track of that blob counts once; the vehicle that comes out of the blob
// beyond the line was inside it, and crossed the line with it.
import { expect, test } from 'vitest';
import type { Detection } from '../dist/src/analyze/blob-filter.js';
import { LINE_Y, car, crossingsOf as run, merged, shrunk, sizeAt } from './helpers/tracker-rig.js';

/** A blob of a fraction `f` of a vehicle's area at (x, y). */
const piece = (x: number, y: number, f: number): Detection => shrunk(car(x, y), f);

// The front vehicle's rows, 50 px a second down the frame; the one behind is GAP rows higher, bumper to bumper.
// They come apart past the line: the front one goes on, the one behind brakes and is seen alone at row 425,
// past the line (beyond its margin, 0.2 × its size).
const front = [260, 310, 360, 410, 460];
const GAP = 70;
const pair = (y: number): Detection => merged(car(600, y), car(600, y - GAP));
const together = front.map((y) => [pair(y)]);

test('two vehicles in one blob until past the line are both counted when they come apart', () => {
  expect(425 - LINE_Y).toBeGreaterThan(0.2 * sizeAt(425));
  expect(run([...together, [car(600, 510), car(600, 425)], [car(600, 560), car(600, 475)]])).toEqual([
    [0, 'in'],
    [0, 'in'],
  ]);
});

test('a piece smaller than a vehicle that comes off a big blob past the line is not one more vehicle', () => {
  // A lorry's blob (two cars' area) sheds a third of a car, a shadow or a bumper, where the car behind was above.
  const lorry = (y: number): Detection => merged(piece(600, y, 1), piece(600, y - 70, 0.7));
  expect(run([...together, [lorry(510), piece(600, 425, 0.35)], [lorry(560), piece(600, 475, 0.35)]])).toEqual([[0, 'in']]);
});

test('a vehicle that shows up past the line outside the blob is not counted', () => {
  // The blob shrinks to its front car (the other one is lost to view); a car shows up 300 px to the side, past
  // the line (out of a gap in the ROI, say): it was never inside the blob.
  expect(run([...together, [car(600, 510), car(900, 425)], [car(600, 560), car(900, 475)]])).toEqual([[0, 'in']]);
});

test('a blob that stays as big as before has let no vehicle out', () => {
  // The pair stays one blob; a car that was not in it (hidden by it, in the next lane) shows up at its side past
  // the line. The blob did not shrink, so no vehicle came out of it.
  expect(run([...together, [pair(510), car(640, 425)], [pair(560), car(640, 475)]])).toEqual([[0, 'in']]);
});

test('one vehicle whose blob breaks in two past the line is counted once', () => {
  // A single car, 50 px a second, past the line at row 410, then seen as two halves 60 px apart (a dark
  // windscreen the colour of the road between): the rear half is where the car's rear was, before the line.
  const alone = front.slice(0, 4).map((y) => [car(600, y)]);
  const halves = (y: number): Detection[] => [piece(600, y + 25, 0.5), piece(600, y - 35, 0.5)];
  expect(run([...alone, halves(460), halves(510)])).toEqual([[0, 'in']]);
});

// Where the two directions' lanes meet in the image, a vehicle going one way can be inside the blob of the
// vehicles it meets going the other way, and be seen first past the line: it crossed hidden in that blob.
const oncoming = (y: number): Detection => merged(car(600, y), car(660, y + 10));
const meeting = (rowOut: (k: number) => number | undefined): Detection[][] =>
  [310, 360, 410, 460, 510, 560].map((y, k) => {
    const r = rowOut(k);
    return r === undefined ? [oncoming(y)] : [oncoming(y), car(715, r)];
  });

// Going up 50 px a second in the next lane, first seen at row 375 (past the line) in the fourth frame.
const goingUp = (k: number): number | undefined => (k >= 3 ? 525 - 50 * k : undefined);

test('a vehicle seen first past the line, coming out of a blob of vehicles going the other way, is counted', () => {
  // One step back from its first sighting it was before the line, at the right edge of the oncoming pair's blob.
  expect(run(meeting(goingUp)).sort()).toEqual([
    [0, 'in'],
    [0, 'out'],
  ]);
});

test('a vehicle seen first past the line where the road one step back was empty is not counted', () => {
  // The same vehicle, but 250 px to the side of the oncoming blob: it could have been seen before the line, and was not.
  const frames = meeting(goingUp).map((dets) => dets.map((d, j) => (j === 1 ? car(965, d.y) : d)));
  expect(run(frames)).toEqual([[0, 'in']]);
});
