// Public cameras often answer their published snapshot URL with a redirect to the latest image under a name of its
// own (a timestamp), which no config could hold. The source follows redirects (5 at most), sends credentials to the
// camera URL's own origin only, and names where it was sent when the answer there is an error.
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

  it('asks where the camera URL moved for good (301, 308) directly, and the camera URL again once that fails', async () => {
    // /old.jpg moved to /new.jpg (301), which serves three images; then it moved on to /newer.jpg (308).
    let n = 0;
    const cam = await startCamera((req, res) => {
      if (req.url === '/old.jpg') res.writeHead(n < 3 ? 301 : 308, { location: n < 3 ? '/new.jpg' : '/newer.jpg' }).end();
      else if (req.url === (n < 3 ? '/new.jpg' : '/newer.jpg')) res.writeHead(200, { 'content-type': 'image/jpeg' }).end(makeJpeg(++n));
      else res.writeHead(404).end();
    }, '/old.jpg');
    const source = new HttpSnapshotSource({ cameraId: 'cam1', url: cam.url, ...timing });
    onTestFinished(() => source.close());
    expect((await take(source.frames(), 5)).map((f) => Buffer.from(f.jpeg))).toEqual([1, 2, 3, 4, 5].map(makeJpeg));
    // One round trip per poll once the move is known (a public camera moved to https:// is not asked twice per
    // poll); when the remembered URL answers 404, the camera URL is asked again in the same poll, without an error.
    expect(cam.requests.map((r) => r.url)).toEqual(['/old.jpg', '/new.jpg', '/new.jpg', '/new.jpg', '/new.jpg', '/old.jpg', '/newer.jpg', '/newer.jpg']);
    expect(source.stats().errors).toBe(0);
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
