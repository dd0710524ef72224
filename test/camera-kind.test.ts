// A camera URL says little about whether it serves snapshots or an MJPEG stream. The wrong kind is told at the
// first answer, naming the kind to set (a snapshot poll of a stream used to wait for its end and time out,
// blaming the network), and `run --camera URL`'s probe takes the hint and settles on the kind that works.
import type { ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SourceError } from '../dist/src/errors.js';
import { HttpSnapshotSource } from '../dist/src/source/http-snapshot-source.js';
import { probeCameraSize } from '../dist/src/source/probe-camera-size.js';
import { makeJpeg, startCamera } from './helpers/source-http.js';

/** A camera streaming MJPEG at `path` (one part, then the stream stays open). */
async function streamingCamera(path: string) {
  const image = makeJpeg(40);
  return startCamera((_req, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
    res.write(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${image.length}\r\n\r\n`);
    res.write(image);
    res.write('\r\n');
  }, path);
}

describe('the kind of camera', () => {
  it('a snapshot source given an MJPEG stream says so at once and names the kind to set', async () => {
    const cam = await streamingCamera('/live');
    const errors: SourceError[] = [];
    const ac = new AbortController();
    const source = new HttpSnapshotSource({
      cameraId: 'cam1', url: cam.url, pollIntervalMs: 50, timeoutMs: 10_000, maxBodyBytes: 1 << 20, backoffInitialMs: 10, backoffMaxMs: 40,
      onError: (err) => {
        errors.push(err);
        ac.abort();
      },
    });
    onTestFinished(() => source.close());
    const started = Date.now();
    expect((await source.frames(ac.signal).next()).done).toBe(true);
    // Well before the 10 s timeout it used to wait for.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(errors[0]!.code).toBe('TC_ERR_SOURCE_HTTP');
    expect(errors[0]!.message).toBe(
      `camera cam1: GET ${cam.url} answered an MJPEG stream (Content-Type "multipart/x-mixed-replace; boundary=frame"), not a single image; set the camera's kind to "mjpeg"`,
    );
  });

  it('the --camera probe settles on MJPEG for a stream at a URL guessed to be a snapshot, and on snapshot for the reverse', async () => {
    const stream = await streamingCamera('/live');
    expect(await probeCameraSize(stream.url, 10_000)).toEqual({ width: 16, height: 16, kind: 'mjpeg' });
    const image = makeJpeg(90);
    const still = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(image), '/video.mjpg');
    expect(await probeCameraSize(still.url, 10_000)).toEqual({ width: 16, height: 16, kind: 'snapshot' });
  });
});
