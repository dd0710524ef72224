// Nothing listening on the camera's port: TC_ERR_SOURCE_NETWORK through onError, with backoff, no throw.
import { createServer, type AddressInfo, type Server } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { take, unusedPort } from './helpers/source-http.js';

/** A snapshot source polling fast, retrying fast, its errors to `onError`. */
function snapshotSource(url: string, onError: (err: SourceError) => void): HttpSnapshotSource {
  return new HttpSnapshotSource({ cameraId: 'cam1', url, pollIntervalMs: 10, timeoutMs: 2_000, maxBodyBytes: 1 << 20, backoffInitialMs: 10, backoffMaxMs: 20, onError });
}

/** The first error of a snapshot source polling `server` (a raw TCP server, started here on loopback). */
async function firstError(server: Server): Promise<SourceError> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  const ac = new AbortController();
  const errors: SourceError[] = [];
  const source = snapshotSource(`http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`, (err) => {
    errors.push(err);
    ac.abort();
  });
  onTestFinished(() => source.close());
  await take(source.frames(ac.signal), 1);
  return errors[0]!;
}

describe('unreachable snapshot camera', () => {
  it('reports connection refused as TC_ERR_SOURCE_NETWORK and keeps retrying until aborted', async () => {
    const url = `http://127.0.0.1:${await unusedPort()}/snapshot.jpg`;
    const ac = new AbortController();
    const errors: SourceError[] = [];
    const source = snapshotSource(url, (err) => {
      errors.push(err);
      if (errors.length === 3) ac.abort();
    });
    onTestFinished(() => source.close());

    const frames = await take(source.frames(ac.signal), 1);

    expect(frames).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual(['TC_ERR_SOURCE_NETWORK', 'TC_ERR_SOURCE_NETWORK', 'TC_ERR_SOURCE_NETWORK']);
    expect(errors[0].message).toContain(url);
    expect(errors[0].message).toContain('ECONNREFUSED');
    expect(source.stats().consecutiveFailures).toBe(3);
    expect(source.stats().nextRetryMs).toBeGreaterThan(0);
  });

  it('tells headers too large to read (a web page, not a camera image) from a camera not reached', async () => {
    // Before: "failed: Headers Overflow Error (UND_ERR_HEADERS_OVERFLOW); check the host and port … on the network".
    const server = createServer((sock) => {
      sock.on('error', () => {});
      sock.once('data', () => sock.write(`HTTP/1.1 200 OK\r\ncontent-type: image/jpeg\r\nx-padding: ${'a'.repeat(100_000)}\r\n\r\n`));
    });
    const error = await firstError(server);
    expect(error.code).toBe('TC_ERR_SOURCE_NETWORK');
    expect(error.message).toMatch(/answered with HTTP headers over 16 KiB \(.*UND_ERR_HEADERS_OVERFLOW.*\), which no camera's image answer has; check that the URL is the camera's snapshot or stream URL/);
    expect(error.message).not.toContain('check the host and port');
  });

  it('tells an image cut short (the camera answered, then closed mid-body) from a camera not reached', async () => {
    // 100 of the 5,000 bytes promised, then the connection closes.
    const server = createServer((sock) => {
      sock.once('data', () => {
        sock.write(`HTTP/1.1 200 OK\r\ncontent-type: image/jpeg\r\ncontent-length: 5000\r\n\r\n${'x'.repeat(100)}`);
        setTimeout(() => sock.destroy(), 20);
      });
    });
    const error = await firstError(server);
    expect(error.code).toBe('TC_ERR_SOURCE_NETWORK');
    expect(error.message).toMatch(/answered HTTP 200, then the connection broke after 100 of 5000 bytes of the image \(.*\); the camera or a proxy cut it short/);
    expect(error.message).not.toContain('check the host and port');
  });

  // The connection was accepted, so the host is right: what to check is the scheme and port (an https:// camera
  // asked over http://, an RTSP port) or the camera's load, not "the host and port and that it is on the network".
  it.each([
    ['closes the connection without answering', (sock: import('node:net').Socket) => sock.once('data', () => sock.destroy()), /failed: the camera accepted the connection, then closed it without answering \(other side closed.*\); check the scheme and port in the camera URL \(an https:\/\/ camera asked over http:\/\/\?\) and the camera's load/],
    ['answers with bytes that are not HTTP (a TLS alert)', (sock: import('node:net').Socket) => sock.once('data', () => sock.end(Buffer.from([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46]))), /was answered with something that is not HTTP \(.*\); check the scheme and port in the camera URL: an https:\/\/ camera asked over http:\/\/, or a port of another service/],
  ])('tells a camera that %s to check the scheme and port, not the host', async (_what, serve, expected) => {
    const server = createServer(serve);
    const error = await firstError(server);
    expect(error.code).toBe('TC_ERR_SOURCE_NETWORK');
    expect(error.message).toMatch(expected);
    expect(error.message).not.toContain('check the host and port');
  });
});
