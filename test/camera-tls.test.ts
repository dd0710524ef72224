// https:// cameras mostly have self-signed certificates. Refused as a network failure ("check the host and port"),
// a user had nothing to go on. The error names the certificate problem and the fingerprint the camera presented;
// pinning it (tlsFingerprint) lets the camera in and keeps any other certificate out.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { createSource } from '../dist/src/source/create-source.js';
import { probeCameraSize } from '../dist/src/source/probe-camera-size.js';
import { CAMERA_FINGERPRINT as FINGERPRINT, camera, cameraError, httpsCamera } from './helpers/https-camera.js';
import { take } from './helpers/source-http.js';

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
