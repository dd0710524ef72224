// Where a missed vehicle was (src/eval/missed-where.ts): the blob covering it in a frame, alone or merged, and the
// verdict of the frames before and after its crossing.
import { describe, expect, it } from 'vitest';
import { clipBox, missedWhere, placeAmongBlobs, type BoxedVehicle } from '../dist/src/eval/missed-where.js';

const car = (id: number, x: number, y: number, direction: 'in' | 'out' = 'out', w = 100, h = 80): BoxedVehicle => ({ id, direction, box: [x, y, w, h] });

describe('missed-where', () => {
  it('finds a vehicle alone in its blob, merged with another, or in none', () => {
    const me = car(1, 100, 300);
    // Its blob, a little larger than its body (a shadow), holds no other vehicle.
    expect(placeAmongBlobs(me, [me, car(2, 600, 300)], [[90, 290, 130, 100], [590, 290, 120, 100]])).toBe('own');
    // One blob over it and the car just ahead of it in its lane (higher in the image).
    expect(placeAmongBlobs(me, [me, car(2, 130, 200)], [[100, 200, 130, 180]])).toBe('behind');
    // One blob over it and a car level with it in the next lane.
    expect(placeAmongBlobs(me, [me, car(2, 200, 310)], [[100, 300, 200, 90]])).toBe('abreast');
    // A vehicle of the other direction in that blob outweighs one of its own.
    expect(placeAmongBlobs(me, [me, car(2, 130, 200), car(3, 200, 310, 'in')], [[100, 200, 200, 190]])).toBe('opposite');
    // No blob, or one covering under 30% of it (a fragment), or it is out of the frame.
    expect(placeAmongBlobs(me, [me], [])).toBe('none');
    expect(placeAmongBlobs(me, [me], [[100, 300, 20, 80]])).toBe('none');
    expect(placeAmongBlobs({ ...me, box: clipBox([-300, 300, 100, 80], 1280, 720) }, [], [[0, 0, 1280, 720]])).toBe('none');
    // A vehicle only grazing its blob is not in it.
    expect(placeAmongBlobs(me, [me, car(2, 190, 300)], [[100, 300, 110, 80]])).toBe('own');
  });

  it('clips a box to the frame', () => {
    expect(clipBox([-50, 600, 200, 200], 1280, 720)).toEqual([0, 600, 150, 120]);
    expect(clipBox([1300, 10, 50, 50], 1280, 720)).toEqual([1300, 10, 0, 50]);
  });

  it('judges the two frames around the crossing together', () => {
    expect(missedWhere('own', 'own')).toBe('own');
    expect(missedWhere('own', 'behind')).toBe('ownOnce');
    expect(missedWhere('none', 'own')).toBe('ownOnce');
    expect(missedWhere('abreast', 'behind')).toBe('abreast');
    expect(missedWhere('none', 'opposite')).toBe('opposite');
    expect(missedWhere(undefined, 'none')).toBe('none');
    expect(missedWhere(undefined, undefined)).toBe('unwatched');
  });
});
