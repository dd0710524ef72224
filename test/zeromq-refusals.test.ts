// What the zeromq channel says of peers refused at the handshake: one line per cause and minute, and a peer's hang-up
// during the handshake, most often the other end of a refusal with a cause, only when no such refusal explains it.
// Before, one decoder without the key was said twice at once ("refused a peer … that has no key …", then "a peer …
// hung up during the handshake (Broken pipe) …"), in either order.
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { RefusalLog } from '../dist/src/channel/zeromq-refusals.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

function log(): { refusals: RefusalLog; said: string[] } {
  const said: string[] = [];
  return { refusals: new RefusalLog((m) => said.push(m)), said };
}

test('a hang-up right after a refusal with a cause, or right before one, is that refusal: one line', () => {
  const { refusals, said } = log();
  refusals.refused('ERR_ZMTP_MECHANISM_MISMATCH', 'no key');
  vi.advanceTimersByTime(300);
  refusals.hungUp('hung up');
  vi.advanceTimersByTime(10_000);
  expect(said).toEqual(['no key']);

  const other = log();
  other.refusals.hungUp('hung up'); // the decoder hung up first; it tries again within ~1 s
  vi.advanceTimersByTime(1_000);
  other.refusals.refused('ERR_ZMTP_MECHANISM_MISMATCH', 'no key');
  vi.advanceTimersByTime(10_000);
  expect(other.said).toEqual(['no key']);
});

test('hang-ups that no refusal explains are said once, after a short wait, then once a minute with the count', () => {
  const { refusals, said } = log();
  refusals.hungUp('hung up');
  expect(said).toEqual([]);
  vi.advanceTimersByTime(2_000);
  expect(said).toEqual(['hung up']);
  for (let i = 0; i < 5; i++) {
    vi.advanceTimersByTime(5_000);
    refusals.hungUp('hung up');
  }
  vi.advanceTimersByTime(60_000);
  refusals.hungUp('hung up');
  vi.advanceTimersByTime(2_000);
  expect(said).toEqual(['hung up', 'hung up (6 refusals of this kind since last said)']);
});

test('a hang-up seconds after a refusal with a cause is that refusal\'s other end too: not a second line (a loaded machine)', () => {
  // The full test run saw both lines: a decoder without the key refused with its cause, and its next try, over 2 s
  // later, ended in a hang-up that was said as well.
  const { refusals, said } = log();
  refusals.refused('ERR_ZMTP_MECHANISM_MISMATCH', 'no key');
  vi.advanceTimersByTime(5_000);
  refusals.hungUp('hung up');
  vi.advanceTimersByTime(30_000);
  refusals.hungUp('hung up');
  vi.advanceTimersByTime(10_000);
  expect(said).toEqual(['no key']);
});

test('hang-ups while one waits to be said are counted in it, not dropped (the count said was too low)', () => {
  const { refusals, said } = log();
  refusals.hungUp('hung up');
  vi.advanceTimersByTime(500);
  refusals.hungUp('hung up');
  refusals.hungUp('hung up');
  vi.advanceTimersByTime(2_000);
  expect(said).toEqual(['hung up (3 refusals of this kind since last said)']);
  // Explained by a refusal with a cause: the waiting ones go with it, uncounted as hang-ups.
  vi.advanceTimersByTime(60_000);
  refusals.hungUp('hung up');
  refusals.hungUp('hung up');
  refusals.refused('ERR_ZMTP_MECHANISM_MISMATCH', 'no key');
  vi.advanceTimersByTime(70_000);
  refusals.hungUp('hung up');
  vi.advanceTimersByTime(2_000);
  expect(said).toEqual(['hung up (3 refusals of this kind since last said)', 'no key', 'hung up']);
});

test('refusals of one cause are said once a minute, each cause on its own; close() drops a hang-up not said yet', () => {
  const { refusals, said } = log();
  for (let i = 0; i < 3; i++) refusals.refused('key', 'their key');
  refusals.refused('ERR_ZMTP_CRYPTOGRAPHIC', 'another key file');
  refusals.hungUp('hung up');
  vi.advanceTimersByTime(60_000);
  refusals.refused('key', 'their key');
  expect(said).toEqual(['their key', 'another key file', 'their key (3 refusals of this kind since last said)']);
  vi.advanceTimersByTime(5_000);
  refusals.hungUp('hung up');
  refusals.close();
  vi.advanceTimersByTime(5_000);
  expect(said).toHaveLength(3);
});
