// The flow prior's usual motion per place: a cell with little evidence of its own borrows its neighbours',
// unless what little it saw itself went the other way (a lane beside lanes of the opposite direction).
import { expect, it } from 'vitest';
import { FlowPrior } from '../dist/src/analyze/flow-prior.js';

// 48-px cells over a 480x480 box; the cell of (120, 120) has the cell of (168, 120) to its right.
const prior = () => new FlowPrior(0, 0, 480, 480, 48, 20);
const here = [120, 120] as const, beside = [168, 120] as const;
const voteAt = (p: FlowPrior, [x, y]: readonly [number, number], along: number, n: number) => {
  for (let k = 0; k < n; k++) p.vote(x, y, x, y, along, 0, 1, 10);
};

it('a place with no evidence of its own takes its neighbours\' usual motion', () => {
  const p = prior();
  voteAt(p, beside, -2, 5);
  expect(p.at(...here, 10)?.along).toBeCloseTo(-2, 6);
});

it('a place whose own few sightings went with its neighbours takes their usual motion', () => {
  const p = prior();
  voteAt(p, beside, -2, 5);
  voteAt(p, here, -2.5, 1);
  expect(p.at(...here, 10)?.along).toBeLessThan(-1.5);
});

it('a place whose own few sightings went the other way than its neighbours\' has no usual motion', () => {
  const p = prior();
  voteAt(p, beside, -2, 5);
  voteAt(p, here, 2, 1);
  expect(p.at(...here, 10)).toBeUndefined();
  // With enough evidence of its own, its own motion, whatever the neighbours do.
  voteAt(p, here, 2, 1);
  expect(p.at(...here, 10)?.along).toBeCloseTo(2, 6);
});
