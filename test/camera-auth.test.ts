// Cameras that ask for a password: most IP cameras (Hikvision, Dahua, Axis) ask for HTTP Digest on their snapshot
// and stream URLs; sending Basic there got "HTTP 401" with the right password. The source answers the scheme the
// camera asks for, Digest before Basic, and says which fix applies when it is refused.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { CameraAuth, parseChallenges } from '../dist/src/source/camera-auth.js';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { MjpegStreamSource } from '../dist/src/source/mjpeg-stream-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

/** Each image differs from the one before (the same bytes again are not a new frame). */
let shade = 0;

const timing = { pollIntervalMs: 20, timeoutMs: 2_000, maxBodyBytes: 1 << 20, backoffInitialMs: 20, backoffMaxMs: 100 };

describe('Digest answers (the RFCs worked examples)', () => {
  const rfc7616 = [
    'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
    'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
  ];
  const mufasa = () => new CameraAuth({ user: 'Mufasa', password: 'Circle of Life' }, { cnonce: () => 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ' });

  it('RFC 7616 §3.9.1: SHA-256 when offered beside MD5, and MD5 alone', () => {
    const both = mufasa();
    expect(both.challenged(rfc7616, undefined)).toBe(true);
    const h = both.header('GET', '/dir/index.html')!;
    expect(h).toMatch(/^Digest /);
    expect(h).toContain('algorithm=SHA-256');
    expect(h).toContain('response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"');
    expect(h).toContain('qop=auth, nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"');
    expect(h).toContain('opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"');
    const md5 = mufasa();
    md5.challenged(rfc7616[1], undefined);
    expect(md5.header('GET', '/dir/index.html')).toContain('response="8ca523f5e9506fed4657c9700eebdbec"');
  });

  it('RFC 2617 §3.5, with nc counting the requests made with one nonce', () => {
    const auth = new CameraAuth({ user: 'Mufasa', password: 'Circle Of Life' }, { cnonce: () => '0a4f113b' });
    auth.challenged('Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"', undefined);
    expect(auth.header('GET', '/dir/index.html')).toContain('response="6629fae49393a05397450978507c4ef1"');
    expect(auth.header('GET', '/dir/index.html')).toContain('nc=00000002');
  });

  it('SHA-512-256 with a hashed user name, as a camera checks it (the RFC 7616 §3.9.2 example has erratum 4897 reported against it)', () => {
    const auth = new CameraAuth({ user: 'J\u00e4s\u00f8n Doe', password: 'Secret, or not?' }, { cnonce: () => 'NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v' });
    auth.challenged('Digest realm="api@example.org", qop="auth", algorithm=SHA-512-256, nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", charset=UTF-8, userhash=true, Digest realm="api@example.org", qop="auth", algorithm=MD5, nonce="x"', undefined);
    const h = auth.header('GET', '/doe.json')!;
    const sha = (x: string) => createHash('sha512-256').update(x, 'utf8').digest('hex');
    const ha1 = sha('J\u00e4s\u00f8n Doe:api@example.org:Secret, or not?');
    const expected = sha(`${ha1}:5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK:00000001:NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v:auth:${sha('GET:/doe.json')}`);
    expect(h).toContain(`username="${sha('J\u00e4s\u00f8n Doe:api@example.org')}"`);
    expect(h).toContain('algorithm=SHA-512-256');
    expect(h).toContain(`response="${expected}"`);
    expect(h).toContain('userhash=true');
  });

  it('sends a user name outside ASCII as username* (a quoted string cannot carry it), and skips -sess without qop', () => {
    const auth = new CameraAuth({ user: "J\u00e4s\u00f8n's (cam)*", password: 'x' }, { cnonce: () => 'c' });
    auth.challenged('Digest realm="r", qop="auth", nonce="n"', undefined);
    const h = auth.header('GET', '/')!;
    // RFC 5987 attr-chars only: ' ( ) * escaped too (encodeURIComponent leaves them).
    expect(h).toMatch(/^Digest username\*=UTF-8''J%C3%A4s%C3%B8n%27s%20%28cam%29%2A, realm="r"/);
    expect(/^[\x20-\x7e]*$/.test(h)).toBe(true);
    // MD5-sess without qop cannot be answered checkably; Basic, offered beside it, is used instead.
    const sess = new CameraAuth({ user: 'u', password: 'p' });
    expect(sess.challenged('Digest realm="r", nonce="n", algorithm=MD5-sess, Basic realm="r"', undefined)).toBe(true);
    expect(sess.scheme).toBe('basic');
  });

  it('does not fall back to Basic (the password in clear text) once the camera took Digest', () => {
    const auth = new CameraAuth({ user: 'u', password: 'p' }, { cnonce: () => 'c' });
    auth.challenged('Digest realm="r", qop="auth", nonce="n"', undefined);
    const used = auth.header('GET', '/');
    expect(auth.challenged('Basic realm="r"', used)).toBe(false);
    expect(auth.header('GET', '/')).toMatch(/^Digest /);
    expect(auth.refusalHint('http://192.0.2.1/snap.jpg')).toContain('now asks for Basic only, which would send the password in clear text: it was not sent');
  });

  it('does not read a 401 without a challenge after Digest as a downgrade', () => {
    const auth = new CameraAuth({ user: 'u', password: 'p' }, { cnonce: () => 'c' });
    auth.challenged('Digest realm="r", qop="auth", nonce="n"', undefined);
    expect(auth.challenged(undefined, auth.header('GET', '/'))).toBe(false);
    expect(auth.refusalHint('http://192.0.2.1/snap.jpg')).toMatch(/^the camera refused the Digest answer without a new challenge \(some cameras do so for a while after too many failed logins\)/);
  });

  it('reads several challenges in one header, quoted commas and escapes', () => {
    expect(parseChallenges('Basic realm="a, b", Digest realm="x\\"y", nonce=abc, qop="auth,auth-int", Negotiate')).toEqual([
      { scheme: 'Basic', params: { realm: 'a, b' } },
      { scheme: 'Digest', params: { realm: 'x"y', nonce: 'abc', qop: 'auth,auth-int' } },
      { scheme: 'Negotiate', params: {} },
    ]);
    expect(parseChallenges(undefined)).toEqual([]);
    expect(parseChallenges(['Basic realm=cam', 'Digest nonce="n"'])).toEqual([
      { scheme: 'Basic', params: { realm: 'cam' } },
      { scheme: 'Digest', params: { nonce: 'n' } },
    ]);
  });
});

/**
 * A camera that asks for Digest MD5 (qop=auth), checked the way a camera checks it; each nonce is good for
 * `nonceUses` requests, then answered as stale. Records what each request sent.
 */
function digestCamera(user: string, password: string, nonceUses: number, reply: (res: ServerResponse) => void, saysStale = true) {
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const realm = 'IP Camera(C1234)';
  let nonce = randomBytes(8).toString('hex');
  let uses = 0;
  const seen: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const got = req.headers.authorization ?? '';
    seen.push(got.split(' ', 1)[0] || 'none');
    const p = Object.fromEntries([...got.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)].map((m) => [m[1], m[2] ?? m[3]]));
    const expected = md5(`${md5(`${user}:${realm}:${password}`)}:${p.nonce}:${p.nc}:${p.cnonce}:auth:${md5(`GET:${p.uri}`)}`);
    const ok = got.startsWith('Digest ') && p.username === user && p.uri === req.url && p.response === expected;
    if (ok && p.nonce === nonce && uses < nonceUses) {
      uses++;
      reply(res);
      return;
    }
    const stale = ok && saysStale; // the right password with a used-up nonce
    nonce = randomBytes(8).toString('hex');
    uses = 0;
    res.writeHead(401, { 'www-authenticate': `Digest realm="${realm}", qop="auth", nonce="${nonce}", opaque="x"${stale ? ', stale=TRUE' : ''}, Basic realm="${realm}"` }).end('401 Unauthorized');
  };
  return { handler, seen };
}

