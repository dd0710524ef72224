// What the zeromq channel says of peers refused at the handshake (no key, another key file, a key pair that is not
// the daemon's). Rate-limited per cause (a small fixed set): once, then at most once per REFUSAL_REPEAT_MS with the
// count since; not every 100th (RepeatLog): a peer can be refused thousands of times a second, and anyone who reaches
// the port can do it. A peer hanging up during the handshake is most often the other end of such a refusal (whichever
// end finds the mismatch first hangs up; the other sees a broken pipe): it is said only when no refusal with a cause
// comes within HANG_UP_EXPLAINED_MS of it. Before, one decoder without the key was said twice at once, by turns
// ("refused a peer … that has no key …", then "a peer … hung up during the handshake (Broken pipe) …").

/** A kind of refused peer is said at most this often. */
export const REFUSAL_REPEAT_MS = 60_000;
/** A hang-up this close to a refusal with a cause (before or after it: a decoder tries again within ~1 s) is that one's. */
export const HANG_UP_EXPLAINED_MS = 2_000;

export class RefusalLog {
  readonly #say: (message: string) => void;
  readonly #seen = new Map<string, { atMs: number; since: number }>();
  /** When a refusal with a cause was last made (said or not). */
  #causedAt = Number.NEGATIVE_INFINITY;
  /** A hang-up waiting for a refusal with a cause to explain it; said when none comes. */
  #hangUp: NodeJS.Timeout | undefined;

  /** `say`: one line of the daemon's log (a warning). */
  constructor(say: (message: string) => void) {
    this.#say = say;
  }

  /** A peer refused for `cause` (a libzmq error code, or 'key' for the key check), `what` saying why and the fix. */
  refused(cause: string, what: string): void {
    this.#causedAt = Date.now();
    clearTimeout(this.#hangUp);
    this.#hangUp = undefined;
    this.#tell(cause, what);
  }

  /** A peer hung up during the handshake: said as `what` unless a refusal with a cause explains it. */
  hungUp(what: string): void {
    if (Date.now() - this.#causedAt < HANG_UP_EXPLAINED_MS || this.#hangUp !== undefined) return;
    this.#hangUp = setTimeout(() => {
      this.#hangUp = undefined;
      this.#tell('hang-up', what);
    }, HANG_UP_EXPLAINED_MS);
    this.#hangUp.unref();
  }

  /** Drops a hang-up not said yet (the channel is closing). */
  close(): void {
    clearTimeout(this.#hangUp);
    this.#hangUp = undefined;
  }

  #tell(cause: string, what: string): void {
    const now = Date.now();
    const seen = this.#seen.get(cause);
    const since = (seen?.since ?? 0) + 1;
    if (seen !== undefined && now - seen.atMs < REFUSAL_REPEAT_MS) {
      seen.since = since;
      return;
    }
    this.#seen.set(cause, { atMs: now, since: 0 });
    this.#say(`${what}${since > 1 ? ` (${since} refusals of this kind since last said)` : ''}`);
  }
}
