// `run --camera URL` whose camera answers something that is not an image (HTTP 200 with an HTML login page, a JSON
// body): the probe asked again until its 15 s were up, then gave its advice and "check the URL and that the camera
// is reachable" in a row. Now three such answers in a row end it (about 2 s) with one message: the URL, what came
// back, the fix; a camera starting up, whose first answers are a "starting" page and the next ones pictures, is
// probed and counted. 401 and 403 end it at once, naming the credentials.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jpegJs from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { startCamera } from './helpers/source-http.js';
import { tempDir } from './helpers/temp-dir.js';

/** The fix, with where a user and password go shown on the camera's own scheme and host (its user kept). */
const fix = (example: string): string =>
  `not a JPEG snapshot or MJPEG stream; give the camera's snapshot or stream URL, and its user and password (${example}) if it asks for a login [TC_ERR_SOURCE_HTTP]`;

describe('run --camera with a camera that answers no image', () => {
  it.each([
    ['an HTML login page', '/snapshot.jpg', 'text/html; charset=utf-8', '<!DOCTYPE html><html><head><title>Login</title></head><body><form></form></body></html>', 'an HTML page'],
    ['a JSON body', '/snapshot.jpg', 'application/json', '{"error":"not logged in"}', 'a JSON document'],
    ['an HTML page at a stream URL', '/video.mjpg', 'text/html', '<html>login</html>', 'an HTML page'],
  ])('%s: refused after three such answers in a row, in one message', async (_name, path, type, body, what) => {
    const camera = await startCamera((_req, res) => res.writeHead(200, { 'content-type': type }).end(body), path);
    const url = camera.url.replace('http://', 'http://admin:s3cret@');
    const db = join(tempDir(), 'counts.db');
    const r = await runCli(['run', '--camera', url, '--db', db, '--duration', '1']);
    expect(r.code, r.stderr).toBe(1);
    const shown = camera.url.replace('http://', 'http://admin:***@');
    const example = `http://admin:password@${new URL(camera.url).host}/path`;
    expect(r.stderr).toBe(`traffic-counter: camera probe: GET ${shown} answered HTTP 200 with ${what} (Content-Type "${type}"), ${fix(example)}\n`);
    // Asked three times: not again until the probe's time limit.
    expect(camera.requests).toHaveLength(3);
  }, 30_000);

  it('a login page for a URL with its password in the query: says the camera did not take them, not where to add them', async () => {
    const camera = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'), '/cgi-bin/CGIProxy.fcgi');
    const r = await runCli(['run', '--camera', `${camera.url}?cmd=snapPicture2&usr=admin&pwd=s3cret`, '--db', join(tempDir(), 'counts.db'), '--duration', '1']);
    expect(r.code, r.stderr).toBe(1);
    const host = new URL(camera.url).host;
    expect(r.stderr).toBe(
      `traffic-counter: camera probe: GET ${camera.url}?cmd=snapPicture2&usr=admin&pwd=*** answered HTTP 200 with an HTML page (Content-Type "text/html"), ` +
        `not a JPEG snapshot or MJPEG stream; give the camera's snapshot or stream URL; if this is its login page, it did not take the user and password in the URL's query (pwd=): ` +
        `check them, or give them as http://user:password@${host}/path [TC_ERR_SOURCE_HTTP]\n`,
    );
  }, 30_000);

  it.each([
    [401, { 'www-authenticate': 'Basic realm="cam"' }, /answered HTTP 401 Unauthorized; the camera asks for a user and password \(Basic\); put them in the camera URL \(http:\/\/user:password@127\.0\.0\.1:\d+\/snapshot\.jpg\) \[TC_ERR_SOURCE_HTTP\]\n$/],
    [403, {}, /answered HTTP 403 Forbidden; check the user and password in the camera URL and that this user may read snapshots \[TC_ERR_SOURCE_HTTP\]\n$/],
  ])('HTTP %i with an HTML body: refused at once, naming the credentials', async (status, headers, message) => {
    const camera = await startCamera((_req, res) => res.writeHead(status, { ...headers, 'content-type': 'text/html' }).end('<html>no</html>'));
    const r = await runCli(['run', '--camera', camera.url, '--db', join(tempDir(), 'counts.db'), '--duration', '1']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('no frame within');
    expect(camera.requests).toHaveLength(1);
  }, 30_000);

  it('a camera starting up: two "starting" pages, then pictures, is probed and counted', async () => {
    const jpeg = jpegJs.encode({ data: Buffer.alloc(640 * 360 * 4, 96), width: 640, height: 360 }, 80).data;
    const camera = await startCamera((_req, res, n) =>
      n < 2 ? res.writeHead(200, { 'content-type': 'text/html' }).end('<html>starting</html>') : res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
    const r = await runCli(['run', '--camera', camera.url, '--db', join(tempDir(), 'counts.db'), '--duration', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('640x360 frames, analysed at');
  }, 30_000);
});

describe('a camera that serves its HTML login page labelled image/jpeg', () => {
  const page = '\r\n  <!DOCTYPE html><html><head><title>Login</title></head><body><form></form></body></html>';
  const advice = (host: string): string =>
    `check that the camera URL serves image/jpeg snapshots, and give its user and password (http://admin:password@${host}/path) if it asks for a login`;

  it('run --camera: refused after three such answers (the same page each time), naming where the user and password go', async () => {
    // The same bytes each time are skipped as an unchanged image: they went uncounted, and the probe asked until its
    // 15 s were up ("no frame within 15 s, the last attempt: …").
    const camera = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(page));
    const r = await runCli(['run', '--camera', camera.url.replace('http://', 'http://admin:s3cret@'), '--db', join(tempDir(), 'counts.db'), '--duration', '1']);
    expect(r.code, r.stderr).toBe(1);
    const shown = camera.url.replace('http://', 'http://admin:***@');
    expect(r.stderr).toBe(
      `traffic-counter: --camera ${shown}: not a JPEG but an HTML page (starts with "<!DOCTYPE html><html><head><title>Login</title></head><body>…"); ` +
        `${advice(new URL(camera.url).host)} [TC_ERR_DECODE_NOT_JPEG]\n`,
    );
    expect(camera.requests).toHaveLength(3);
  }, 30_000);

  it("run --config: the daemon's warning names the camera's own URL, not a generic one", async () => {
    const camera = await startCamera((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(page));
    const dir = tempDir();
    const config = join(dir, 'cameras.json');
    const url = camera.url.replace('http://', 'http://admin:s3cret@');
    writeFileSync(config, JSON.stringify({ cameras: [{ id: 'gate', url, roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] }] }));
    const r = await runCli(['run', '--config', config, '--db', join(dir, 'counts.db'), '--duration', '2']);
    const out = r.stdout + r.stderr;
    expect(out).toContain(`camera gate frame 1: not a JPEG but an HTML page`);
    expect(out).toContain(`${advice(new URL(camera.url).host)} [TC_ERR_DECODE_NOT_JPEG]`);
    expect(out).not.toContain('s3cret');
  }, 30_000);
});
