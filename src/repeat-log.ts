// When the log says a problem that keeps happening (a camera down, frames that fail to decode) again: not at every
// poll or frame, which would bury everything else, and not never again, which would leave a log reader of hours
// later to think it had stopped.

/** A code said once is said again at every 100th time since, or the first time after 10 minutes; each on its own count. */
export const REPEAT_EVERY = 100;
export const REPEAT_AFTER_MS = 10 * 60_000;

/**
 * Codes remembered at most. The error codes are a small fixed set, so this is never reached; the bound keeps the
 * state small even so: past it the least recently seen code is forgotten (said again as new when it comes back).
 */
export const REPEAT_CODES = 32;

/**
 * One per thing that fails (a camera's source, its decoding), with each code counted apart (a "code" is what the
 * caller says a cause is: the daemon gives a camera's HTTP errors their status too), so that two errors by
 * turns (a camera answering 503 and timing out) are each said once, not every time: say(code) tells whether to
 * log this occurrence, and how many times that code came since it was last said (this one included; 1 for a code
 * not seen before). A code's first occurrence is always said; so is the first of any code after reset().
 */
export class RepeatLog {
  // Per code: when it was last said and how many times it came since. In the order of their latest occurrence,
  // least recent first (a Map keeps insertion order), so the first is the one to forget.
  readonly #codes = new Map<string, { atMs: number; since: number }>();

  say(code: string, now = Date.now()): { readonly say: boolean; readonly since: number } {
    const seen = this.#codes.get(code);
    this.#codes.delete(code);
    const since = (seen?.since ?? 0) + 1;
    if (seen && since < REPEAT_EVERY && now - seen.atMs < REPEAT_AFTER_MS) {
      this.#codes.set(code, { atMs: seen.atMs, since });
      return { say: false, since };
    }
    this.#codes.set(code, { atMs: now, since: 0 });
    if (this.#codes.size > REPEAT_CODES) {
      const [oldest] = this.#codes.keys();
      this.#codes.delete(oldest);
    }
    return { say: true, since };
  }

  /** The problem is over (the camera is back): the next one is said whatever its code, counted afresh. */
  reset(): void {
    this.#codes.clear();
  }
}
