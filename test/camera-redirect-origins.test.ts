// A camera may redirect to another server (a public camera's CDN, or its own https:// address). What the config
// says about the camera itself, its pinned certificate and its password, is the camera's: the server redirected to
// is let in on the pinned certificate or one a browser accepts, and a refusal there names that server, with a fix
// that works (a pin written for the camera URL cannot cover it; a password is never sent to it).
import { describe, expect, it, onTestFinished } from 'vitest';
import { createSource } from '../dist/src/source/create-source.js';
import { CAMERA_FINGERPRINT, CAMERA_TLS, OTHER_FINGERPRINT, OTHER_TLS, camera, cameraError, httpsCamera } from './helpers/https-camera.js';
import { startCamera, take, unusedPort } from './helpers/source-http.js';

describe('a camera that redirects to another server', () => {
  it('a pinned camera is read through a redirect to a server presenting the same certificate', async () => {
    const target = await httpsCamera(CAMERA_TLS);
    const url = await httpsCamera(CAMERA_TLS, target);
    const source = createSource(camera({ url, tlsFingerprint: CAMERA_FINGERPRINT }));
    onTestFinished(() => source.close());
    expect(await take(source.frames(), 2)).toHaveLength(2);
  });

  it('a refused certificate there names that server and how to let it in, not the camera\'s pin', async () => {
    const target = await httpsCamera(OTHER_TLS);
    const url = await httpsCamera(CAMERA_TLS, target);
    const err = await cameraError({ url, tlsFingerprint: CAMERA_FINGERPRINT });
    const origin = new URL(target).origin;
    expect(err.code).toBe('TC_ERR_SOURCE_TLS');
    expect(err.message).toContain(`camera cam1: GET ${url} (redirected to ${target}): ${origin}, which the camera redirected to, presented a self-signed certificate`);
    expect(err.message).toContain(`SHA-256 fingerprint ${OTHER_FINGERPRINT}`);
    expect(err.message).toContain(`make the URL it redirected to the camera URL and pin its certificate there`);
    // The camera's own certificate is the pinned one: nothing says it was renewed.
    expect(err.message).not.toContain('not the one its tlsFingerprint pins');
  });

  it('an http:// camera redirected to a self-signed https:// server is not told to pin (which http:// URLs refuse)', async () => {
    const target = await httpsCamera(OTHER_TLS);
    const cam = await startCamera((_req, res) => res.writeHead(302, { location: target }).end());
    const err = await cameraError({ url: cam.url });
    expect(err.code).toBe('TC_ERR_SOURCE_TLS');
    expect(err.message).toContain(`${new URL(target).origin}, which the camera redirected to, presented a self-signed certificate`);
    expect(err.message).not.toContain(`set the camera's "tlsFingerprint"`);
    // The fix the message gives is one the config takes.
    expect(camera({ url: target, tlsFingerprint: OTHER_FINGERPRINT }).tlsFingerprint).toBe(OTHER_FINGERPRINT);
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
