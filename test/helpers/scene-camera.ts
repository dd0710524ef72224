// A snapshot camera on loopback serving the simulated road (seed 7), a new picture at each request, 20 in turn;
// closed when the test ends. And `until`, for waiting on a live daemon.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { createScene } from '../../dist/src/source/camera-sim/index.js';

export const scene = createScene({ seed: 7, scenario: 'default' });

/** Starts the camera; resolves to its URL (path /cam1.jpg). */
export async function serveSceneCamera(): Promise<string> {
  const frames = Array.from({ length: 20 }, (_, k) => scene.encodeJpeg(k / 2).jpeg);
  let next = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(frames[next++ % frames.length]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/cam1.jpg`;
}

/** Waits until `cond` holds, checking every 100 ms; throws naming `what` after `ms`. */
export async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await cond()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
