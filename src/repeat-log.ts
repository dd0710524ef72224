// When the log says a problem that keeps happening (a camera down, frames that fail to decode) again: not at every
// poll or frame, which would bury everything else, and not never again, which would leave a log reader of hours
// later to think it had stopped.

/** A problem said once is said again at every 100th time since, or the first time after 10 minutes. */
export const REPEAT_EVERY = 100;
export const REPEAT_AFTER_MS = 10 * 60_000;

/**
 * One per thing that fails (a camera's source, its decoding): say(code) tells whether to log this occurrence, and
 * how many times the problem came since it was last said (this one included; 1 for a new code). A new code is
 * always said; so is the first after reset().
 */
export class RepeatLog {
  #code: string | null = null;
  #atMs = 0;
  #since = 0;

  say(code: string, now = Date.now()): { readonly say: boolean; readonly since: number } {
    this.#since++;
    if (this.#code === code && this.#since < REPEAT_EVERY && now - this.#atMs < REPEAT_AFTER_MS) return { say: false, since: this.#since };
    // Another problem: the count so far was of the one before.
    const since = this.#code === code ? this.#since : 1;
    this.#code = code;
    this.#atMs = now;
    this.#since = 0;
    return { say: true, since };
  }

  /** The problem is over (the camera is back): the next one is said whatever its code. */
  reset(): void {
    this.#code = null;
    this.#since = 0;
  }
}
