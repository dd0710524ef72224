// Runs the HTTP API's count queries one at a time in a worker thread (query-worker.ts), so that the daemon's
// thread, which counts the frames, never waits for a read. Bounded: one query runs, at most `maxWaiting` wait
// (more are refused at once: TC_ERR_QUERY_BUSY), and one not answered `timeoutMs` after it came is refused
// (TC_ERR_QUERY_TIMEOUT); if it was running, its worker is stopped and a fresh one takes the next query.

import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { QueryError, QueryLimitError, TrafficCounterError } from '../errors.js';
import type { QueryParams } from '../store/query-counts.js';
import type { QueryFailure, QueryReply, QueryRequest, QueryWorkerData } from './query-messages.js';

const WORKER_FILE = fileURLToPath(new URL('./query-worker.js', import.meta.url));

export interface QueryRunnerOptions {
  /** The longest a query may take from its arrival (waiting included) before it is refused, in ms. */
  readonly timeoutMs: number;
  /** How many queries may wait while one runs; more are refused at once. */
  readonly maxWaiting: number;
}

interface Job {
  readonly request: QueryRequest;
  readonly resolve: (body: Uint8Array) => void;
  readonly reject: (err: Error) => void;
  timer?: NodeJS.Timeout;
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
  #nextId = 1;
  #closing: Promise<void> | undefined;

  constructor(dbPath: string, opts: QueryRunnerOptions) {
    this.#dbPath = dbPath;
    this.#opts = opts;
  }

  /** The query's answer, formatted as its `format` asks. */
  run(params: QueryParams, maxRows: number): Promise<Uint8Array> {
    if (this.#closing) return Promise.reject(new QueryLimitError('TC_ERR_QUERY_BUSY', 'the HTTP server is closing; retry once the daemon is back'));
    if (this.#running && this.#waiting.length >= this.#opts.maxWaiting) {
      return Promise.reject(
        new QueryLimitError('TC_ERR_QUERY_BUSY', `${this.#opts.maxWaiting + 1} count queries are already running or waiting; retry in a moment, or ask less often`),
      );
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      const job: Job = { request: { id: this.#nextId++, params, maxRows }, resolve, reject };
      job.timer = setTimeout(() => this.#expire(job), this.#opts.timeoutMs);
      this.#waiting.push(job);
      this.#next();
    });
  }

  #next(): void {
    if (this.#running || this.#closing) return;
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
    // 'error' is followed by 'exit'; whichever comes first retires the worker, the other is ignored.
    worker.on('error', (err) => {
      if (worker === this.#worker) this.#lose(`the query worker failed (${err.message})`);
    });
    worker.on('exit', (code) => {
      if (worker === this.#worker) this.#lose(`the query worker exited (code ${code})`);
    });
    this.#worker = worker;
    return worker;
  }

  #settle(job: Job): void {
    clearTimeout(job.timer);
    if (this.#running === job) this.#running = undefined;
  }

  #answer(reply: QueryReply): void {
    const job = this.#running;
    if (!job || job.request.id !== reply.id) return;
    this.#settle(job);
    if (reply.ok) job.resolve(reply.body);
    else job.reject(failureError(reply.error));
    this.#next();
  }

  #lose(message: string): void {
    this.#worker = undefined;
    const job = this.#running;
    if (job) {
      this.#settle(job);
      job.reject(new TrafficCounterError('TC_ERR_INTERNAL', `${message}; the query was not answered, retry it`));
    }
    this.#next();
  }

  #expire(job: Job): void {
    const timedOut = new QueryLimitError(
      'TC_ERR_QUERY_TIMEOUT',
      `the query was not answered within the ${this.#opts.timeoutMs / 1000} s allowed (waiting included) and was stopped; narrow it with from/to, camera or line, or use a coarser bucket (hour, day), or run it with traffic-counter query, which has no limit`,
    );
    if (job === this.#running) {
      this.#settle(job);
      // Stopped mid-read: a fresh worker takes the next query. The stopped one is not waited for.
      const worker = this.#worker;
      this.#worker = undefined;
      void worker?.terminate();
      job.reject(timedOut);
      this.#next();
      return;
    }
    // Queries run in the order they came, so one expires while waiting only beside the one before it.
    const at = this.#waiting.indexOf(job);
    if (at === -1) return;
    this.#waiting.splice(at, 1);
    job.reject(timedOut);
  }

  /** Refuses waiting and running queries and stops the worker. Safe to call twice. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const closing = new QueryLimitError('TC_ERR_QUERY_BUSY', 'the HTTP server is closing; retry once the daemon is back');
      for (const job of [...(this.#running ? [this.#running] : []), ...this.#waiting.splice(0)]) {
        this.#settle(job);
        job.reject(closing);
      }
      const worker = this.#worker;
      this.#worker = undefined;
      await worker?.terminate();
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
