// Fixtures for frame-source tests: an in-process camera (node:http on 127.0.0.1, random port, closed after
// the test), small real JPEGs, and helpers to pull frames or the first error from a source.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import jpeg from 'jpeg-js';
import { onTestFinished } from 'vitest';
import type { SourceError } from '../../dist/src/errors.js';
import type { FrameSource } from '../../dist/src/source/frame-source.js';

export interface TestCamera {
  /** http://127.0.0.1:port/snapshot.jpg */
  readonly url: string;
  /** Requests received so far, with their headers. */
  readonly requests: IncomingMessage[];
}

/** Starts a camera whose handler gets the request number (0-based); closed (connections cut) after the test. */
export async function startCamera(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
  path = '/snapshot.jpg',
): Promise<TestCamera> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res, requests.length - 1);
  });
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${path}`, requests };
}

/** A port nothing listens on (bound once, then released). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A real 16x16 JPEG whose pixels depend on `shade`, so different shades give different bytes. */
export function makeJpeg(shade: number): Buffer {
  const width = 16;
  const height = 16;
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = shade & 255;
    data[i * 4 + 1] = (shade * 7 + i) & 255;
    data[i * 4 + 2] = (shade * 13) & 255;
    data[i * 4 + 3] = 255;
  }
  return Buffer.from(jpeg.encode({ data, width, height }, 90).data);
}

/** Pulls `n` frames, then ends the iteration (so the source stops polling). */
export async function take<T>(iter: AsyncIterableIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  if (n <= 0) return out;
  for await (const item of iter) {
    out.push(item);
    if (out.length >= n) break;
  }
  return out;
}

/**
 * Starts a source with `start(onError)` and resolves with the first error it reports. A source keeps retrying after
 * an error, so it is stopped there; closed after the test.
 */
export async function firstError(start: (onError: (err: SourceError) => void) => FrameSource): Promise<SourceError> {
  const ac = new AbortController();
  let error: SourceError | undefined;
  const source = start((err) => {
    error ??= err;
    ac.abort();
  });
  onTestFinished(() => source.close());
  await take(source.frames(ac.signal), 1);
  return error!;
}

/** Resolves once `check()` is true, testing every few ms (the test's own timeout bounds the wait). */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}
