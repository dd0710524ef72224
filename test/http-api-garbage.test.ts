// The HTTP server survives hostile input: bad percent-encoding, huge URLs, odd paths and methods, raw junk.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountStore } from '../dist/src/store/index.js';

async function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-http-garbage-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const dbPath = path.join(dir, 'counts.db');
  CountStore.open(dbPath).close();
  const server = await startHttpServer({ dbPath });
  onTestFinished(() => server.close());
  return server;
}

/** Sends raw bytes and returns whatever the server answers before closing. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(out) : reject(err)));
    socket.write(data);
  });
}

async function healthy(url: string): Promise<void> {
  const res = await fetch(`${url}/api/health`);
  expect(res.status).toBe(200);
}

test('garbage URLs get 4xx answers and the server keeps serving', async () => {
  const server = await setup();
  const cases: [string, number][] = [
    ['/api/counts?bucket=%ZZ', 400],
    ['/api/counts?bucket=hour&camera=%E0%A4%A', 400],
    ['/api/counts?%', 400],
    ['/api/counts?bucket=hour&from=%00', 400],
    ['/api/counts?' + 'x'.repeat(10_000), 414],
    ['/%2e%2e/%2e%2e/etc/passwd', 404],
    ['//evil.example/api/counts', 404],
    ['/api/counts/../../x', 404],
    ['/nope', 404],
  ];
  for (const [target, status] of cases) {
    const res = await fetch(`${server.url}${target}`);
    expect({ target, status: res.status }).toEqual({ target, status });
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.message.length).toBeGreaterThan(0);
  }
  await healthy(server.url);
});

test('methods other than GET and HEAD get 405 with an Allow header; HEAD has no body', async () => {
  const server = await setup();
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
    const res = await fetch(`${server.url}/api/counts?bucket=hour`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  }
  const head = await fetch(`${server.url}/api/counts?bucket=hour`, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe('');
  await healthy(server.url);
});

test('malformed HTTP from a raw socket is answered 400 and does not take the server down', async () => {
  const server = await setup();
  const answers = await Promise.all([
    raw(server.port, 'NOT HTTP AT ALL\r\n\r\n'),
    raw(server.port, 'GET /api/counts?bucket=hour HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n'),
    raw(server.port, `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
  ]);
  for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 4\d\d/);
  await healthy(server.url);
});

test('a URL beyond the HTTP parser limit (16 KB) gets 431 with a message that says what to shorten', async () => {
  const server = await setup();
  const res = await fetch(`${server.url}/api/counts?bucket=hour&camera=${'a'.repeat(20_000)}`);
  expect(res.status).toBe(431);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('TC_ERR_QUERY');
  expect(body.error.message).toMatch(/shorten/);
  await healthy(server.url);
});
