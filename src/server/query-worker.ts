// Worker entry: runs /api/counts queries and formats their answers off the daemon's thread, so a long read
// (months of minutes, local-time buckets summed row by row) never holds up the frames being counted.

import { parentPort, workerData } from 'node:worker_threads';
import { QueryError, TrafficCounterError } from '../errors.js';
import { CountReader } from '../store/count-reader.js';
import { formatCounts } from '../store/format-counts.js';
import type { QueryFailure, QueryReply, QueryRequest, QueryWorkerData } from './query-messages.js';

const port = parentPort;
if (!port) throw new Error('query-worker.js runs as a worker thread of the HTTP server');
const reader = new CountReader((workerData as QueryWorkerData).dbPath);
const encoder = new TextEncoder();

function failure(err: unknown): QueryFailure {
  if (err instanceof QueryError) return { kind: 'query', code: err.code, message: err.message };
  if (err instanceof TrafficCounterError) return { kind: 'store', code: err.code, message: err.message };
  return { kind: 'internal', code: 'TC_ERR_INTERNAL', message: `internal error: ${(err as Error)?.message ?? String(err)}` };
}

port.on('message', (req: QueryRequest) => {
  let reply: QueryReply;
  try {
    const rows = reader.query(req.params, { maxRows: req.maxRows });
    const { format, byClass, timeZone } = req.params;
    const text = format === 'json' ? `${JSON.stringify({ rows })}\n` : formatCounts(rows, format, byClass, timeZone);
    reply = { id: req.id, ok: true, body: encoder.encode(text) };
  } catch (err) {
    reply = { id: req.id, ok: false, error: failure(err) };
  }
  port.postMessage(reply, reply.ok ? [reply.body.buffer as ArrayBuffer] : []);
});
