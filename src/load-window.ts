// Whether the daemon keeps up with one camera: over windows of loadWindowMs, the share of the frames handed to the
// channel that did not come out of it (dropped before analysis), and the log and health messages that say so.

import type { Config } from './config/config-types.js';

/** A camera is behind when at least this share of a window's frames were dropped, and keeps up again under half of it. */
export const BEHIND_SHARE = 0.2;
/** Fewer frames than this in a window are not judged. */
export const LOAD_MIN_FRAMES = 10;

/** One whole window: the frames handed to the channel, how many of them did not come out, and when. */
export interface LoadCounts {
  readonly frames: number;
  readonly dropped: number;
  readonly startAt: number;
  readonly endAt: number;
}

export class LoadWindow {
  readonly #windowMs: number;
  #startAt: number;
  #submitted = 0;
  #out = 0;
  #last: LoadCounts | null = null;
  #behind = false;

  /** `windowMs`: the window's length; `now`: when the first window starts (wall clock, ms). */
  constructor(windowMs: number, now: number) {
    this.#windowMs = windowMs;
    this.#startAt = now;
  }

  /** A frame of the camera was handed to the channel. */
  submitted(): void {
    this.#submitted++;
  }

  /** One of its frames came out of the channel: decoded (analysed or refused by the analyzer) or refused by the decoder. */
  cameOut(): void {
    this.#out++;
  }

  /** Whether the log said the daemon cannot keep up with the camera (and not yet that it keeps up again). */
  get behind(): boolean {
    return this.#behind;
  }

  /** The latest whole window; null before the first ends. */
  get last(): LoadCounts | null {
    return this.#last;
  }

  /**
   * Ends the current window at `now` and judges it: 'behind' when the camera has just fallen behind, 'keeps up'
   * when it has just caught up again, undefined when nothing changed or the window is not judged (see share()).
   * Called on a timer, so a camera whose frames all vanish, or whose frames stop, is judged all the same.
   */
  end(now: number): 'behind' | 'keeps up' | undefined {
    // Frames are counted going in and outputs coming out, so a frame in flight at the end counts as dropped in this
    // window and as an output in the next: at most the channel's bound of frames in flight either way. Clamped at 0,
    // as the next window can then have more outputs than frames.
    this.#last = { frames: this.#submitted, dropped: Math.max(0, this.#submitted - this.#out), startAt: this.#startAt, endAt: now };
    this.#startAt = now;
    this.#submitted = this.#out = 0;
    const share = this.share(now);
    if (share === undefined) return undefined;
    if (!this.#behind && share >= BEHIND_SHARE) {
      this.#behind = true;
      return 'behind';
    }
    if (this.#behind && share < BEHIND_SHARE / 2) {
      this.#behind = false;
      return 'keeps up';
    }
    return undefined;
  }

  /**
   * The share of the latest whole window's frames that were dropped; undefined when too few, too long ago, or when
   * the window ran much longer than its length (the timer was held up: a suspended machine or a blocked event loop).
   */
  share(now: number): number | undefined {
    const last = this.#last;
    if (!last || now - last.endAt > 2 * this.#windowMs || last.endAt - last.startAt > 2 * this.#windowMs) return undefined;
    return last.frames >= LOAD_MIN_FRAMES ? last.dropped / last.frames : undefined;
  }
}

/**
 * Says since when no remote decoder is connected: `lostAt` (ms since the epoch) is when the last one was lost (it
 * left, fell silent, did not answer in time or could not be sent to), to the second.
 */
export function noRemoteDecoderSince(lostAt: number): string {
  return `no remote decoder connected since ${new Date(lostAt).toISOString().replace(/\.\d+Z$/, 'Z')}, when the last one was lost`;
}

/**
 * Says that the daemon cannot keep up with camera `cameraId` over window `w`, and the fixes (from `c`; with `decoders`
 * 0, `remoteCommand` is the command that starts a remote decoder for this daemon, where it is known, `remoteLostAt`
 * when the last remote decoder was lost, where none is connected now, and `remoteConnected` how many are connected).
 */
export function behindMessage(
  cameraId: string,
  w: LoadCounts,
  c: Pick<Config, 'decoders' | 'decodeScale' | 'decoder'>,
  remoteCommand = 'traffic-counter decoder --connect ENDPOINT',
  remoteLostAt?: number,
  remoteConnected?: number,
): string {
  const sec = (w.endAt - w.startAt) / 1000;
  const rate = (n: number): string => (n / sec).toFixed(1);
  // With remote decoders only (zeromq, decoders 0), local settings change nothing: more of those are the fix. With
  // none connected, there is no decoder at all: "connect more remote decoders" and "a larger decodeScale" read as a
  // daemon short of decoding power, not one that has none.
  const fix =
    c.decoders === 0 && remoteConnected === 0
      ? `no decoder is connected to decode them: \`decoders\` is 0 (no local decoder) and ` +
        `${remoteLostAt === undefined ? 'no remote decoder has connected' : noRemoteDecoderSince(remoteLostAt)}; ` +
        `start one on a decoder host with \`${remoteCommand}\`, or give the daemon local decoders (--decoders N, or \`decoders\` 1 or more in the config)`
      : c.decoders === 0
      ? `connect more remote decoders (\`${remoteCommand}\`; \`decoders\` is 0, so all decoding is theirs${remoteLostAt === undefined ? '' : `; ${noRemoteDecoderSince(remoteLostAt)}`}), a larger \`decodeScale\` (now ${c.decodeScale}), or count fewer cameras in this daemon`
      : `give it more decoders (\`decoders\`, now ${c.decoders}), a larger \`decodeScale\` (now ${c.decodeScale}) or a faster \`decoder\` (now ${c.decoder}; jpeg-turbo is the fastest), or count fewer cameras in this daemon`;
  return (
    `camera ${cameraId}: the daemon cannot keep up: ${w.dropped} of its ${w.frames} frames (${Math.round((100 * w.dropped) / w.frames)}%) in ` +
    `the last ${Math.round(sec)} s were dropped before analysis, so it counts from ${rate(w.frames - w.dropped)} frames/s instead of ` +
    `${rate(w.frames)}, which costs accuracy (see "Accuracy" in the README); ${fix}`
  );
}

/** Says that the daemon keeps up with camera `cameraId` again, over window `w`. */
export function keepsUpMessage(cameraId: string, w: LoadCounts): string {
  return `camera ${cameraId}: the daemon keeps up with it again (${Math.round((100 * w.dropped) / w.frames)}% of its frames dropped in the last ${Math.round((w.endAt - w.startAt) / 1000)} s)`;
}
