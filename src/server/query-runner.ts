// Runs the HTTP API's count queries one at a time in a worker thread (query-worker.ts), so that the daemon's
// thread, which counts the frames, never waits for a read. Bounded: one query runs, at most `maxWaiting` wait
// (more are refused at once: TC_ERR_QUERY_BUSY), and one not answered `timeoutMs` after it came is refused
// (TC_ERR_QUERY_TIMEOUT). A query given up (timed out, or its client gone) while it runs has its worker
// terminated; SQLite cannot be stopped inside one step (a GROUP BY over months of minutes), so the next query
// waits until that worker has exited and runs on a fresh one: never two reads at once.

import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { QueryError, QueryLimitError, TrafficCounterError } from '../errors.js';
import type { QueryParams } from '../store/query-counts.js';
import type { QueryFailure, QueryReply, QueryRequest, QueryWorkerData } from './query-messages.js';

const WORKER_FILE = fileURLToPath(new URL('./query-worker.js', import.meta.url));
/**
 * close() waits this long at most for a terminated worker still inside a read. The process's exit still waits for
 * that SQLite step to end (Node joins its worker threads), but the daemon's own shutdown (flushing counts) does not.
 */
const CLOSE_WAIT_MS = 1_000;

export interface QueryRunnerOptions {
  /** The longest a query may take from its arrival (waiting included) before it is refused, in ms. */
  readonly timeoutMs: number;
  /** How many queries may wait while one runs; more are refused at once. */
  readonly maxWaiting: number;
}

/** What the runner holds now, and what became of the queries it refused or gave up since it started. */
export interface QueryRunnerStats {
  /** 1 while a query runs, or while a worker terminated mid-read has not exited yet. */
  readonly running: number;
  readonly waiting: number;
  readonly answered: number;
  /** Refused at once: as many running or waiting as allowed (TC_ERR_QUERY_BUSY). */
  readonly busy: number;
  readonly timedOut: number;
  /** Given up because the client left before its answer. */
  readonly abandoned: number;
}

interface Job {
  readonly request: QueryRequest;
  readonly resolve: (body: Uint8Array) => void;
  readonly reject: (err: Error) => void;
  timer?: NodeJS.Timeout;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** What a query gets once the server is closing. */
function closingError(): QueryLimitError {
  return new QueryLimitError('TC_ERR_QUERY_BUSY', 'the HTTP server is closing; retry once the daemon is back');
}

/** The error a worker's failure stands for on this side of the thread. */
function failureError(f: QueryFailure): Error {
  return f.kind === 'query' ? new QueryError(f.message) : new TrafficCounterError(f.code, f.message);
}

export class QueryRunner implements AsyncDisposable {
  readonly #dbPath: string;
  readonly #opts: QueryRunnerOptions;
  readonly #waiting: Job[] = [];
  #running: Job | undefined;
  #worker: Worker | undefined;
  /** A worker terminated mid-read, until it has exited; no query starts meanwhile. */
  #retiring: Promise<void> | undefined;
  #nextId = 1;
  #answered = 0;
  #busy = 0;
  #timedOut = 0;
  #abandoned = 0;
  #closing: Promise<void> | undefined;

  constructor(dbPath: string, opts: QueryRunnerOptions) {
    this.#dbPath = dbPath;
    this.#opts = opts;
  }

  stats(): QueryRunnerStats {
    return {
      running: this.#running || this.#retiring ? 1 : 0,
      waiting: this.#waiting.length,
      answered: this.#answered,
      busy: this.#busy,
      timedOut: this.#timedOut,
      abandoned: this.#abandoned,
    };
  }

