// Public cameras often answer their published snapshot URL with a redirect to the latest image under a name of its
// own (a timestamp), which no config could hold. The source follows redirects (5 at most), sends credentials to the
// camera URL's own origin only, and names where it was sent when the answer there is an error.
import type { ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { MjpegStreamSource } from '../dist/src/source/mjpeg-stream-source.js';
import { firstError, makeJpeg, startCamera, take } from './helpers/source-http.js';

const timing = { pollIntervalMs: 20, timeoutMs: 2_000, maxBodyBytes: 1 << 20, backoffInitialMs: 20, backoffMaxMs: 100 };

/** The first error of a snapshot source reading `url`. */
const snapshotError = (url: string) => firstError((onError) => new HttpSnapshotSource({ cameraId: 'cam1', url, ...timing, onError }));

describe('redirects', () => {
  it('follows a camera that redirects to its latest image, a new name each time', async () => {
    let n = 0;
    const cam = await startCamera((req, res) => {
      if (req.url === '/latest.jpg') res.writeHead(302, { location: `/images/${++n}.jpg?t=${n}` }).end();
      else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(Number(/\/images\/(\d+)/.exec(req.url!)![1])));
    }, '/latest.jpg');
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => source.close());
    const frames = await take(source.frames(), 3);
    expect(frames.map((f) => Buffer.from(f.jpeg))).toEqual([makeJpeg(1), makeJpeg(2), makeJpeg(3)]);
    expect(cam.requests.map((r) => r.url)).toEqual(['/latest.jpg', '/images/1.jpg?t=1', '/latest.jpg', '/images/2.jpg?t=2', '/latest.jpg', '/images/3.jpg?t=3']);
    expect(source.stats().errors).toBe(0);
  });

  it('asks the address the camera URL moved to for good (301, 308) directly, and the camera URL again once that fails', async () => {
    // The camera's /snap.jpg moved to server B (301), which serves three images and then answers 404; by then the
    // camera sends it on to server C (308).
    let n = 0;
    const image = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(++n));
    const b = await startCamera((_req, res) => (n < 3 ? image(res) : res.writeHead(404).end()));
    const c = await startCamera((_req, res) => image(res));
    const cam = await startCamera((_req, res) => res.writeHead(n < 3 ? 301 : 308, { location: n < 3 ? b.url : c.url }).end());
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => source.close());
    expect((await take(source.frames(), 5)).map((f) => Buffer.from(f.jpeg))).toEqual([1, 2, 3, 4, 5].map(makeJpeg));
    // One request per poll once the move is known (a camera moved to https:// is not asked twice per poll); the
    // 404 of the address remembered sends the same poll back to the camera URL, without an error.
    expect([cam.requests.length, b.requests.length, c.requests.length]).toEqual([2, 4, 2]);
    expect(source.stats().errors).toBe(0);
  });

  it('does not remember a permanent redirect to another name, nor one whose answer then fails', async () => {
    // A camera that sends its URL on to each new image with a 301 would be stuck on the first image.
    let n = 0;
    const rotating = await startCamera((req, res) => {
      if (req.url === '/latest.jpg') res.writeHead(301, { location: `/images/${++n}.jpg` }).end();
      else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(Number(/\/images\/(\d+)/.exec(req.url!)![1])));
    }, '/latest.jpg');
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: rotating.url, ...timing });
    onTestFinished(() => source.close());
    expect((await take(source.frames(), 3)).map((f) => Buffer.from(f.jpeg))).toEqual([1, 2, 3].map(makeJpeg));
    expect(rotating.requests.map((r) => r.url)).toEqual(['/latest.jpg', '/images/1.jpg', '/latest.jpg', '/images/2.jpg', '/latest.jpg', '/images/3.jpg']);

    // Where it moved to answers a login page with 200 once: the poll fails, and the next asks the camera URL again.
    let k = 0;
    const moved = await startCamera((_req, res) => {
      if (++k === 2) res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
      else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(k));
    });
    const cam = await startCamera((_req, res) => res.writeHead(301, { location: moved.url }).end());
    const again = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => again.close());
    expect(await take(again.frames(), 3)).toHaveLength(3);
    expect([cam.requests.length, moved.requests.length, again.stats().errors]).toEqual([2, 4, 1]);

    // Where it moved to goes on answering the same picture while the camera URL now leads elsewhere: asked again.
    let fresh = 0;
    const stale = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(0)));
    const live = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(++fresh)));
    const turned = await startCamera((_req, res) => res.writeHead(301, { location: turned.requests.length === 1 ? stale.url : live.url }).end());
    const third = new HttpSnapshotSource({ cameraId: 'cam1', url: turned.url, ...timing });
    onTestFinished(() => third.close());
    expect((await take(third.frames(), 3)).map((f) => Buffer.from(f.jpeg))).toEqual([0, 1, 2].map(makeJpeg));
  });

  it('sends the camera URL\'s password to its own origin only', async () => {
    let shade = 0;
    const cdn = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(++shade)), '/img.jpg');
    const cam = await startCamera((req, res) => {
      if (req.headers.authorization !== `Basic ${Buffer.from('admin:s3cret').toString('base64')}`) res.writeHead(401, { 'www-authenticate': 'Basic realm="cam"' }).end();
      else res.writeHead(307, { location: cdn.url }).end();
    });
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url.replace('http://', 'http://admin:s3cret@'), ...timing });
    onTestFinished(() => source.close());
    expect(await take(source.frames(), 2)).toHaveLength(2);
    expect(cam.requests.map((r) => r.headers.authorization?.split(' ')[0] ?? 'none')).toEqual(['none', 'Basic', 'Basic']);
    expect(cdn.requests.map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
  });

  it('gives up on a redirect loop after 5 redirects, saying where it was sent', async () => {
    const cam = await startCamera((req, res) => res.writeHead(302, { location: req.url === '/a.jpg' ? '/b.jpg' : '/a.jpg' }).end(), '/a.jpg');
    const err = await snapshotError(cam.url);
    expect(err.code).toBe('TC_ERR_SOURCE_HTTP');
    expect(err.message).toMatch(/^camera cam1: GET http:\/\/127\.0\.0\.1:\d+\/a\.jpg was redirected more than 5 times \(the latest to http:\/\/127\.0\.0\.1:\d+\/a\.jpg\); check the camera URL/);
    expect(cam.requests).toHaveLength(6);
  });

  it('names the URL it was redirected to when the answer there is an error, and a redirect it cannot follow', async () => {
    const cam = await startCamera((req, res) => {
      if (req.url === '/snap.jpg') res.writeHead(301, { location: '/moved/snap.jpg?token=abc123' }).end();
      else if (req.url === '/nowhere.jpg') res.writeHead(302).end();
      else res.writeHead(404).end();
    }, '/snap.jpg');
    const err = await snapshotError(cam.url);
    expect(err.message).toMatch(/\/snap\.jpg \(redirected to http:\/\/127\.0\.0\.1:\d+\/moved\/snap\.jpg\?token=\*\*\*\) answered HTTP 404 Not Found/);
    const stuck = await snapshotError(cam.url.replace('/snap.jpg', '/nowhere.jpg'));
    expect(stuck.message).toContain('answered HTTP 302 Found; a redirect without a usable Location to follow');
  });

  it('follows a redirect to an MJPEG stream', async () => {
    const jpeg = makeJpeg(9);
    const cam = await startCamera((req, res) => {
      if (req.url === '/video') return void res.writeHead(302, { location: '/stream/live.mjpg' }).end();
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=f' });
      res.write(`--f\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`);
      res.write(jpeg);
      res.write('\r\n');
    }, '/video');
    const source = new MjpegStreamSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => source.close());
    const [frame] = await take(source.frames(), 1);
    expect(Buffer.from(frame!.jpeg)).toEqual(jpeg);
  });
});
