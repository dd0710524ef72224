// Whether the daemon keeps up with a camera, judged per window on the frames handed to the channel against those that
// came out of it, with the clock given: what the log and the health warning say.
import { expect, it } from 'vitest';
import { LoadWindow, behindMessage, keepsUpMessage } from '../dist/src/load-window.js';

const WINDOW = 2_000;
const FIXES = { decoders: 1, decodeScale: 1, decoder: 'jpeg-js' } as const;

/** One window of `frames` handed in and `out` come out, ended at t; what the log would say then. */
function windowOf(w: LoadWindow, t: number, frames: number, out: number): string | undefined {
  for (let k = 0; k < frames; k++) w.submitted();
  for (let k = 0; k < out; k++) w.cameOut();
  const verdict = w.end(t);
  if (verdict === 'behind') return behindMessage('cam1', w.last!, FIXES);
  if (verdict === 'keeps up') return keepsUpMessage('cam1', w.last!);
  return undefined;
}

it('a camera whose every frame is dropped is told the daemon cannot keep up, 100% dropped', () => {
  const w = new LoadWindow(WINDOW, 0);
  // Before, drops were seen as gaps in the sequence numbers of the frames that came out: with none, none was seen.
  expect(windowOf(w, WINDOW, 30, 0)).toBe(
    'camera cam1: the daemon cannot keep up: 30 of its 30 frames (100%) in the last 2 s were dropped before analysis, so it counts from 0.0 ' +
      'frames/s instead of 15.0, which costs accuracy (see "Accuracy" in the README); give it more decoders (`decoders`, now 1), a larger ' +
      '`decodeScale` (now 1) or a faster `decoder` (now jpeg-js; jpeg-turbo is the fastest), or count fewer cameras in this daemon',
  );
  expect(w.behind).toBe(true);
  // Said once: the next window as bad changes nothing.
  expect(windowOf(w, 2 * WINDOW, 30, 0)).toBeUndefined();
  expect(w.share(2 * WINDOW)).toBe(1);
});

it('with decoders 0, says there is no decoder at all when no remote one is connected, and to connect more when some are', () => {
  const w = new LoadWindow(WINDOW, 0);
  for (let k = 0; k < 30; k++) w.submitted();
  w.end(WINDOW);
  const remoteOnly = { decoders: 0, decodeScale: 1, decoder: 'jpeg-js' } as const;
  const command = 'traffic-counter decoder --connect tcp://10.0.0.5:5555';
  // Before: "connect more remote decoders (…), a larger `decodeScale` (now 1), or count fewer cameras", as if the
  // daemon were short of decoding power rather than without any.
  const none = behindMessage('cam1', w.last!, remoteOnly, command, undefined, 0);
  expect(none).toMatch(/^camera cam1: the daemon cannot keep up: 30 of its 30 frames \(100%\) in the last 2 s were dropped before analysis, /);
  expect(none).toContain(
    '; no decoder is connected to decode them: `decoders` is 0 (no local decoder) and no remote decoder has connected; start one on a decoder ' +
      'host with `traffic-counter decoder --connect tcp://10.0.0.5:5555`, or give the daemon local decoders (--decoders N, or `decoders` 1 or more in the config)',
  );
  expect(none).not.toContain('connect more');
  expect(none).not.toContain('decodeScale');
  expect(behindMessage('cam1', w.last!, remoteOnly, command, Date.UTC(2026, 0, 2, 3, 4, 5), 0)).toContain(
    'and no remote decoder connected since 2026-01-02T03:04:05Z, when the last one was lost; start one',
  );
  expect(behindMessage('cam1', w.last!, remoteOnly, command, undefined, 2)).toContain('; connect more remote decoders (`traffic-counter decoder --connect tcp://10.0.0.5:5555`;');
});

it('says it keeps up again at the end of the first good window, though no output of the camera comes after it', () => {
  const w = new LoadWindow(WINDOW, 0);
  expect(windowOf(w, WINDOW, 40, 20)).toMatch(/^camera cam1: the daemon cannot keep up: 20 of its 40 frames \(50%\) .* counts from 10\.0 frames\/s instead of 20\.0,/);
  // The overload ends: every frame comes out, then the camera stops. Judged when the window ends, not at the camera's
  // next output (before, the window ended only then: never, for a camera that stopped).
  expect(windowOf(w, 2 * WINDOW, 40, 40)).toBe('camera cam1: the daemon keeps up with it again (0% of its frames dropped in the last 2 s)');
  expect(w.behind).toBe(false);
});

it('keeps saying it is behind between 10% and 20% dropped, and counts frames in flight at a window end in the next', () => {
  const w = new LoadWindow(WINDOW, 0);
  expect(windowOf(w, WINDOW, 40, 28)).toMatch(/cannot keep up: 12 of its 40 frames \(30%\)/);
  expect(windowOf(w, 2 * WINDOW, 40, 34)).toBeUndefined(); // 15%: still behind
  expect(w.behind).toBe(true);
  // 4 frames still in flight at that end come out in the next window, with all of its own: more out than in,
  // read as none dropped, not fewer than none.
  expect(windowOf(w, 3 * WINDOW, 40, 44)).toBe('camera cam1: the daemon keeps up with it again (0% of its frames dropped in the last 2 s)');
  expect(w.last).toEqual({ frames: 40, dropped: 0, startAt: 2 * WINDOW, endAt: 3 * WINDOW });
});

it('does not judge a window with too few frames, or one that ran much longer than its length', () => {
  const w = new LoadWindow(WINDOW, 0);
  // 9 frames, all dropped: too few to judge (a camera polled slowly, or down most of the window).
  expect(windowOf(w, WINDOW, 9, 0)).toBeUndefined();
  expect(w.behind).toBe(false);
  // The timer was held up (a suspended machine): a window of 2.5 lengths is not judged, however bad.
  expect(windowOf(w, WINDOW + 2.5 * WINDOW, 50, 0)).toBeUndefined();
  expect(w.behind).toBe(false);
  // A judged window's verdict stands in the health for two window lengths, then is too old.
  const judged = new LoadWindow(WINDOW, 0);
  expect(windowOf(judged, WINDOW, 20, 0)).toMatch(/cannot keep up/);
  expect(judged.share(3 * WINDOW)).toBe(1);
  expect(judged.share(3 * WINDOW + 1)).toBeUndefined();
});
