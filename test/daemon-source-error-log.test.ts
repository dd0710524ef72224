// A camera that keeps failing is said once per cause, not once per poll; a new cause is said when it comes. The
// cause is the error code and, for an HTTP error, the status: a camera going from 500 to 404 (a firmware update
// moved the snapshot) to 401 (a password changed) says each, where all three (TC_ERR_SOURCE_HTTP) were one.
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { Daemon } from '../dist/src/daemon.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { startCamera, until } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

it('says each HTTP status a failing camera answers once, each at its first', { timeout: 30_000 }, async () => {
  const statuses = [500, 404, 401];
  const cam = await startCamera((_req, res, n) => res.writeHead(statuses[Math.min(2, Math.floor(n / 5))]!, { 'content-type': 'text/plain' }).end('no'));
  const config = validateConfig({
    db: join(tempDir(), 'counts.db'),
    cameras: [{
      id: 'gate', url: cam.url, pollIntervalMs: 20, backoffInitialMs: 10, backoffMaxMs: 20,
      roi: [[0, 0], [64, 0], [64, 48], [0, 48]], lines: [{ id: 'l', from: [0, 24], to: [64, 24] }],
    }],
  });
  const warned: string[] = [];
  const daemon = await Daemon.start(config, { log: { info: () => {}, warn: (m: string) => warned.push(m) } });
  onTestFinished(() => daemon.close());
  await until(() => cam.requests.length >= 20);

  const said = warned.filter((m) => m.includes('[TC_ERR_SOURCE_HTTP]')).map((m) => /answered HTTP (\d+)/.exec(m)?.[1]);
  expect(said).toEqual(['500', '404', '401']);
});
