// https:// cameras mostly have self-signed certificates. Refused as a network failure ("check the host and port"),
// a user had nothing to go on. The error names the certificate problem and the fingerprint the camera presented;
// pinning it (tlsFingerprint) lets the camera in and keeps any other certificate out.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { createSource } from '../dist/src/source/create-source.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { probeCameraSize } from '../dist/src/source/probe-camera-size.js';
import { firstError, makeJpeg, take } from './helpers/source-http.js';

const fixtures = join(import.meta.dirname, 'fixtures', 'tls');
// A self-signed certificate for "ipcamera.local", valid until 2126 (made with `openssl req -x509 … -days 36500`).
const key = readFileSync(join(fixtures, 'camera-key.pem'));
const cert = readFileSync(join(fixtures, 'camera-cert.pem'));
/** Its SHA-256 fingerprint, from `openssl x509 -in camera-cert.pem -noout -fingerprint -sha256`. */
const FINGERPRINT = '0E:38:B6:1A:90:11:34:24:5F:A6:A4:F1:F8:7B:16:50:21:78:77:57:CA:B8:59:EC:D9:00:E6:07:87:91:FC:72';

async function httpsCamera(): Promise<string> {
  let n = 0;
  const server: Server = createServer({ key, cert }, (_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(n++)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.jpg`;
}

const base = { id: 'cam1', roi: [[0, 0], [16, 0], [16, 16]], lines: [{ id: 'l', from: [0, 8], to: [16, 8] }], pollIntervalMs: 20, timeoutMs: 2_000, backoffInitialMs: 20, backoffMaxMs: 100 };
const camera = (over: Record<string, unknown>) => validateConfig({ cameras: [{ ...base, ...over }] }).cameras[0]!;

/** The first error of the source for a camera with `over` set. */
const cameraError = (over: Record<string, unknown>) => firstError((onError) => createSource(camera(over), { onError }));

describe('https cameras', () => {
  it('names a self-signed certificate and the fingerprint to pin, instead of a network failure', async () => {
    const url = await httpsCamera();
    const err = await cameraError({ url });
    expect(err.code).toBe('TC_ERR_SOURCE_TLS');
    expect(err.message).toContain(`camera cam1: GET ${url}: the camera presented a self-signed certificate`);
    expect(err.message).toContain(`set the camera's "tlsFingerprint": "${FINGERPRINT}"`);
    expect(err.message).toContain(`(\`run --camera\`: --tls-fingerprint ${FINGERPRINT})`);
    expect(err.message).toContain('"tlsInsecure": true accepts any certificate (--tls-insecure; not recommended)');
  });

  it('reads a camera whose certificate is pinned, in any spelling of the fingerprint, and refuses another', async () => {
    const url = await httpsCamera();
    for (const fp of [FINGERPRINT, FINGERPRINT.replace(/:/g, '').toLowerCase()]) {
      const source = createSource(camera({ url, tlsFingerprint: fp }));
      onTestFinished(() => source.close());
      expect(await take(source.frames(), 2)).toHaveLength(2);
    }
    const other = `AA${FINGERPRINT.slice(2)}`;
    const err = await cameraError({ url, tlsFingerprint: other });
    expect(err.code).toBe('TC_ERR_SOURCE_TLS');
    expect(err.message).toContain(`the camera presented a certificate with SHA-256 fingerprint ${FINGERPRINT}, not the one its tlsFingerprint pins (${other})`);
  });

  it('run --camera (the probe) says so at once, without the password, rather than after 15 s of retrying', async () => {
    const url = (await httpsCamera()).replace('https://', 'https://admin:s3cret@');
    // With a limit far beyond the test's own timeout: only an error told at once passes.
    const err = await probeCameraSize(url, 600_000).then(() => undefined, (e: SourceError) => e);
    expect(err?.code).toBe('TC_ERR_SOURCE_TLS');
    expect(err?.message).toContain('https://admin:***@127.0.0.1');
    expect(err?.message).not.toContain('s3cret');
  });

  it('run --camera reads a camera whose certificate is pinned with --tls-fingerprint', async () => {
    const url = await httpsCamera();
    expect(await probeCameraSize(url, 600_000, { tlsFingerprint: FINGERPRINT })).toEqual({ width: 16, height: 16, kind: 'snapshot' });
  });

  it('accepts any certificate with tlsInsecure', async () => {
    const url = await httpsCamera();
    const source = createSource(camera({ url, tlsInsecure: true }));
    onTestFinished(() => source.close());
    expect(await take(source.frames(), 1)).toHaveLength(1);
  });

  it('refuses TLS settings that cannot apply', () => {
    expect(() => camera({ url: 'https://h/x', tlsFingerprint: 'AB:CD' })).toThrow(/^cameras\[0\]\.tlsFingerprint: must be the SHA-256 fingerprint of the camera's certificate, 32 bytes in hex/);
    expect(() => camera({ url: 'http://h/x', tlsFingerprint: FINGERPRINT })).toThrow('cameras[0].tlsFingerprint: applies to https:// camera URLs only, and url is "http://h/x"; remove it');
    expect(() => camera({ url: 'http://h/x', tlsInsecure: true })).toThrow('cameras[0].tlsInsecure: applies to https:// camera URLs only');
    expect(() => camera({ url: 'https://h/x', tlsInsecure: 'yes' })).toThrow('cameras[0].tlsInsecure: must be true or false, got "yes"');
    expect(() => camera({ url: 'https://h/x', tlsInsecure: true, tlsFingerprint: FINGERPRINT })).toThrow(/^cameras\[0\]\.tlsInsecure: set beside tlsFingerprint/);
    expect(camera({ url: 'https://h/x', tlsFingerprint: FINGERPRINT.toLowerCase() }).tlsFingerprint).toBe(FINGERPRINT);
  });
});
