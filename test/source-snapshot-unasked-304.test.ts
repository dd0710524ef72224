// HTTP 304 Not Modified says an image the client holds is still current, and only answers a conditional request
// (If-None-Match, If-Modified-Since). A camera or proxy answering it to a plain GET, before any image, was taken as
// "unchanged": a camera that never sent a picture read 75.9% uptime over its first minute (received frames, no
// error, status "learning" then "frozen"), where an outage must read 0%. It is now the camera's error.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { take } from './helpers/source-http.js';

it('a 304 to a request that asked for no comparison is an error, not an unchanged image', async () => {
  let unchanged = 0;
  const server = createServer((_req, res) => res.writeHead(304).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
  const ac = new AbortController();
  const errors: SourceError[] = [];
  const source = new HttpSnapshotSource({
    cameraId: 'cam1',
    url,
    pollIntervalMs: 10,
    timeoutMs: 2_000,
    maxBodyBytes: 1 << 20,
    backoffInitialMs: 10,
    backoffMaxMs: 20,
    onError: (err) => {
      errors.push(err);
      if (errors.length === 2) ac.abort();
    },
    onUnchanged: () => unchanged++,
  });
  onTestFinished(() => source.close());
  const stop = setTimeout(() => ac.abort(), 3_000); // without the errors, within the test's time
  onTestFinished(() => clearTimeout(stop));
  await take(source.frames(ac.signal), 1);
  expect(unchanged).toBe(0);
  expect(errors[0]?.code).toBe('TC_ERR_SOURCE_HTTP');
  expect(errors[0]?.message).toBe(
    `camera cam1: GET ${url} answered HTTP 304 Not Modified to a request that asked for no comparison (it has sent no image with an ETag or Last-Modified); check the camera URL, and any cache or proxy in between`,
  );
  expect(source.stats()).toMatchObject({ notModified: 0, consecutiveFailures: 2 });
});
