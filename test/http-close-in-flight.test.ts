// Closing the HTTP server answers the count queries it holds (running or waiting) with 503 "the HTTP server is
// closing" before it cuts the connections: it used to cut them first, and their clients saw the connection reset.
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountStore } from '../dist/src/store/index.js';
import { tempDir } from './helpers/temp-dir.js';

type Outcome = { status: number; body: string } | { error: string };

function get(url: string, agent: http.Agent | false = false): Promise<Outcome> {
  return new Promise((resolve) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
      })
      .on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
  });
}

/** A database whose reads wait on a lock held here: the first query stays running until the lock goes. */
function lockedDb(): string {
  const dbPath = path.join(tempDir('tc-http-close-'), 'counts.db');
  CountStore.open(dbPath).close();
  const db = new Database(dbPath);
  db.pragma('journal_mode = DELETE');
  db.exec('BEGIN EXCLUSIVE');
  onTestFinished(() => {
    db.exec('ROLLBACK');
    db.close();
  });
  return dbPath;
}

test('queries running and waiting when the server closes get 503 "the HTTP server is closing", not a reset', async () => {
  const server = await startHttpServer({ dbPath: lockedDb() });
  onTestFinished(() => server.close());
  const agent = new http.Agent({ keepAlive: true });
  onTestFinished(() => agent.destroy());

  const pending = [1, 2, 3].map(() => get(`${server.url}/api/counts?bucket=day`, agent));
  // An idle keep-alive connection too: it must not hold close() open.
  expect(await get(`${server.url}/api/health`, agent)).toMatchObject({ status: 200 });
  let queries: { running: number; waiting: number } | undefined;
  for (let i = 0; i < 100 && !(queries?.running === 1 && queries.waiting === 2); i++) {
    await new Promise((r) => setTimeout(r, 20));
    queries = JSON.parse(((await get(`${server.url}/api/health`)) as { body: string }).body).queries;
  }
  expect(queries).toMatchObject({ running: 1, waiting: 2 });

  const start = performance.now();
  await server.close();
  expect(performance.now() - start).toBeLessThan(3_000);
  for (const outcome of await Promise.all(pending)) {
    expect(outcome).toMatchObject({ status: 503 });
    const { error } = JSON.parse((outcome as { body: string }).body);
    expect(error).toEqual({ code: 'TC_ERR_QUERY_BUSY', message: expect.stringContaining('the HTTP server is closing') });
  }
  // Closed: no new connection is taken.
  expect(await get(`${server.url}/api/health`)).toMatchObject({ error: 'ECONNREFUSED' });
});