describe('a camera that asks for a password', () => {
  it('answers Digest (not Basic) on a snapshot camera, reuses the nonce, and follows a stale one', async () => {
    const cam1 = digestCamera('admin', 'p@ss:w%rd', 3, (res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(shade++)));
    const cam = await startCamera((req, res) => cam1.handler(req, res), '/ISAPI/Streaming/channels/101/picture?snapShotImageType=JPEG');
    const url = cam.url.replace('http://', `http://admin:${encodeURIComponent('p@ss:w%rd')}@`);
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url, ...timing });
    onTestFinished(() => source.close());
    const frames = await take(source.frames(), 7);
    expect(frames).toHaveLength(7);
    // Nothing sent before the camera asked, never Basic; one challenge at first, then one per used-up nonce.
    expect(cam1.seen[0]).toBe('none');
    expect(cam1.seen).not.toContain('Basic');
    expect(cam1.seen.filter((s) => s === 'none')).toHaveLength(1);
    expect(cam1.seen.length).toBe(7 + 1 + 2); // 7 frames, the first challenge, 2 stale nonces (after 3 and 6)
    expect(source.stats().errors).toBe(0);
  });

  it('goes on with a camera that takes each nonce once and does not say it is stale', async () => {
    const cam1 = digestCamera('admin', 'pw', 1, (res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(shade++)), false);
    const cam = await startCamera((req, res) => cam1.handler(req, res));
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url.replace('http://', 'http://admin:pw@'), ...timing });
    onTestFinished(() => source.close());
    expect(await take(source.frames(), 4)).toHaveLength(4);
    expect(source.stats().errors).toBe(0);
    expect(cam1.seen.length).toBe(1 + 4 + 3); // the first challenge, 4 frames, and a refused reused nonce before each of the last 3
  });

  it('says the password was refused (Digest), without showing it, and does not retry within the poll', async () => {
    const cam1 = digestCamera('admin', 'right', 100, (res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(1)));
    const cam = await startCamera((req, res) => cam1.handler(req, res));
    const errors: SourceError[] = [];
    const ac = new AbortController();
    const source = new HttpSnapshotSource({
      cameraId: 'cam1',
      url: cam.url.replace('http://', 'http://admin:wrong-secret@'),
      ...timing,
      onError: (err) => {
        errors.push(err);
        if (errors.length === 3) ac.abort();
      },
    });
    onTestFinished(() => source.close());
    await take(source.frames(ac.signal), 1);
    expect(errors[0]!.code).toBe('TC_ERR_SOURCE_HTTP');
    expect(errors[0]!.message).toContain('HTTP 401');
    expect(errors[0]!.message).toContain('refused the user and password in the camera URL (Digest authentication)');
    expect(errors.map((e) => e.message).join('\n')).not.toContain('wrong-secret');
    // First poll: none, then Digest; later polls: Digest once each (refused, not stale: no second try), so a camera
    // that locks an account after a few refusals is not brought there twice as fast.
    expect(cam1.seen).toEqual(['none', ...errors.map(() => 'Digest')]);
  });

  it('tells a user who gave no password that the camera asks for one', async () => {
    const cam1 = digestCamera('admin', 'right', 100, (res) => res.end());
    const cam = await startCamera((req, res) => cam1.handler(req, res));
    const errors: SourceError[] = [];
    const ac = new AbortController();
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing, onError: (err) => (errors.push(err), ac.abort()) });
    onTestFinished(() => source.close());
    await take(source.frames(ac.signal), 1);
    expect(errors[0]!.message).toMatch(/HTTP 401 Unauthorized; the camera asks for a user and password \(Digest, Basic\); put them in the camera URL \(/);
    // Where they go, on the camera's own URL.
    expect(errors[0]!.message).toContain(`(${cam.url.replace('http://', 'http://user:password@')})`);
    expect(cam1.seen).toEqual(['none']);
  });

  it('tells a user whose password is in the URL\'s query that the camera did not take it, without sending it', async () => {
    const cam1 = digestCamera('admin', 'right', 100, (res) => res.end());
    const cam = await startCamera((req, res) => cam1.handler(req, res));
    const errors: SourceError[] = [];
    const ac = new AbortController();
    const url = `${cam.url}?usr=admin&pwd=s3cret`;
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url, ...timing, onError: (err) => (errors.push(err), ac.abort()) });
    onTestFinished(() => source.close());
    await take(source.frames(ac.signal), 1);
    const shown = `${cam.url.replace('http://', 'http://user:password@')}?usr=admin&pwd=***`;
    expect(errors[0]!.message).toContain(
      `HTTP 401 Unauthorized; the camera asks for a user and password (Digest, Basic) and did not take the ones in the URL's query (pwd=); check them, or give them in the camera URL as ${shown}`,
    );
    expect(errors[0]!.message).not.toContain('s3cret');
  });

  it('answers Basic when that is all the camera asks for, and names a scheme it cannot answer', async () => {
    const basic = await startCamera((req, res, n) => {
      if (req.headers.authorization === `Basic ${Buffer.from('admin:s3cret').toString('base64')}`) res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(n));
      else res.writeHead(401, { 'www-authenticate': 'Basic realm="cam"' }).end();
    });
    const ok = new HttpSnapshotSource({ cameraId: 'cam1', url: basic.url.replace('http://', 'http://admin:s3cret@'), ...timing });
    onTestFinished(() => ok.close());
    expect(await take(ok.frames(), 2)).toHaveLength(2);
    expect(basic.requests.map((r) => r.headers.authorization?.split(' ')[0] ?? 'none')).toEqual(['none', 'Basic', 'Basic']);

    const ntlm = await startCamera((_req, res) => res.writeHead(401, { 'www-authenticate': 'NTLM' }).end());
    const errors: SourceError[] = [];
    const ac = new AbortController();
    const source = new HttpSnapshotSource({ cameraId: 'cam2', url: ntlm.url.replace('http://', 'http://admin:s3cret@'), ...timing, onError: (err) => (errors.push(err), ac.abort()) });
    onTestFinished(() => source.close());
    await take(source.frames(ac.signal), 1);
    expect(errors[0]!.message).toContain('asks for authentication traffic-counter does not speak (NTLM; Basic and Digest are supported)');
  });

  it('answers Digest on an MJPEG stream', async () => {
    const jpeg = makeJpeg(42);
    const cam1 = digestCamera('viewer', 'secret', 100, (res) => {
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      res.write(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`);
      res.write(jpeg);
      res.write('\r\n');
    });
    const cam = await startCamera((req, res) => cam1.handler(req, res), '/cgi-bin/mjpg/video.cgi?channel=1&subtype=1');
    const source = new MjpegStreamSource({ cameraId: 'cam1', url: cam.url.replace('http://', 'http://viewer:secret@'), ...timing });
    onTestFinished(() => source.close());
    const [frame] = await take(source.frames(), 1);
    expect(Buffer.from(frame!.jpeg)).toEqual(jpeg);
    expect(cam1.seen).toEqual(['none', 'Digest']);
  });

  it('keeps a password given in the query (Reolink password=, Foscam pwd=) out of its errors', async () => {
    const cam = await startCamera((_req, res) => res.writeHead(404).end(), '/cgi-bin/api.cgi');
    const errors: SourceError[] = [];
    const ac = new AbortController();
    const url = `${cam.url}?cmd=Snap&channel=0&user=admin&password=s3cret&pwd=s3cret2`;
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url, ...timing, onError: (err) => (errors.push(err), ac.abort()) });
    onTestFinished(() => source.close());
    await take(source.frames(ac.signal), 1);
    expect(errors[0]!.message).toContain('?cmd=Snap&channel=0&user=admin&password=***&pwd=*** answered HTTP 404');
    expect(errors[0]!.message).not.toContain('s3cret');
    // The camera got them, though.
    expect(cam.requests[0]!.url).toBe('/cgi-bin/api.cgi?cmd=Snap&channel=0&user=admin&password=s3cret&pwd=s3cret2');
  });

  it('refuses a password with a "%" that starts no escape, saying how to write it', () => {
    expect(() => new HttpSnapshotSource({ cameraId: 'cam1', url: 'http://admin:50%off@127.0.0.1/snap.jpg', ...timing })).toThrow(
      /camera cam1: the user or password in the url has a "%" that starts no valid escape; write a "%" in them as %25/,
    );
  });
});
