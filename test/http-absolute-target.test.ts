// A request target in absolute form (`GET http://host:port/path`), which HTTP/1.1 servers must accept
// (RFC 9112 3.2.2), is answered for its path, as the same request in origin form is.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountStore } from '../dist/src/store/index.js';
import { tempDir } from './helpers/temp-dir.js';

/** Sends one raw request (Connection: close) and returns the status and body of the answer. */
function raw(port: number, request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0), body: out.slice(out.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
    socket.write(request);
  });
}

test('GET http://127.0.0.1:PORT/api/health and /api/counts?… are answered for their path, not 404', async () => {
  const dbPath = path.join(tempDir('tc-http-absolute-'), 'counts.db');
  CountStore.open(dbPath).close();
  expect(fs.existsSync(dbPath)).toBe(true);
  const server = await startHttpServer({ dbPath });
  onTestFinished(() => server.close());
  const authority = `127.0.0.1:${server.port}`;
  const get = (target: string) => raw(server.port, `GET ${target} HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);

  const health = await get(`http://${authority}/api/health`);
  expect(health.status).toBe(200);
  expect(JSON.parse(health.body)).toMatchObject({ ok: true });

  const counts = await get(`http://${authority}/api/counts?bucket=day&format=json`);
  expect(counts.status).toBe(200);
  expect(JSON.parse(counts.body)).toEqual({ rows: [] });

  // No path at all is the root, as in a URL: the dashboard.
  const root = await get(`HTTP://${authority}`);
  expect(root.status).toBe(200);
  expect(root.body).toContain('<html');

  const missing = await get(`http://${authority}/nope`);
  expect(missing.status).toBe(404);
  expect(JSON.parse(missing.body).error.message).toMatch(/^"\/nope": no such endpoint/);
});
