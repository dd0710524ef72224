// A server that cannot listen names what to change: the host when the address is not this machine's, the port
// when it is taken. (camera-sim --host 256.1.1.1 used to blame the port.)
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { runCli, startCli } from './helpers/run-cli.js';
import { takenPort } from './helpers/taken-port.js';
import { tempDir } from './helpers/temp-dir.js';

// 192.0.2.1 (TEST-NET-1) is an address literal of no machine here: refused locally, no DNS and no network.
const FOREIGN_HOST = '192.0.2.1';


test('camera-sim --host names the host, not the port, when it is not an address of this machine', async () => {
  const r = await runCli(['camera-sim', '--host', FOREIGN_HOST]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(
    `traffic-counter: camera-sim: --host ${FOREIGN_HOST}: cannot listen on this address (EADDRNOTAVAIL); give an address of this machine, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface) [TC_ERR_USAGE]\n`,
  );
});

test('camera-sim --host "" (a shell variable not set) is refused, not taken as every interface', async () => {
  const cli = startCli(['camera-sim', '--host', '']);
  // It used to listen on http://[::]:PORT, every interface, until stopped.
  const timer = setTimeout(() => cli.proc.kill('SIGINT'), 10_000);
  const r = await cli.done;
  clearTimeout(timer);
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
  expect(r.stderr).toContain('camera-sim: --host given empty; give an address to bind, e.g. 127.0.0.1');
}, 20_000);

test('camera-sim --port names the port when it is taken', async () => {
  const port = await takenPort();
  const r = await runCli(['camera-sim', '--port', String(port)]);
  expect(r.code).toBe(2);
  // With the code run gives its --http port in use (TC_ERR_USAGE, not TC_ERR_CONFIG: no config file is involved).
  expect(r.stderr).toContain(`camera-sim: --port ${port}: the port is already in use on 127.0.0.1; choose another port, or 0 for any free port [TC_ERR_USAGE]`);
});

test('the HTTP API names --http-host or --http (and the config key) by what failed', async () => {
  const dbPath = join(tempDir(), 'counts.db');
  await expect(startHttpServer({ dbPath, host: FOREIGN_HOST, port: 0 })).rejects.toThrow(
    `http API: --http-host (httpHost) ${FOREIGN_HOST}: cannot listen on this address (EADDRNOTAVAIL)`,
  );
  const port = await takenPort();
  await expect(startHttpServer({ dbPath, port })).rejects.toThrow(`http API: --http (httpPort) ${port}: the port is already in use on 127.0.0.1`);
});
