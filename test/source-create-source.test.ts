// createSource picks snapshot polling or MJPEG streaming from the camera's kind, and needs a URL.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { CameraConfig } from '../dist/src/config/config-types.js';
import { CAMERA_DEFAULTS } from '../dist/src/config/defaults.js';
import { createSource } from '../dist/src/source/create-source.js';
import { makeJpeg, startCamera, take } from './helpers/source-http.js';

function camera(over: Partial<CameraConfig>): CameraConfig {
  return { id: 'cam1', kind: 'snapshot', ...CAMERA_DEFAULTS, pollIntervalMs: 10, roi: [], lines: [], analyzer: {}, ...over };
}

describe('createSource', () => {
  it('reads a snapshot camera and an MJPEG camera by kind', async () => {
    const image = makeJpeg(1);
    const cam = await startCamera((req, res) => {
      if (req.url === '/video') {
        res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=b' });
        res.write(`--b\r\nContent-Type: image/jpeg\r\nContent-Length: ${image.length}\r\n\r\n`);
        res.write(image);
        res.write('\r\n');
      } else {
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end(image);
      }
    });
    const snapshot = createSource(camera({ url: cam.url }));
    onTestFinished(() => snapshot.close());
    const mjpeg = createSource(camera({ url: cam.url.replace('/snapshot.jpg', '/video'), kind: 'mjpeg' }));
    onTestFinished(() => mjpeg.close());

    const [a] = await take(snapshot.frames(), 1);
    const [b] = await take(mjpeg.frames(), 1);

    expect(Buffer.from(a.jpeg)).toEqual(image);
    expect(Buffer.from(b.jpeg)).toEqual(image);
    expect(cam.requests.map((r) => r.url)).toEqual(['/snapshot.jpg', '/video']);
  });

  it('refuses a camera without a URL, naming the camera', () => {
    expect(() => createSource(camera({}))).toThrow(/camera cam1: url is required/);
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => createSource(camera({ url: 'rtsp://10.0.0.5/stream' }))).toThrow(/http:\/\/ or https:\/\//);
  });
});
