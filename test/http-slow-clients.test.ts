// A client that does not read its /api/counts answer must not pin it in the server's memory for as long as it
// stays connected: at most maxSendingAnswers answers are sent at once (more queries get 503 busy, saying why), and
// one whose client takes none of it for sendStallMs is cut off. A slow client that keeps reading gets it all.
import net from 'node:net';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountStore } from '../dist/src/store/index.js';
import { tempDir } from './helpers/temp-dir.js';

const T0 = Date.UTC(2026, 10, 1);
const MINUTES = 60 * 1440;
/** 60 days of minutes as JSON: about 27 MB, more than loopback's socket buffers take from a client reading nothing. */
const BIG = '/api/counts?bucket=minute&format=json';

function bigDb(): string {
  const dbPath = path.join(tempDir('tc-http-slow-'), 'counts.db');
  const store = CountStore.open(dbPath);
  store.registerCamera({ id: 'cam1', pollIntervalMs: 60_000, lines: [{ id: 'a', from: [0, 0], to: [10, 0] }] });
  for (let m = 0; m < MINUTES; m++) store.addFrameTicks('cam1', T0 + m * 60_000, { expected: 1, received: 1 });
  store.close();
  return dbPath;
}

/**
 * A client that sends its request and reads nothing until resumed; `closed` resolves with the body bytes it got and
 * the Content-Length it was promised.
 */
function nonReader(port: number, target: string) {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  onTestFinished(() => void socket.destroy());
  let head = '';
  let got = 0;
  const closed = new Promise<{ body: number; promised: number }>((resolve) =>
    socket.on('close', () => {
      const end = head.indexOf('\r\n\r\n') + 4;
      resolve({ body: got - end, promised: Number(/content-length: (\d+)/i.exec(head)?.[1]) });
    }),
  );
  socket.on('data', (d: Buffer) => {
    if (head.length < 1024) head += d.subarray(0, 1024).toString('latin1');
    got += d.length;
  });
  socket.on('error', () => {});
  socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  return { socket, closed };
}

async function getJson(url: string): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('answers being sent are bounded: beyond them 503 busy saying why; a client reading nothing is cut off', async () => {
  const server = await startHttpServer({ dbPath: bigDb(), maxSendingAnswers: 2, sendStallMs: 4_000 });
  onTestFinished(() => server.close());
  const queries = async () => (await getJson(`${server.url}/api/health`)).body.queries;

  const stuck = [nonReader(server.port, BIG), nonReader(server.port, BIG)];
  await until(async () => (await queries()).sending === 2, 'two answers being sent');

  const refused = await getJson(`${server.url}/api/counts?bucket=day`);
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(refused.body.error).toEqual({ code: 'TC_ERR_QUERY_BUSY', message: expect.stringMatching(/^2 \/api\/counts answers are still being sent to clients that have not read them yet.*retry in a moment/) });
  expect(await queries()).toMatchObject({ sending: 2, busy: 1, stalled: 0 });

  // Neither client reads: after 4 s without progress both connections are cut, and their answers let go.
  await until(async () => (await queries()).stalled === 2, 'the two answers cut off');
  expect(await queries()).toMatchObject({ sending: 0, stalled: 2 });
  for (const s of stuck) {
    s.socket.resume();
    const { body, promised } = await s.closed;
    expect(promised).toBeGreaterThan(20_000_000);
    expect(body).toBeLessThan(promised);
  }
  const day = await getJson(`${server.url}/api/counts?bucket=day`);
  expect(day.status).toBe(200);
  expect(day.body.rows).toHaveLength(60);
}, 30_000);

test('a slow client that keeps reading gets its whole answer, though it takes longer than the stall limit', async () => {
  const server = await startHttpServer({ dbPath: bigDb(), maxSendingAnswers: 1, sendStallMs: 300 });
  onTestFinished(() => server.close());
  const slow = nonReader(server.port, BIG);
  // Reads for 10 ms in every 150 ms.
  const start = performance.now();
  const tick = setInterval(() => {
    slow.socket.resume();
    setTimeout(() => slow.socket.pause(), 10);
  }, 150);
  onTestFinished(() => clearInterval(tick));
  const { body, promised } = await slow.closed;
  clearInterval(tick);
  expect(performance.now() - start).toBeGreaterThan(300);
  expect(promised).toBeGreaterThan(20_000_000);
  expect(body).toBe(promised);
  expect((await getJson(`${server.url}/api/health`)).body.queries).toMatchObject({ stalled: 0, sending: 0 });
}, 30_000);
