// When the daemon's log says a problem that keeps happening again (a camera that stays down, frames that keep
// failing to decode): once, then at every 100th time since or the first time after 10 minutes, and at once when
// the problem changes or after it was over.
import { expect, it } from 'vitest';
import { REPEAT_AFTER_MS, REPEAT_EVERY, RepeatLog } from '../dist/src/repeat-log.js';

it('says a problem once, again at every 100th time since, after 10 minutes, when it changes, and after a reset', () => {
  const log = new RepeatLog();
  const t0 = 1_000_000;
  const said = (code: string, at: number) => log.say(code, at);
  expect(said('A', t0)).toEqual({ say: true, since: 1 });
  // Polled twice a second: not said again for the next 99.
  for (let i = 1; i < REPEAT_EVERY; i++) expect(said('A', t0 + i * 500).say).toBe(false);
  expect(said('A', t0 + REPEAT_EVERY * 500)).toEqual({ say: true, since: REPEAT_EVERY });
  // Seldom (a camera backing off to a minute): after 10 minutes, with how many came in between.
  const t1 = t0 + REPEAT_EVERY * 500;
  expect(said('A', t1 + 60_000).say).toBe(false);
  expect(said('A', t1 + REPEAT_AFTER_MS)).toEqual({ say: true, since: 2 });
  // Another problem is said at once (counted from 1: the times before were the other's), and so is the first
  // after the camera was back.
  expect(said('A', t1 + REPEAT_AFTER_MS + 1).say).toBe(false);
  expect(said('B', t1 + REPEAT_AFTER_MS + 1)).toEqual({ say: true, since: 1 });
  expect(said('B', t1 + REPEAT_AFTER_MS + 2).say).toBe(false);
  log.reset();
  expect(said('B', t1 + REPEAT_AFTER_MS + 3)).toEqual({ say: true, since: 1 });
});
