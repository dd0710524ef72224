// https:// cameras for source tests: the certificate fixtures, an https server on loopback (random port, closed
// after the test), and a validated camera config to point a source at one.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { SourceError } from '../../dist/src/errors.js';
import type { CameraConfig } from '../../dist/src/config/config-types.js';
import { validateConfig } from '../../dist/src/config/validate-config.js';
import { createSource } from '../../dist/src/source/create-source.js';
import { firstError, makeJpeg } from './source-http.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'tls');
const pem = (name: string): Buffer => readFileSync(join(fixtures, name));

// Self-signed certificates valid until 2126 (`openssl req -x509 … -days 36500`), with their SHA-256 fingerprints
// from `openssl x509 -in … -noout -fingerprint -sha256`: a camera's ("ipcamera.local") and another server's
// ("cdn.local").
export const CAMERA_TLS = { key: pem('camera-key.pem'), cert: pem('camera-cert.pem') };
export const CAMERA_FINGERPRINT = '0E:38:B6:1A:90:11:34:24:5F:A6:A4:F1:F8:7B:16:50:21:78:77:57:CA:B8:59:EC:D9:00:E6:07:87:91:FC:72';
export const OTHER_TLS = { key: pem('cdn-key.pem'), cert: pem('cdn-cert.pem') };
export const OTHER_FINGERPRINT = 'AA:95:4F:FF:78:80:93:16:3A:A1:93:E5:45:15:50:4C:2B:FE:61:CA:2F:0D:02:A8:C6:42:B2:1C:CD:79:3B:EC';

/**
 * An https camera on 127.0.0.1 with the certificate `tls` (default the camera's), serving a new JPEG on each
 * request, or, given `redirectTo`, answering every request with a 302 there. Resolves with its snapshot URL.
 */
export async function httpsCamera(tls: { key: Buffer; cert: Buffer } = CAMERA_TLS, redirectTo?: string): Promise<string> {
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

/** Camera cam1 of a 16x16 view as validated from the config, with `over` set (url, tlsFingerprint, …). */
export const camera = (over: Record<string, unknown>): CameraConfig => validateConfig({ cameras: [{ ...base, ...over }] }).cameras[0]!;

/** The first error of the source for camera(over). */
export const cameraError = (over: Record<string, unknown>): Promise<SourceError> => firstError((onError) => createSource(camera(over), { onError }));
