// When the daemon's log says a problem that keeps happening again (a camera that stays down, frames that keep
// failing to decode): each error code once, then at every 100th time since or the first time after 10 minutes,
// on a count of its own (not started again by another code coming between), and at once after it was over.
import { expect, it } from 'vitest';
import { REPEAT_AFTER_MS, REPEAT_CODES, REPEAT_EVERY, RepeatLog } from '../dist/src/repeat-log.js';

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

it('keeps each code apart: two errors by turns are each said once, and a change forgets neither count', () => {
  const log = new RepeatLog();
  const t0 = 1_000_000;
  // A camera answering 503 and timing out by turns: each said the first time, then not again until its own 100th.
  const said: string[] = [];
  for (let i = 0; i < 2 * (REPEAT_EVERY + 1); i++) {
    const code = i % 2 === 0 ? 'HTTP' : 'TIMEOUT';
    const out = log.say(code, t0 + i * 500);
    if (out.say) said.push(`${code} ${out.since}`);
  }
  expect(said).toEqual(['HTTP 1', 'TIMEOUT 1', `HTTP ${REPEAT_EVERY}`, `TIMEOUT ${REPEAT_EVERY}`]);

  // The silent repeats of one code are still counted after others came between: said 10 minutes after it last
  // was, with all 4.
  const httpSaidAt = t0 + 2 * REPEAT_EVERY * 500;
  const t1 = httpSaidAt + 1_000;
  expect(log.say('HTTP', t1 + 1).say).toBe(false);
  expect(log.say('HTTP', t1 + 2).say).toBe(false);
  expect(log.say('TIMEOUT', t1 + 3).say).toBe(false);
  expect(log.say('NETWORK', t1 + 4)).toEqual({ say: true, since: 1 });
  expect(log.say('HTTP', t1 + 5).say).toBe(false);
  expect(log.say('HTTP', httpSaidAt + REPEAT_AFTER_MS)).toEqual({ say: true, since: 4 });

  // The camera is back: the next occurrence of any code is said, counted afresh.
  log.reset();
  expect(log.say('TIMEOUT', t1 + 6)).toEqual({ say: true, since: 1 });
  expect(log.say('HTTP', t1 + 7)).toEqual({ say: true, since: 1 });
});

it(`remembers at most ${REPEAT_CODES} codes, forgetting the least recently seen`, () => {
  const log = new RepeatLog();
  for (let i = 0; i <= REPEAT_CODES; i++) expect(log.say(`C${i}`, i).say).toBe(true);
  // C0 was pushed out by the last one: said again as new. The most recent are still held back.
  expect(log.say('C0', 100)).toEqual({ say: true, since: 1 });
  expect(log.say(`C${REPEAT_CODES}`, 101).say).toBe(false);
  expect(log.say('C2', 102).say).toBe(false);
});
