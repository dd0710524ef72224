// Two vehicles abreast in adjacent lanes often merge into one blob with no valley to split it at. The track
// that does not get the merged blob was not lost: its vehicle is inside the blob, and crosses the line with it.
import { expect, test } from 'vitest';
import type { Detection } from '../dist/src/analyze/blob-filter.js';
import { car, crossingsOf as run, merged } from './helpers/tracker-rig.js';

/**
 * Two vehicles abreast, the right one `dx` px beside the left and 10 px lower: seen apart at `apartRows` (the left
 * one's row), then one blob at `mergedRows`, then the left one alone at `aloneRows`.
 */
function abreast(dx: number, apartRows: number[], mergedRows: number[], aloneRows: number[] = []): Detection[][] {
  const pair = (y: number): [Detection, Detection] => [car(560, y), car(560 + dx, y + 10)];
  return [...apartRows.map(pair), ...mergedRows.map((y) => [merged(...pair(y))]), ...aloneRows.map((y) => [car(560, y)])];
}

// 40 px a second down the frame; the line is at row 400 (tracker-rig). Seen apart at rows 220-300, merged from 340 on.
const rowsApart = [220, 260, 300];
const rowsMerged = [340, 380, 420, 460];

test('two vehicles abreast that merge into one blob before the line are both counted', () => {
  expect(run(abreast(100, rowsApart, rowsMerged))).toEqual([
    [0, 'in'],
    [0, 'in'],
  ]);
});

test('the two halves of one vehicle, tracked apart and then seen whole, are counted once', () => {
  // A lorry's cab and box, one behind the other in the same lane, seen as two blobs and then as one.
  const halves = rowsApart.map((y) => [car(600, y + 32), car(600, y + 8)]);
  const whole = rowsMerged.map((y) => [merged(car(600, y + 32), car(600, y + 8))]);
  expect(run([...halves, ...whole])).toEqual([[0, 'in']]);
});

test('without a blob there, a missed vehicle is judged as before: half its predicted way, so not counted here', () => {
  expect(run(abreast(100, rowsApart, [], rowsMerged))).toEqual([[0, 'in']]);
});

test('a slow vehicle that a faster one passes beside, in one blob for a while, is not carried along across the line', () => {
  // The slow one creeps at 5 px a second towards the line at row 400; the fast one, 50 px a second in the next lane,
  // merges with it for three frames and goes on.
  const slow = (k: number) => car(600, 360 + 5 * k);
  const fast = (k: number) => car(690, 200 + 50 * k);
  const frames = [0, 1, 2, 3].map((k) => [slow(k), fast(k)]);
  frames.push(...[4, 5, 6].map((k) => [merged(slow(k), fast(k))]));
  frames.push(...[7, 8].map((k) => [slow(k), fast(k)]));
  expect(run(frames)).toEqual([[0, 'in']]);
});

// Seen apart at rows 160-240, then one blob from row 280: 3 s to the line at row 400, longer than
// trackMaxMissedSec (2.5 s), after which a track missed that long ends.
const rowsApartEarly = [160, 200, 240];
const rowsAfterEarly = [280, 320, 360, 400, 440, 480];

test('two vehicles abreast that stay one blob for longer than trackMaxMissedSec before the line are both counted', () => {
  expect(run(abreast(70, rowsApartEarly, rowsAfterEarly))).toEqual([
    [0, 'in'],
    [0, 'in'],
  ]);
});

test('a track whose blob is back to one vehicle\'s size ends after trackMaxMissedSec and is not carried across the line', () => {
  // Merged for two frames, then the blob is the left vehicle's alone: the other one left the road unseen.
  expect(run(abreast(70, rowsApartEarly, rowsAfterEarly.slice(0, 2), rowsAfterEarly.slice(2)))).toEqual([[0, 'in']]);
});

test('two vehicles abreast, cut apart from one blob and then one blob again, are both counted even where one is not predicted inside it', () => {
  // The blob of the pair was cut in two (parts of one blob, `splitOf`) at rows 220-300; at 300 the cut put the
  // left part's centroid 40 px to the left, so its track predicts it beside the merged blob, not in it.
  const parts = (y: number, shift: number): Detection[] => [{ ...car(560 - shift, y), whole: false, splitOf: 1 }, { ...car(660, y + 10), whole: false, splitOf: 1 }];
  const frames = [parts(220, 0), parts(260, 0), parts(300, 40), ...rowsMerged.map((y) => [merged(car(560, y), car(660, y + 10))])];
  expect(run(frames)).toEqual([
    [0, 'in'],
    [0, 'in'],
  ]);
});

test('two blobs seen apart in two frames without a cut between them, then one blob, count once', () => {
  // A lorry's cab and box (as above), two uncut blobs: nothing but one link each says they are two vehicles.
  const halves = [260, 300].map((y) => [car(600, y + 32), car(600, y + 8)]);
  const whole = rowsMerged.map((y) => [merged(car(600, y + 32), car(600, y + 8))]);
  expect(run([...halves, ...whole])).toEqual([[0, 'in']]);
});
