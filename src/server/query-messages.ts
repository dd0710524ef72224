// Messages between the HTTP server and its query worker (query-worker.ts), in one place.

import type { QueryParams } from '../store/query-counts.js';

/** What the worker is started with. */
export interface QueryWorkerData {
  readonly dbPath: string;
}

/** One /api/counts query: its parameters, already validated, and the most rows it may answer. */
export interface QueryRequest {
  readonly id: number;
  readonly params: QueryParams;
  readonly maxRows: number;
}

/** A query's failure as it crosses the thread: its kind decides the HTTP status (400, 500). */
export interface QueryFailure {
  readonly kind: 'query' | 'store' | 'internal';
  readonly code: string;
  readonly message: string;
}

/** The worker's answer: the formatted body (its buffer transferred, not copied), or why there is none. */
export type QueryReply = { readonly id: number; readonly ok: true; readonly body: Uint8Array } | { readonly id: number; readonly ok: false; readonly error: QueryFailure };