  /**
   * The query's answer, formatted as its `format` asks. `signal`: the client is gone; the query is dropped (and
   * its read abandoned if it runs) and the promise rejects with the signal's reason.
   */
  run(params: QueryParams, maxRows: number, signal?: AbortSignal): Promise<Uint8Array> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.#closing) return Promise.reject(closingError());
    if ((this.#running || this.#retiring) && this.#waiting.length >= this.#opts.maxWaiting) {
      this.#busy++;
      return Promise.reject(
        new QueryLimitError('TC_ERR_QUERY_BUSY', `${this.#opts.maxWaiting + 1} count queries are already running or waiting; retry in a moment, or ask less often`),
      );
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      const job: Job = { request: { id: this.#nextId++, params, maxRows }, resolve, reject, signal };
      job.timer = setTimeout(() => {
        this.#timedOut++;
        this.#giveUp(job, this.#timeoutError());
      }, this.#opts.timeoutMs);
      if (signal) {
        job.onAbort = () => {
          this.#abandoned++;
          this.#giveUp(job, signal.reason as Error);
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.#waiting.push(job);
      this.#next();
    });
  }

  #timeoutError(): QueryLimitError {
    return new QueryLimitError(
      'TC_ERR_QUERY_TIMEOUT',
      `the query was not answered within the ${this.#opts.timeoutMs / 1000} s allowed (waiting included) and was given up; narrow it with from/to, camera or line, or use a coarser bucket (hour, day), or run it with traffic-counter query, which has no limit`,
    );
  }

  #next(): void {
    if (this.#running || this.#retiring || this.#closing) return;
    const job = this.#waiting.shift();
    if (!job) return;
    this.#running = job;
    this.#startedWorker().postMessage(job.request);
  }

  #startedWorker(): Worker {
    if (this.#worker) return this.#worker;
    const data: QueryWorkerData = { dbPath: this.#dbPath };
    const worker = new Worker(WORKER_FILE, { workerData: data });
    // An idle worker must not keep the process alive; a pending query's HTTP request does that.
    worker.unref();
    worker.on('message', (reply: QueryReply) => {
      if (worker === this.#worker) this.#answer(reply);
    });
    worker.on('error', (err) => {
      if (worker !== this.#worker) return;
      this.#fail(`the query worker failed (${err.message})`);
      this.#retire();
    });
    worker.on('exit', (code) => {
      if (worker !== this.#worker) return;
      this.#worker = undefined;
      this.#fail(`the query worker exited (code ${code})`);
      this.#next();
    });
    this.#worker = worker;
    return worker;
  }

  /** Takes the job out of the runner: its timer and abort listener go. */
  #settle(job: Job): void {
    clearTimeout(job.timer);
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if (this.#running === job) this.#running = undefined;
  }

  #answer(reply: QueryReply): void {
    const job = this.#running;
    if (!job || job.request.id !== reply.id) return;
    this.#settle(job);
    this.#answered++;
    if (reply.ok) job.resolve(reply.body);
    else job.reject(failureError(reply.error));
    this.#next();
  }

  /** The running query fails with the worker. */
  #fail(message: string): void {
    const job = this.#running;
    if (!job) return;
    this.#settle(job);
    job.reject(new TrafficCounterError('TC_ERR_INTERNAL', `${message}; the query was not answered, retry it`));
  }

  /** Terminates the worker; the next query waits for it to exit, then gets a fresh one. */
  #retire(): void {
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.#retiring = exited.then(() => {
      this.#retiring = undefined;
      this.#next();
    });
    void worker.terminate();
  }

  /** A query timed out or its client left: refused, and if it was running, its read abandoned. */
  #giveUp(job: Job, err: Error): void {
    if (job === this.#running) {
      this.#settle(job);
      this.#retire();
      job.reject(err);
      return;
    }
    const at = this.#waiting.indexOf(job);
    if (at === -1) return;
    this.#waiting.splice(at, 1);
    this.#settle(job);
    job.reject(err);
  }

  /** Refuses waiting and running queries and terminates the worker. Safe to call twice. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const closing = closingError();
      for (const job of [...(this.#running ? [this.#running] : []), ...this.#waiting.splice(0)]) {
        this.#settle(job);
        job.reject(closing);
      }
      this.#retire();
      // A worker inside one long SQLite step exits only when the step ends: not waited for past CLOSE_WAIT_MS.
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
        timer.unref();
      });
      await Promise.race([this.#retiring, limit]);
      clearTimeout(timer);
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
