// What the zeromq channel says of peers refused at the handshake (no key, another key file, a key pair that is not
// the daemon's). Rate-limited per cause (a small fixed set): once, then at most once per REFUSAL_REPEAT_MS with the
// count since; not every 100th (RepeatLog): a peer can be refused thousands of times a second, and anyone who reaches
// the port can do it. A peer hanging up during the handshake is most often the other end of such a refusal (whichever
// end finds the mismatch first hangs up; the other sees a broken pipe): it is said only when no refusal with a cause
// comes within HANG_UP_EXPLAINED_MS after it, nor came within REFUSAL_REPEAT_MS before it. Before, one decoder without the key was said twice at once, by turns
// ("refused a peer … that has no key …", then "a peer … hung up during the handshake (Broken pipe) …").

/** A kind of refused peer is said at most this often. */
export const REFUSAL_REPEAT_MS = 60_000;
/** A hang-up this close before a refusal with a cause (a decoder tries again within ~1 s) is that one's; after one, see hungUp. */
export const HANG_UP_EXPLAINED_MS = 2_000;

export class RefusalLog {
  readonly #say: (message: string) => void;
  readonly #seen = new Map<string, { atMs: number; since: number }>();
  /** When a refusal with a cause was last made (said or not). */
  #causedAt = Number.NEGATIVE_INFINITY;
  /** A hang-up waiting for a refusal with a cause to explain it; said when none comes. */
  #hangUp: NodeJS.Timeout | undefined;
  /** Hang-ups while that one waits: counted in what is said of it (they were dropped, the count said too low). */
  #hangUpsWaiting = 0;

  /** `say`: one line of the daemon's log (a warning). */
  constructor(say: (message: string) => void) {
    this.#say = say;
  }

  /** A peer refused for `cause` (a libzmq error code, or 'key' for the key check), `what` saying why and the fix. */
  refused(cause: string, what: string): void {
    this.#causedAt = Date.now();
    clearTimeout(this.#hangUp);
    this.#hangUp = undefined;
    this.#hangUpsWaiting = 0;
    this.#tell(cause, what);
  }

  /** A peer hung up during the handshake: said as `what` unless a refusal with a cause explains it. */
  hungUp(what: string): void {
    // After a refusal with a cause, for as long as that cause's line stands (REFUSAL_REPEAT_MS), a hang-up is most
    // likely its other end too (a decoder tries again every 1–2 s, slower on a loaded machine): within 2 s only, both
    // lines were said on a busy machine.
    if (Date.now() - this.#causedAt < REFUSAL_REPEAT_MS) return;
    this.#hangUpsWaiting++;
    if (this.#hangUp !== undefined) return;
    this.#hangUp = setTimeout(() => {
      this.#hangUp = undefined;
      const n = this.#hangUpsWaiting;
      this.#hangUpsWaiting = 0;
      this.#tell('hang-up', what, n);
    }, HANG_UP_EXPLAINED_MS);
    this.#hangUp.unref();
  }

  /** Drops a hang-up not said yet (the channel is closing). */
  close(): void {
    clearTimeout(this.#hangUp);
    this.#hangUp = undefined;
    this.#hangUpsWaiting = 0;
  }

  /** Says `what` for `n` refusals of `cause`, or counts them toward the next line (at most one per REFUSAL_REPEAT_MS). */
  #tell(cause: string, what: string, n = 1): void {
    const now = Date.now();
    const seen = this.#seen.get(cause);
    const since = (seen?.since ?? 0) + n;
    if (seen !== undefined && now - seen.atMs < REFUSAL_REPEAT_MS) {
      seen.since = since;
      return;
    }
    this.#seen.set(cause, { atMs: now, since: 0 });
    this.#say(`${what}${since > 1 ? ` (${since} refusals of this kind since last said)` : ''}`);
  }
}
