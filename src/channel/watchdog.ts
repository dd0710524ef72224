// The timer every channel checks its decoders' jobs on (see each channel's decodeTimeoutMs). A tick that comes late
// (the analyzer's thread was held up, or the machine suspended) runs before the decoders' answers waiting to be read,
// so a channel judges no decoder on it: `check` is told whether the tick came on time.

import { frameName } from '../decode/decode-to-frame.js';
import type { JpegFrame } from './messages.js';

/**
 * What a hung-decoder warning adds about the frame the decoder held: which camera's, and the fix when that camera's
 * frames are this slow to decode (a JPEG too large for the machine), not a decoder that hung. Before, the warning
 * named only the decoder, and a camera whose every frame timed out read as one the daemon could not keep up with.
 */
export function heldFrameNote(frame: JpegFrame | undefined): { on: string; fix: string } {
  if (!frame) return { on: '', fix: '' };
  return {
    on: ` on ${frameName(frame.cameraId, frame.seq)} (a JPEG of ${frame.jpeg.length} bytes)`,
    fix: `; if camera ${frame.cameraId}'s frames are this slow to decode (very large JPEGs), raise decodeTimeoutMs or use a faster decoder (jpeg-turbo)`,
  };
}

/** The most time between two checks (ms); less when the decode timeout is short (half of it). */
export const WATCHDOG_MS = 1_000;

export class Watchdog {
  readonly #timer: NodeJS.Timeout;
  #last = Date.now();

  /**
   * Calls `check` every min(WATCHDOG_MS, decodeTimeoutMs / 2) ms (the timer does not keep the process alive); a tick
   * is on time when it comes within `lateMs` of the one before (default: two intervals).
   */
  constructor(decodeTimeoutMs: number, check: (now: number, onTime: boolean) => void, lateMs?: number) {
    const interval = Math.min(WATCHDOG_MS, decodeTimeoutMs / 2);
    const late = lateMs ?? 2 * interval;
    this.#timer = setInterval(() => {
      const now = Date.now();
      const onTime = now - this.#last < late;
      this.#last = now;
      check(now, onTime);
    }, interval);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
