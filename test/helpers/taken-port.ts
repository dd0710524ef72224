// A port that another server holds on 127.0.0.1 until the test ends: for the "port in use" errors.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

export async function takenPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as AddressInfo).port;
}
