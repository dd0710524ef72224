// A vehicle hidden in the merged blob of the one beside it (see tracker-merged.test.ts) may come out of it just
// past the line, having been placed inside the line's margin while hidden: its track crosses at its next link,
// close in time and place to the crossing of the blob's own track. The duplicate check must not take one for a
// fragment of the other: the tracker found the two vehicles side by side, as for crossings made while hidden.
import { expect, test } from 'vitest';
import type { Detection } from '../dist/src/analyze/blob-filter.js';
import { car, crossingsOf as run, merged } from './helpers/tracker-rig.js';

/**
 * Two blobs abreast, the right one `dx` px beside the left and 10 px lower, at the left one's rows: apart, then
 * one blob, then apart again. With `cut`, the two were parts of one blob cut across the lanes whenever apart.
 */
function abreast(dx: number, apart: number[], together: number[], apartAgain: number[], cut = false): Detection[][] {
  let label = 0;
  const pair = (y: number): Detection[] => {
    const a = car(560, y), b = car(560 + dx, y + 10);
    label++;
    return cut ? [{ ...a, whole: false, splitOf: label }, { ...b, whole: false, splitOf: label }] : [a, b];
  };
  return [...apart.map(pair), ...together.map((y) => [merged(car(560, y), car(560 + dx, y + 10))]), ...apartAgain.map(pair)];
}

// 40 px a second down the frame; the line is at row 400 (tracker-rig). One blob at rows 350 and 390, where the
// hidden vehicle is placed inside the line's margin; apart again from row 430, past the line.
const before = [230, 270, 310], together = [350, 390], after = [430, 470];

test('two vehicles abreast that come out of one blob just past the line are both counted', () => {
  expect(run(abreast(60, before, together, after))).toEqual([
    [0, 'in'],
    [0, 'in'],
  ]);
});

test('the parts of one blob cut across the lanes in every frame both were seen in count once', () => {
  // The same motion, the two blobs 40 px apart, each a part of one cut blob in every frame but one, where the
  // blob was not cut: one vehicle, cut in two (a lorry at 5 fps), though one part's track was hidden then.
  expect(run(abreast(40, [...before, 350], [390], after, true))).toEqual([[0, 'in']]);
});
