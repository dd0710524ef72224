// The undici dispatcher for one camera: a keep-alive Agent with one connection per origin (a source makes
// one request at a time) and connect/headers/body timeouts taken from the camera's timeoutMs.

import { Agent } from 'undici';

export function createCameraAgent(timeoutMs: number): Agent {
  return new Agent({
    connections: 1,
    pipelining: 1,
    keepAliveTimeout: 4_000, // idle socket reuse window; undici lowers it when the camera's Keep-Alive header says less
    keepAliveMaxTimeout: 60_000,
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}
