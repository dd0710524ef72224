// Two vehicles close together in one lane are often one blob until both are past the line (at 1 fps, from the
// moment they come into view). The track of that blob counts once; the vehicle that comes out of the blob
// beyond the line was inside it, and crossed the line with it.
import { expect, test } from 'vitest';
import type { Detection } from '../dist/src/analyze/blob-filter.js';
import { LINE_Y, car, crossingsOf as run, merged, rowsAtConstantSpeed, shrunk, sizeAt, withDownFlow } from './helpers/tracker-rig.js';

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

// A car creeping past a bus standing in the next lane is inside the bus's blob until it comes out of it past the
// line; one interval back it was still within the line's margin, two intervals back well before the line, inside
// the blob all the while (the reversed boulevard clip at 2.5 fps). The usual motion there runs down the image.
const bus = merged(car(640, 330), car(640, 390));
// The car's rows at constant road speed, down the image (in): 370.6 and 401.4 inside the bus's blob (rows 296–434),
// then 440, 490 and 557 seen on its own, out of it.
const passing = rowsAtConstantSpeed(1 / 340 + 4 * (1 / 340 - 1 / 390), 1 / 340 - 1 / 390, 7);

test('a car that comes out of a standing blob past the line, inside it since before the line, is counted', () => {
  const margin = (y: number): number => 0.2 * sizeAt(y);
  expect(LINE_Y - passing[2]!).toBeGreaterThan(margin(passing[2]!));
  expect(Math.abs(passing[3]! - LINE_Y)).toBeLessThan(margin(passing[3]!));
  expect(passing[4]! - LINE_Y).toBeGreaterThan(margin(passing[4]!));
  for (const y of passing.slice(2, 4)) expect(y > bus.by && y < bus.by + bus.bh).toBe(true);
  expect(passing[4]! > bus.by + bus.bh).toBe(true);
  const frames = passing.map((y, k) => (k < 4 ? [bus] : [bus, car(650, y)]));
  expect(run(frames, withDownFlow([600, 650, 700], 250, 650).T)).toEqual([[0, 'in']]);
});

test('a car first seen past the line out of a blob that hid it for one interval only is not counted', () => {
  // Vehicles going the other way, 100 px a second up the image, one blob, the car at its right edge: one interval
  // before the car was first seen it was inside that blob, two intervals before above it, in view, and it was not
  // seen there.
  const blob = (k: number): Detection => oncoming(660 - 100 * k);
  const inBlob = (y: number, k: number): boolean => y > blob(k).by - 0.25 * sizeAt(passing[4]!) && y < blob(k).by + blob(k).bh;
  expect(inBlob(passing[3]!, 3)).toBe(true);
  expect(inBlob(passing[2]!, 2)).toBe(false);
  const frames = passing.map((y, k) => (k < 4 ? [blob(k)] : [blob(k), car(715, y)]));
  expect(run(frames, withDownFlow([715, 765], 250, 650).T).filter(([, d]) => d === 'in')).toEqual([]);
});

test('a piece first seen inside a standing blob, past the line, is not judged from further back inside it', () => {
  // A piece of the bus's own vehicle, cut off it, with a first link down the image: one interval back (row 396)
  // within the line's margin, two intervals back (372) before it, but never seen out of the blob.
  const rows = [425, 460, 497];
  expect(rows[0]! > bus.by && rows[0]! < bus.by + bus.bh).toBe(true);
  const frames = [[bus], [bus], [bus], [bus], ...rows.map((y) => [bus, piece(650, y, 0.5)])];
  expect(run(frames, withDownFlow([600, 650, 700], 250, 650).T)).toEqual([]);
});
