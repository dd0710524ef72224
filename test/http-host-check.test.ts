// DNS rebinding: a page on another site that makes its own name resolve to 127.0.0.1 would read the API as its own
// origin. Requests whose Host names a host the server does not go by get 403; IP addresses, localhost, and the
// names in httpAllowedHosts (run --http-allowed-host) are answered.
import http from 'node:http';
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { startHttpServer } from '../dist/src/server/index.js';
import { CountStore } from '../dist/src/store/index.js';
import { startCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, pathname: string, host: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathname, headers: { host } }, (res) => {
        let body = '';
        res.setEncoding('latin1');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

async function server(opts: { allowedHosts?: string[] } = {}) {
  const dbPath = path.join(tempDir('tc-http-host-'), 'counts.db');
  CountStore.open(dbPath).close();
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
  const s = await startHttpServer({ dbPath, ...opts, latestImage: (id) => (id === 'sim' ? { jpeg, capturedAt: 0 } : undefined) });
  onTestFinished(() => s.close());
  return s;
}

const ENDPOINTS = ['/api/health', '/api/counts?bucket=day', '/metrics', '/api/cameras/sim/latest.jpg', '/'];

test('a foreign Host gets 403 naming the host and the fix, on every endpoint', async () => {
  const s = await server();
  for (const p of ENDPOINTS) {
    const r = await get(s.port, p, `rebind.attacker.example:${s.port}`);
    expect(r.status, p).toBe(403);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const { error } = JSON.parse(r.body) as { error: { code: string; message: string } };
    expect(error.code).toBe('TC_ERR_HTTP_HOST');
    expect(error.message).toContain(`Host "rebind.attacker.example:${s.port}"`);
    expect(error.message).toMatch(/DNS rebinding/);
    expect(error.message).toContain('httpAllowedHosts');
    expect(error.message).toContain('--http-allowed-host rebind.attacker.example');
  }
  // The same in an absolute-form target, whose authority stands for Host.
  const abs = await get(s.port, `http://rebind.attacker.example:${s.port}/api/health`, `127.0.0.1:${s.port}`);
  expect(abs.status).toBe(403);
});

test('IP addresses, localhost, *.localhost and allowed names are answered, with CORP same-origin', async () => {
  const s = await server({ allowedHosts: ['traffic.lan'] });
  for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, 'LOCALHOST.', `dash.localhost:${s.port}`, `[::1]:${s.port}`, `192.0.2.7:${s.port}`, `Traffic.LAN:${s.port}`]) {
    for (const p of ENDPOINTS) {
      const r = await get(s.port, p, host);
      expect(r.status, `${host} ${p}`).toBe(200);
      expect(r.headers['cross-origin-resource-policy']).toBe('same-origin');
    }
  }
  expect((await get(s.port, '/api/health', `other.lan:${s.port}`)).status).toBe(403);
});

test('an HTTP/1.0 request without Host is answered', async () => {
  const s = await server();
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(s.port, '127.0.0.1', () => socket.write('GET /api/health HTTP/1.0\r\n\r\n'));
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
});

test('httpAllowedHosts: names are kept in lower case; a URL or a port is refused naming the key', () => {
  const camera = { id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [9, 0], [9, 9]], lines: [{ id: 'l', from: [0, 5], to: [9, 5] }] };
  expect(validateConfig({ cameras: [camera] }).httpAllowedHosts).toEqual([]);
  expect(validateConfig({ cameras: [camera], httpAllowedHosts: ['Traffic.LAN', 'nas.local.'] }).httpAllowedHosts).toEqual(['traffic.lan', 'nas.local']);
  expect(() => validateConfig({ cameras: [camera], httpAllowedHosts: ['http://traffic.lan:8080'] })).toThrow(
    /^httpAllowedHosts: "http:\/\/traffic\.lan:8080" is not a host name; give the name as in the browser's address bar, without scheme, port or path/,
  );
  expect(() => validateConfig({ cameras: [camera], httpAllowedHosts: 'traffic.lan' })).toThrow(/^httpAllowedHosts: must be an array of host names/);
});

test('run --http-allowed-host, repeated or comma-separated, adds names the daemon answers to', async () => {
  const dir = tempDir('tc-http-host-run-');
  const config = path.join(dir, 'config.json');
  // Port 9 (discard) on loopback: the camera fails, the API serves.
  writeFileSync(config, JSON.stringify({ cameras: [{ id: 'c', url: 'http://127.0.0.1:9/x.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] }] }));
  const cli = startCli(['run', '--config', config, '--db', path.join(dir, 'counts.db'), '--http', '0', '--http-allowed-host', 'a.lan,b.lan', '--http-allowed-host', 'c.lan'], { cwd: dir });
  let url: string | undefined;
  for (let i = 0; i < 200 && !url; i++) {
    url = /HTTP API and dashboard on (http:\/\/\S+)\//.exec(cli.stderr())?.[1];
    if (!url) await new Promise((r) => setTimeout(r, 50));
  }
  expect(url, cli.stderr()).toBeDefined();
  const port = Number(new URL(url!).port);
  for (const host of ['a.lan', 'b.lan', 'c.lan']) expect((await get(port, '/api/health', `${host}:${port}`)).status).toBe(200);
  expect((await get(port, '/api/health', `d.lan:${port}`)).status).toBe(403);
  cli.proc.kill('SIGTERM');
  expect((await cli.done).code).toBe(0);
}, 20_000);

test('run --http-allowed-host without --http, or with a bad name, is refused naming the flag', async () => {
  const dir = tempDir('tc-http-host-flag-');
  const off = await startCli(['run', '--http-allowed-host', 'a.lan', '--duration', '1'], { cwd: dir }).done;
  expect(off.code).toBe(2);
  expect(off.stderr).toMatch(/run: --http-allowed-host a\.lan names hosts the HTTP API answers to, but the API is off without --http PORT; add --http PORT, or drop --http-allowed-host/);
  const bad = await startCli(['run', '--http', '0', '--http-allowed-host', 'a.lan:8080', '--duration', '1'], { cwd: dir }).done;
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/--http-allowed-host: "a\.lan:8080" is not a host name/);
}, 20_000);
