// A crossing refused as a wrong link (against the flow, or against the line's habit) counts for no vehicle.
// Once the track turns back, it follows another vehicle, and that vehicle still counts on the line. A real
// count, and a fragment's crossing, still use up the line for the track. A crossing held until the flow can
// judge it counts only when settled; settled as refused, it is a wrong link like the others.
import { expect, test } from 'vitest';
import { counter, feed } from './helpers/line-rig.js';

const X = 500; // the track's column

test('after a refused crossing and a turn back, the vehicle the track follows counts on the line', () => {
  const c = counter();
  const st = c.newState();
  // Down across the line ('in') against the flow: refused.
  expect(feed(c, st, X, [120, 280], 0, (_l, d) => d === 'out')).toEqual([]);
  // The track turns back: from now on it follows a vehicle going up.
  c.reopenWrongLinks(st);
  const back = feed(c, st, X, [280, 120], 1);
  expect(back.map((x) => x.direction)).toEqual(['out']);
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([0, 1]);
});

test('a line refused by the habit of the traffic there is reopened too', () => {
  const c = counter();
  for (let k = 0; k < 3; k++) expect(feed(c, c.newState(), X, [300, 100], 10 * k)).toHaveLength(1); // three 'out'
  const st = c.newState();
  expect(feed(c, st, X, [100, 300], 40)).toEqual([]); // 'in' against them: a wrong link
  c.reopenWrongLinks(st);
  expect(feed(c, st, X, [300, 100], 41)).toHaveLength(1);
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([0, 4]);
});

test('a counted crossing is not reopened: the track does not count there again', () => {
  const c = counter();
  const st = c.newState();
  expect(feed(c, st, X, [120, 280], 0)).toHaveLength(1);
  c.reopenWrongLinks(st);
  expect(feed(c, st, X, [280, 120], 1)).toEqual([]);
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([1, 0]);
});

test('without a turn back, a refused line stays used up for the track', () => {
  const c = counter();
  const st = c.newState();
  expect(feed(c, st, X, [120, 280], 0, (_l, d) => d === 'out')).toEqual([]);
  expect(feed(c, st, X, [280, 120], 1)).toEqual([]);
});

test('a crossing held for later is not counted until settled, then counts once', () => {
  const c = counter();
  const st = c.newState();
  const [held] = feed(c, st, X, [120, 280], 0, () => 'later');
  expect(held).toMatchObject({ direction: 'in', provisional: expect.anything() });
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([0, 0]);
  expect(feed(c, st, X, [290, 300], 2, () => 'later')).toEqual([]); // the line is used up for the track meanwhile
  c.settle(held!, true);
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([1, 0]);
});

test('a held crossing refused when settled counts for no vehicle, and is reopened by a turn back', () => {
  const c = counter();
  const st = c.newState();
  const [held] = feed(c, st, X, [120, 280], 0, () => 'later');
  c.settle(held!, false);
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([0, 0]);
  c.reopenWrongLinks(st);
  expect(feed(c, st, X, [280, 120], 2).map((x) => x.direction)).toEqual(['out']);
  expect([c.inCounts[0], c.outCounts[0]]).toEqual([0, 1]);
});
