// A camera may redirect to another server (a public camera's CDN, or its own https:// address). What the config
// says about the camera itself, its pinned certificate and its password, is the camera's: the server redirected to
// is let in on the pinned certificate or one a browser accepts, and a refusal there names that server, with a fix
// that works (a pin written for the camera URL cannot cover it; a password is never sent to it).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createSource } from '../dist/src/source/create-source.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { firstError, makeJpeg, startCamera, take, unusedPort } from './helpers/source-http.js';

const fixtures = join(import.meta.dirname, 'fixtures', 'tls');
// Two self-signed certificates valid until 2126 (`openssl req -x509 … -days 36500`): the camera's ("ipcamera.local")
// and another server's ("cdn.local"); their SHA-256 fingerprints from `openssl x509 -noout -fingerprint -sha256`.
const CAMERA = { key: readFileSync(join(fixtures, 'camera-key.pem')), cert: readFileSync(join(fixtures, 'camera-cert.pem')) };
const CAMERA_FP = '0E:38:B6:1A:90:11:34:24:5F:A6:A4:F1:F8:7B:16:50:21:78:77:57:CA:B8:59:EC:D9:00:E6:07:87:91:FC:72';
const OTHER = { key: readFileSync(join(fixtures, 'cdn-key.pem')), cert: readFileSync(join(fixtures, 'cdn-cert.pem')) };
const OTHER_FP = 'AA:95:4F:FF:78:80:93:16:3A:A1:93:E5:45:15:50:4C:2B:FE:61:CA:2F:0D:02:A8:C6:42:B2:1C:CD:79:3B:EC';

/** An https server on 127.0.0.1 (random port); `redirectTo`, when given, answers every request with a 302 there. */
async function httpsServer(tls: { key: Buffer; cert: Buffer }, redirectTo?: string): Promise<string> {
  let n = 0;
  const server: Server = createServer(tls, (_req, res) => {
    if (redirectTo !== undefined) res.writeHead(302, { location: redirectTo }).end();
    else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(n++));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
}

const base = { id: 'cam1', roi: [[0, 0], [16, 0], [16, 16]], lines: [{ id: 'l', from: [0, 8], to: [16, 8] }], pollIntervalMs: 20, timeoutMs: 2_000, backoffInitialMs: 20, backoffMaxMs: 100 };
const camera = (over: Record<string, unknown>) => validateConfig({ cameras: [{ ...base, ...over }] }).cameras[0]!;

/** The first error of the source for a camera with `over` set. */
const cameraError = (over: Record<string, unknown>) => firstError((onError) => createSource(camera(over), { onError }));

describe('a camera that redirects to another server', () => {
  it('a pinned camera is read through a redirect to a server presenting the same certificate', async () => {
    const target = await httpsServer(CAMERA);
    const url = await httpsServer(CAMERA, target);
    const source = createSource(camera({ url, tlsFingerprint: CAMERA_FP }));
    onTestFinished(() => source.close());
    expect(await take(source.frames(), 2)).toHaveLength(2);
  });

  it('a refused certificate there names that server and how to let it in, not the camera\'s pin', async () => {
    const target = await httpsServer(OTHER);
    const url = await httpsServer(CAMERA, target);
    const err = await cameraError({ url, tlsFingerprint: CAMERA_FP });
    const origin = new URL(target).origin;
    expect(err.code).toBe('TC_ERR_SOURCE_TLS');
    expect(err.message).toContain(`camera cam1: GET ${url} (redirected to ${target}): ${origin}, which the camera redirected to, presented a self-signed certificate`);
    expect(err.message).toContain(`SHA-256 fingerprint ${OTHER_FP}`);
    expect(err.message).toContain(`make the URL it redirected to the camera URL and pin its certificate there`);
    // The camera's own certificate is the pinned one: nothing says it was renewed.
    expect(err.message).not.toContain('not the one its tlsFingerprint pins');
  });

  it('an http:// camera redirected to a self-signed https:// server is not told to pin (which http:// URLs refuse)', async () => {
    const target = await httpsServer(OTHER);
    const cam = await startCamera((_req, res) => res.writeHead(302, { location: target }).end());
    const err = await cameraError({ url: cam.url });
    expect(err.code).toBe('TC_ERR_SOURCE_TLS');
    expect(err.message).toContain(`${new URL(target).origin}, which the camera redirected to, presented a self-signed certificate`);
    expect(err.message).not.toContain(`set the camera's "tlsFingerprint"`);
    // The fix the message gives is one the config takes.
    expect(camera({ url: target, tlsFingerprint: OTHER_FP }).tlsFingerprint).toBe(OTHER_FP);
  });

  it('a 401 there says the password is not sent to it, not that the camera refused it', async () => {
    const other = await startCamera((_req, res) => res.writeHead(401, { 'www-authenticate': 'Basic realm="cdn"' }).end(), '/img.jpg');
    const cam = await startCamera((_req, res) => res.writeHead(302, { location: other.url }).end());
    const err = await cameraError({ url: cam.url.replace('http://', 'http://admin:s3cret@') });
    expect(err.code).toBe('TC_ERR_SOURCE_HTTP');
    expect(err.message).toContain(`(redirected to ${other.url}) answered HTTP 401 Unauthorized; the server the camera redirected to asks for a user and password, which are sent to the camera URL's own address`);
    expect(err.message).not.toContain('s3cret');
    expect(other.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it('a server there that cannot be reached is named, not only the camera URL that answered', async () => {
    const target = `http://127.0.0.1:${await unusedPort()}/img.jpg`;
    const cam = await startCamera((_req, res) => res.writeHead(302, { location: target }).end());
    const err = await cameraError({ url: cam.url });
    expect(err.code).toBe('TC_ERR_SOURCE_NETWORK');
    expect(err.message).toContain(`camera cam1: GET ${cam.url} (redirected to ${target}) failed:`);
  });
});
