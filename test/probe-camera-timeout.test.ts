// run --camera URL probes the camera for its frame size, with a time limit: a camera that only answers errors
// must end the probe with a message, even when garbage collection runs meanwhile (it used to collect the
// timeout signal, and `run --camera` then waited silently forever).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it, onTestFinished } from 'vitest';
import { probeCameraSize } from '../dist/src/source/probe-camera-size.js';
import { unusedPort } from './helpers/source-http.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('gives up after its time limit, naming the camera error, while garbage is collected', async () => {
  // 503 (busy): an answer that may change, so the probe waits for its time limit.
  const server = createServer((_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('busy'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
  const collector = setInterval(gc, 50);
  onTestFinished(() => clearInterval(collector));

  const started = Date.now();
  const outcome = await Promise.race([
    probeCameraSize(url, 1_000).then(
      () => 'resolved',
      (err: Error & { code?: string }) => `${err.message} [${err.code}]`,
    ),
    new Promise<string>((r) => setTimeout(() => r('still waiting after 8 s'), 8_000)),
  ]);
  // The camera's own error, with its code: not a network failure.
  expect(outcome).toMatch(/no frame within 1 s, the last attempt: .*HTTP 503.* \[TC_ERR_SOURCE_HTTP\]$/);
  expect(Date.now() - started).toBeLessThan(5_000);
});

it('tells a wrong path (HTTP 404) at once, as the camera error itself', async () => {
  const server = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
  // With a limit far beyond the test's own timeout: only an answer told at once passes.
  const err = await probeCameraSize(url, 600_000).then(() => undefined, (e: Error & { code?: string }) => e);
  expect(err?.code).toBe('TC_ERR_SOURCE_HTTP');
  expect(err?.message).toMatch(/answered HTTP 404 Not Found; check the path in the camera URL/);
});

it('tells a redirect loop at once', async () => {
  const server = createServer((req, res) => res.writeHead(302, { location: req.url === '/a.jpg' ? '/b.jpg' : '/a.jpg' }).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a.jpg`;
  const err = await probeCameraSize(url, 600_000).then(() => undefined, (e: Error & { code?: string }) => e);
  expect(err?.code).toBe('TC_ERR_SOURCE_HTTP');
  expect(err?.message).toContain('was redirected more than 5 times');
});

it('a camera that refuses connections: one piece of advice, the last error\'s own, after the time limit', async () => {
  const url = `http://127.0.0.1:${await unusedPort()}/snapshot.jpg`;
  const err = await probeCameraSize(url, 1_000).then(() => undefined, (e: Error & { code?: string }) => e);
  // Before: "…; check the host and port …); check the URL and that the camera is reachable", two fixes in a row.
  expect(err?.message).toMatch(new RegExp(`^--camera ${url.replace(/[.]/g, '\\.')}: no frame within 1 s, the last attempt: .*check the host and port`));
  expect(err?.message).not.toContain('check the URL and that the camera is reachable');
});
