// Config validation: defaults fill in, bad keys are named with a fix, the result is frozen.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig, loadConfigFile } from '../dist/src/config/validate-config.js';
import { applyOverrides } from '../dist/src/config/apply-overrides.js';
import { hideUrlPassword, loginExample } from '../dist/src/source/camera-url.js';

const camera = (over: Record<string, unknown> = {}) => ({
  id: 'cam1',
  url: 'http://127.0.0.1:9/snapshot.jpg',
  roi: [[0, 0], [100, 0], [100, 100], [0, 100]],
  lines: [{ id: 'l1', from: [0, 50], to: [100, 50] }],
  ...over,
});

function errorOf(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected an error');
}

describe('config validation', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('fills defaults and freezes the result', () => {
    const cfg = validateConfig({ cameras: [camera()] });
    expect(cfg.cameras[0]!.pollIntervalMs).toBe(500);
    expect(cfg.cameras[0]!.frozenAfterMs).toBe(30_000);
    expect(cfg.channel).toBe('ipc');
    expect(cfg.db).toBe('./data/counts.db');
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(Object.isFrozen(cfg.cameras[0]!.roi)).toBe(true);
    expect(() => {
      (cfg as { db: string }).db = 'x';
    }).toThrow();
  });

  it('takes decodeTimeoutMs for every channel, 10 s by default, and refuses one too short to decode a frame', () => {
    expect(validateConfig({ cameras: [camera()] }).decodeTimeoutMs).toBe(10_000);
    expect(validateConfig({ cameras: [camera()], decodeTimeoutMs: 30_000 }).decodeTimeoutMs).toBe(30_000);
    expect(errorOf(() => validateConfig({ cameras: [camera()], decodeTimeoutMs: 500 })).message).toMatch(/^decodeTimeoutMs: .*1000/);
  });

  it('refuses an ROI corner left of or above the frame at load, naming the corner: no frame has such a pixel', () => {
    const left = errorOf(() => validateConfig({ cameras: [camera({ roi: [[0, 0], [100, 0], [100, 100], [-5, 100]] })] }));
    expect(left.code).toBe('TC_ERR_CONFIG');
    expect(left.message).toBe(
      'cameras[0].roi[3]: [-5,100] lies past the left edge of every frame; ROI coordinates are pixels of the full-size frame from (0, 0) at its top-left corner: move the point onto the frame (0 or more)',
    );
    expect(errorOf(() => validateConfig({ cameras: [camera({ roi: [[-1, -2], [100, 0], [100, 100]] })] })).message).toMatch(/^cameras\[0\]\.roi\[0\]: \[-1,-2\] lies past the left and top edge/);
    // On the edge is on the frame.
    expect(validateConfig({ cameras: [camera({ roi: [[0, 0], [100, 0], [100, 100], [0, 100]] })] }).cameras[0]!.roi[0]).toEqual([0, 0]);
  });

  it('names the key and the fix for a short ROI', () => {
    const err = errorOf(() => validateConfig({ cameras: [camera({ roi: [[0, 0], [1, 1]] })] }));
    expect(err.code).toBe('TC_ERR_CONFIG');
    expect(err.message).toBe('cameras[0].roi: polygon needs at least 3 points, got 2');
  });

  it.each([
    [{ cameras: [] }, 'cameras: must be a non-empty array'],
    [{ cameras: [camera({ url: 'ftp://x' })] }, 'cameras[0].url: must be an http:// or https:// URL'],
    [{ cameras: [camera({ url: undefined })] }, 'cameras[0].url: missing'],
    [{ cameras: [camera({ pollIntervalMs: -1 })] }, 'cameras[0].pollIntervalMs: must be a number from 10'],
    [{ cameras: [camera({ frozenAfterMs: 0 })] }, 'cameras[0].frozenAfterMs: must be a number from 1000'],
    [{ cameras: [camera({ lines: [{ id: 'a', from: [0, 0], to: [0, 0] }] })] }, 'cameras[0].lines[0]: "from" and "to" are the same point'],
    [{ cameras: [camera({ lines: [{ id: 'a', from: [0, 0], to: [1, 0] }, { id: 'a', from: [0, 1], to: [1, 1] }] })] }, 'cameras[0].lines[1].id: "a" is used twice'],
    [{ cameras: [camera(), camera()] }, 'cameras[1].id: "cam1" is used twice'],
    [{ cameras: [camera({ colour: 'red' })] }, 'cameras[0].colour: unknown key'],
    [{ cameras: [camera()], channel: 'pigeon' }, 'channel: must be one of "ipc", "zeromq", "shared"'],
    // 0 is allowed with zeromq only: the message says so rather than "from 1 to 64" (helper 40).
    [{ cameras: [camera()], decoders: 0 }, 'decoders: 0 (no local decoder: remote `traffic-counter decoder` processes only) needs channel "zeromq", but the channel is "ipc"; set decoders to 1 to 64, or channel to "zeromq"'],
    [{ cameras: [camera()], channel: 'shared', decoders: 0 }, 'needs channel "zeromq", but the channel is "shared"'],
    [{ cameras: [camera()], decoders: 65 }, 'decoders: must be an integer from 1 to 64'],
    // Analyzer tunables are checked when the config is loaded, not when the daemon has started (it hung there).
    [{ cameras: [camera({ analyzer: { shadowMinRatio: 2 } })] }, 'cameras[0].analyzer.shadowMinRatio: must be a number from 0.05 to 1 (default 0.4), got 2'],
    [{ cameras: [camera({ analyzer: { shadowMinRatoi: 0.5 } })] }, 'cameras[0].analyzer.shadowMinRatoi: unknown analyzer option; allowed keys are '],
    [{ cameras: [camera({ analyzer: { bootstrapMinFrames: 50, bootstrapMaxFrames: 20 } })] }, 'cameras[0].analyzer.bootstrapMinFrames: must not exceed bootstrapMaxFrames (20), got 50'],
    // A value of the wrong type is told what its key takes, not "a number or boolean" for every key.
    [{ cameras: [camera({ analyzer: { shadowSuppression: 'no' } })] }, 'cameras[0].analyzer.shadowSuppression: must be true or false, got "no"'],
    [{ cameras: [camera({ analyzer: { noiseK: 'x' } })] }, 'cameras[0].analyzer.noiseK: must be a number from 1 to 20 (default 4.5), got "x"'],
    [{ cameras: [camera({ analyzer: { noiseK: null } })] }, 'cameras[0].analyzer.noiseK: must be a number from 1 to 20 (default 4.5), got null'],
    [{ cameras: [camera({ analyzer: { shadowMinRatoi: 'x' } })] }, 'cameras[0].analyzer.shadowMinRatoi: unknown analyzer option; allowed keys are '],
  ])('rejects %j', (raw, message) => {
    const err = errorOf(() => validateConfig(raw));
    expect(err.code).toBe('TC_ERR_CONFIG');
    expect(err.message).toContain(message);
  });

  it('takes decodeScale 1 (default), 2, 4 or 8 where it divides every camera\'s analyzer.downscale', () => {
    expect(validateConfig({ cameras: [camera()] }).decodeScale).toBe(1);
    expect(validateConfig({ cameras: [camera()], decodeScale: 4 }).decodeScale).toBe(4);
    expect(validateConfig({ cameras: [camera({ analyzer: { downscale: 8 } })], decodeScale: 8 }).decodeScale).toBe(8);
  });

  it.each([
    [3, 'decodeScale: must be one of 1, 2, 4, 8 (full-resolution pixels per decoded pixel; 1 = full size), got 3'],
    ['4', 'decodeScale: must be one of 1, 2, 4, 8 (full-resolution pixels per decoded pixel; 1 = full size), got "4"'],
  ])('rejects decodeScale %j naming the allowed values', (decodeScale, message) => {
    const err = errorOf(() => validateConfig({ cameras: [camera()], decodeScale }));
    expect(err.code).toBe('TC_ERR_CONFIG');
    expect(err.message).toBe(message);
  });

  it('rejects a decodeScale that does not divide a camera\'s analyzer.downscale, naming both keys and the fixes', () => {
    const err = errorOf(() => validateConfig({ cameras: [camera(), camera({ id: 'cam2', analyzer: { downscale: 6 } })], decodeScale: 4 }));
    expect(err.code).toBe('TC_ERR_CONFIG');
    expect(err.message).toBe(
      'decodeScale: 4 does not divide cameras[1].analyzer.downscale (6); the analyzer averages whole decoded pixels, ' +
        'so use decodeScale 1 or 2, or set cameras[1].analyzer.downscale to a multiple of 4',
    );
    // A camera without downscale gets a multiple of decodeScale fitted to its frames (see frame-size.test.ts).
    expect(validateConfig({ cameras: [camera()], decodeScale: 8 }).decodeScale).toBe(8);
  });

  it('reports a bad --decode-scale as the flag, not the config key', () => {
    const base = validateConfig({ cameras: [camera({ analyzer: { downscale: 4 } })] });
    expect(applyOverrides(base, { decodeScale: 2 }).decodeScale).toBe(2);
    const err = errorOf(() => applyOverrides(base, { decodeScale: 8 }));
    expect(err.code).toBe('TC_ERR_USAGE');
    expect(err.message).toMatch(/^--decode-scale: 8 does not divide cameras\[0\]\.analyzer\.downscale \(4\)/);
  });

  it('refuses a line wholly outside the ROI, naming it (it never counts), and takes one that crosses it or runs along its edge', () => {
    // Before: accepted, and warned about only once the analyzer had learnt the scene, about 30 s into a run.
    const lines = [{ id: 'l1', from: [0, 50], to: [100, 50] }, { id: 'north', from: [150, 20], to: [150, 80] }];
    expect(errorOf(() => validateConfig({ cameras: [camera({ lines })] })).message).toBe(
      'cameras[0].lines[1] ("north"): from [150,20] to [150,80] lies wholly outside cameras[0].roi, where nothing is seen; draw the line across the road inside the ROI, or draw the ROI over it',
    );
    // Inside, across the ROI's edge, wholly across it, or along its edge: each has points the analyzer sees.
    for (const [from, to] of [[[10, 10], [20, 20]], [[50, 50], [150, 50]], [[-10, 50], [110, 50]], [[0, 20], [0, 80]]]) {
      expect(validateConfig({ cameras: [camera({ lines: [{ id: 'l', from, to }] })] }).cameras[0]!.lines[0]!.id).toBe('l');
    }
    // Inside a concave ROI's notch is outside it.
    const notched = [[0, 0], [100, 0], [100, 100], [60, 100], [60, 40], [40, 40], [40, 100], [0, 100]];
    expect(errorOf(() => validateConfig({ cameras: [camera({ roi: notched, lines: [{ id: 'l', from: [45, 60], to: [55, 90] }] })] })).message).toMatch(/lies wholly outside/);
    // Across the notch from one of its walls to the other, along its floor, or from the ROI into the notch: a stretch inside.
    for (const [from, to] of [[[30, 70], [70, 70]], [[40, 40], [60, 40]], [[20, 20], [50, 70]]]) {
      expect(validateConfig({ cameras: [camera({ roi: notched, lines: [{ id: 'l', from, to }] })] }).cameras[0]!.lines[0]!.id).toBe('l');
    }
  });

  it('refuses a line that only touches the ROI, at a corner or with an end on its edge: nothing of it is seen', () => {
    expect(errorOf(() => validateConfig({ cameras: [camera({ lines: [{ id: 'corner', from: [100, 100], to: [150, 150] }] })] })).message).toBe(
      'cameras[0].lines[0] ("corner"): from [100,100] to [150,150] meets cameras[0].roi only at [100,100], where nothing is seen; draw the line across the road inside the ROI, or draw the ROI over it',
    );
    // Past a corner, touching it on the way; an end on an edge from outside.
    expect(errorOf(() => validateConfig({ cameras: [camera({ lines: [{ id: 'l', from: [90, 110], to: [110, 90] }] })] })).message).toMatch(/meets cameras\[0\]\.roi only at \[100,100\],/);
    expect(errorOf(() => validateConfig({ cameras: [camera({ lines: [{ id: 'l', from: [150, 50], to: [100, 50] }] })] })).message).toMatch(/meets cameras\[0\]\.roi only at \[100,50\],/);
    // The notch's inner corner seen from inside the notch (outside the ROI).
    const notched = [[0, 0], [100, 0], [100, 100], [60, 100], [60, 40], [40, 40], [40, 100], [0, 100]];
    expect(errorOf(() => validateConfig({ cameras: [camera({ roi: notched, lines: [{ id: 'l', from: [50, 90], to: [60, 40] }] })] })).message).toMatch(/only at \[60,40\],/);
    // A line crossing a corner's tip inside does have a stretch inside.
    expect(validateConfig({ cameras: [camera({ lines: [{ id: 'l', from: [90, 90], to: [110, 110] }] })] }).cameras[0]!.lines[0]!.id).toBe('l');
    // Across the notch's mouth from one of its corners to the other: both places are named.
    expect(errorOf(() => validateConfig({ cameras: [camera({ roi: notched, lines: [{ id: 'l', from: [40, 100], to: [60, 100] }] })] })).message).toMatch(
      /: from \[40,100\] to \[60,100\] meets cameras\[0\]\.roi only at \[40,100\] and \[60,100\], where nothing is seen;/,
    );
  });

  it('takes a line along a slanted ROI edge with decimal coordinates on past its corner, as with whole ones', () => {
    // Along the edge [408.3,1264.2] to [697,1253.2] and as far again twice beyond it: in decimals exactly on the
    // edge's line, in binary fractions a hair off it. Was refused as meeting the ROI "only at [408.3,1264.2]".
    const roi = [[408.3, 1264.2], [697, 1253.2], [411.1, 591.9]];
    const cases = [[[408.3, 1264.2], [1274.4, 1231.2]], [[1274.4, 1231.2], [408.3, 1264.2]], [[119.6, 1275.2], [985.7, 1242.2]]];
    for (const [from, to] of cases) {
      expect(validateConfig({ cameras: [camera({ roi, lines: [{ id: 'l', from, to }] })] }).cameras[0]!.lines[0]!.id).toBe('l');
    }
    // The same with each coordinate times 10, whole numbers: taken before as well.
    const times10 = (p: number[]): number[] => p.map((v) => Math.round(v * 10));
    for (const [from, to] of cases) {
      expect(validateConfig({ cameras: [camera({ roi: roi.map(times10), lines: [{ id: 'l', from: times10(from!), to: times10(to!) }] })] }).cameras[0]!.lines[0]!.id).toBe('l');
    }
  });

  it('takes drawnOn, the frame the ROI and lines were drawn on, and refuses a point outside it by name', () => {
    expect(validateConfig({ cameras: [camera({ drawnOn: [100, 100] })] }).cameras[0]!.drawnOn).toEqual([100, 100]);
    expect(validateConfig({ cameras: [camera()] }).cameras[0]!.drawnOn).toBeUndefined();
    expect(errorOf(() => validateConfig({ cameras: [camera({ drawnOn: [1280] })] })).message).toBe(
      'cameras[0].drawnOn: must be [width, height] in pixels (integers from 1 to 65535) of the frame the ROI and lines were drawn on, e.g. [1280, 720], got [1280]',
    );
    expect(errorOf(() => validateConfig({ cameras: [camera({ drawnOn: [0, 720] })] })).message).toMatch(/^cameras\[0\]\.drawnOn: must be \[width, height\]/);
    const roi = errorOf(() => validateConfig({ cameras: [camera({ drawnOn: [80, 100] })] }));
    expect(roi.code).toBe('TC_ERR_CONFIG');
    expect(roi.message).toBe(
      'cameras[0].roi[1]: [100,0] lies outside the 80x100 frame that cameras[0].drawnOn says the ROI and lines were drawn on; fix the point, or set drawnOn to the size of the frame you drew on',
    );
    const line = errorOf(() => validateConfig({ cameras: [camera({ roi: [[0, 0], [50, 0], [50, 100]], drawnOn: [60, 100] })] }));
    expect(line.message).toMatch(/^cameras\[0\]\.lines\[0\]\.to: \[100,50\] lies outside the 60x100 frame/);
  });

  it('keeps the password of a camera URL out of its errors, and says how to write a "%" in it', () => {
    for (const url of ['http://admin:top secret@[bad/x', 'ftp://admin:topsecret@h/x', 'http://admin:pa/secret@cam/x', 'http://admin:pa#secret@cam/x', 'admin:secret@192.0.2.1/snap.jpg', ['http://admin:secret@cam/x'], 'ftp://admin:x@cam/api.cgi?user=admin&password=secret']) {
      const err = errorOf(() => validateConfig({ cameras: [camera({ url })] }));
      expect(err.message).toMatch(/^cameras\[0\]\.url: /);
      expect(err.message).toContain('admin:***@');
      expect(err.message).not.toContain('secret');
    }
    expect(errorOf(() => validateConfig({ cameras: [camera({ url: 'http://admin:50%off@h/x' })] })).message).toBe(
      'cameras[0].url: the user or password has a "%" that starts no valid escape; write a "%" in them as %25 (and "@" as %40, ":" in the user as %3A)',
    );
    expect(validateConfig({ cameras: [camera({ url: 'http://admin:50%25off@h/x' })] }).cameras[0]!.url).toBe('http://admin:50%25off@h/x');
  });

  it('shows where a user and password go on the camera\'s own URL: its scheme, host, port and user, no secret', () => {
    expect(loginExample('https://cam.example:8443/snap.jpg')).toBe('https://user:password@cam.example:8443/snap.jpg');
    expect(loginExample('http://admin:***@192.0.2.1/cgi-bin/snapshot.cgi?channel=1')).toBe('http://admin:password@192.0.2.1/cgi-bin/snapshot.cgi?channel=1');
    expect(loginExample('http://cam/snap.cgi?user=a&pwd=s3cret')).toBe('http://user:password@cam/snap.cgi?user=a&pwd=***');
    // A URL that answered a web page: its path is not the pictures'.
    expect(loginExample('https://cam.example/login.html', false)).toBe('https://user:password@cam.example/path');
    // A message's URL after a redirect; one that does not parse.
    expect(loginExample('https://cam.example/a (redirected to https://cam.example/b)')).toBe('https://user:password@cam.example/a');
    expect(loginExample('cam.example/snap.jpg')).toBe('http://user:password@host/path');
  });

  it('hides a URL\'s secrets in messages without losing its host, and a JSON error does not quote the file', () => {
    expect(hideUrlPassword('http://admin:pw@cam/x?a=b@c')).toBe('http://admin:***@cam/x?a=b@c');
    expect(hideUrlPassword('http://cam:8080/snap@2x.jpg')).toBe('http://cam:8080/snap@2x.jpg');
    expect(hideUrlPassword('http://cam/x?loginuse=admin&loginpas=s3cret&X-Amz-Signature=abc')).toBe('http://cam/x?loginuse=admin&loginpas=***&X-Amz-Signature=***');
    expect(hideUrlPassword('admin:s3cret@192.0.2.1/snap.jpg')).toBe('admin:***@192.0.2.1/snap.jpg');
    const dir = mkdtempSync(join(tmpdir(), 'tc-config-'));
    const file = join(dir, 'c.json');
    writeFileSync(file, '{"cameras":[{"url":"http://a:VerySecret@c/","k":s}]}');
    try {
      const err = errorOf(() => loadConfigFile(file));
      expect(err.message).toMatch(/not valid JSON \(.+\); fix the syntax$/);
      expect(err.message).not.toContain('Secret');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a JSON error that V8 gives with the text around it says where, in one line, without quoting the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-config-'));
    dirs.push(dir);
    const file = join(dir, 'c.json');
    // A URL left unquoted. Before: 'not valid JSON (Unexpected token 'h', ..."   "url": http://a:h"... is not valid
    // JSON)', the file's text (the start of the password too) over two lines, and no line or column.
    writeFileSync(file, '{\n  "cameras": [\n    {\n      "id": "c",\n      "url": http://a:hunter2@192.0.2.10/snapshot.jpg,\n      "roi": []\n    }\n  ]\n}\n');
    expect(errorOf(() => loadConfigFile(file)).message).toBe(`--config ${file}: not valid JSON (Unexpected token 'h' at line 5, column 14); fix the syntax`);
    writeFileSync(file, '{\n  "cameras": [\n    {\n      "id": "c",\n      "roi": [}\n    }\n  ]\n}\n');
    expect(errorOf(() => loadConfigFile(file)).message).toBe(`--config ${file}: not valid JSON (Unexpected token '}' at line 5, column 15); fix the syntax`);
  });

  it('does not need a url for replay', () => {
    expect(validateConfig({ cameras: [camera({ url: undefined })] }, { requireUrl: false }).cameras[0]!.url).toBeUndefined();
  });

  it('allows zero local decoders only for zeromq, where remote decoders connect', () => {
    expect(validateConfig({ cameras: [camera()], channel: 'zeromq', decoders: 0, zeromqEndpoint: 'tcp://127.0.0.1:5555' }).decoders).toBe(0);
    // Over ipc:// (the private default, or given) no remote decoder can connect, so nothing would ever be counted.
    for (const zeromqEndpoint of [undefined, 'ipc:///tmp/tc.sock']) {
      const err = errorOf(() => validateConfig({ cameras: [camera()], channel: 'zeromq', decoders: 0, zeromqEndpoint }));
      expect(err.code).toBe('TC_ERR_CONFIG');
      expect(err.message).toMatch(/^decoders: 0 local decoders needs a zeromqEndpoint "tcp:\/\/HOST:PORT" .* got (the private ipc:\/\/ default|"ipc:\/\/\/tmp\/tc\.sock"); set zeromqEndpoint \(--zeromq-endpoint\) to tcp:\/\/, or decoders to 1 or more$/);
    }
    const base = validateConfig({ cameras: [camera()], channel: 'zeromq' });
    expect(errorOf(() => applyOverrides(base, { decoders: 0 })).message).toMatch(/^--decoders: 0 local decoders needs/);
    // The flag on an ipc config is named as the flag.
    expect(errorOf(() => applyOverrides(validateConfig({ cameras: [camera()] }), { decoders: 0 })).message).toMatch(/^--decoders: 0 \(no local decoder.*needs channel "zeromq", but the channel is "ipc"/);
  });

  it('begins every message about a config file alike: "--config FILE:" (the flag that gave it), or the path where given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-config-'));
    dirs.push(dir);
    const file = join(dir, 'c.json');
    expect(errorOf(() => loadConfigFile(file)).message).toBe(`--config ${file}: cannot read the file (ENOENT); check the path`);
    writeFileSync(file, '{"cameras": [}');
    expect(errorOf(() => loadConfigFile(file)).message).toMatch(/^--config \S+c\.json: not valid JSON \(/);
    // Before: "c.json: cameras[0].roi: …", without the flag the two messages above name.
    writeFileSync(file, JSON.stringify({ cameras: [camera({ roi: undefined })] }));
    expect(errorOf(() => loadConfigFile(file)).message).toBe(`--config ${file}: cameras[0].roi: must be a polygon [[x, y], ...] of at least 3 points, got nothing`);
    // eval:real reads each clip's config.json without a flag: the path alone (before: "--config …" for the first two).
    expect(errorOf(() => loadConfigFile(file, { requireUrl: true }, file)).message).toBe(`${file}: cameras[0].roi: must be a polygon [[x, y], ...] of at least 3 points, got nothing`);
    writeFileSync(file, '{');
    expect(errorOf(() => loadConfigFile(file, { requireUrl: true }, file)).message).toMatch(/^\/\S+c\.json: not valid JSON \(/);
  });

  it('refuses an empty zeromqEndpoint or zeromqKeyFile in a config file, as the flags refuse one, naming the key and what to give', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-config-'));
    dirs.push(dir);
    const file = join(dir, 'c.json');
    const load = (keys: Record<string, unknown>) => {
      writeFileSync(file, JSON.stringify({ cameras: [camera()], channel: 'zeromq', ...keys }));
      return errorOf(() => loadConfigFile(file));
    };
    // Before: "" was taken as unset: a private ipc:// socket, and no key (a blank left for the key file ran without one).
    expect(load({ zeromqEndpoint: '' })).toMatchObject({
      code: 'TC_ERR_CONFIG',
      message: `--config ${file}: zeromqEndpoint: given empty (""); give "ipc://PATH" or "tcp://HOST:PORT", or leave zeromqEndpoint out for a private ipc:// socket`,
    });
    expect(load({ zeromqEndpoint: 'tcp://127.0.0.1:0', zeromqKeyFile: '' })).toMatchObject({
      code: 'TC_ERR_CONFIG',
      message: `--config ${file}: zeromqKeyFile: given empty (""); give the path of a key file written by \`traffic-counter zeromq-key FILE\`, or leave zeromqKeyFile out for none`,
    });
    // Left out, they are unset as before, and a config with them unset still takes flags.
    const unset = validateConfig({ cameras: [camera()] });
    expect([unset.zeromqEndpoint, unset.zeromqKeyFile]).toEqual(['', '']);
    expect(applyOverrides(unset, { channel: 'zeromq' })).toMatchObject({ channel: 'zeromq', zeromqEndpoint: '', zeromqKeyFile: '' });
  });

  it('refuses a tcp:// zeromqEndpoint without a port from 0 to 65535 (ZeroMQ bound 99999 to some other port, silently)', () => {
    for (const zeromqEndpoint of ['tcp://127.0.0.1:99999', 'tcp://127.0.0.1', 'tcp://127.0.0.1:port']) {
      expect(errorOf(() => validateConfig({ cameras: [camera()], channel: 'zeromq', zeromqEndpoint })).message).toBe(
        `zeromqEndpoint: must be "ipc://PATH" or "tcp://HOST:PORT" with PORT 0-65535 (0: any free port, named in the log), got "${zeromqEndpoint}"`,
      );
    }
    expect(validateConfig({ cameras: [camera()], channel: 'zeromq', zeromqEndpoint: 'tcp://0.0.0.0:0' }).zeromqEndpoint).toBe('tcp://0.0.0.0:0');
  });

  it.each([
    ['/stream.mjpg', 'mjpeg'],
    ['/axis-cgi/mjpg/video.cgi', 'mjpeg'],
    ['/videostream.cgi?user=a', 'mjpeg'],
    ['/stream', 'mjpeg'],
    ['/?action=stream', 'mjpeg'],
    ['/?action=snapshot', 'snapshot'],
    ['/ISAPI/Streaming/channels/101/picture', 'snapshot'],
    ['/snapshot.jpg', 'snapshot'],
    ['/cgi-bin/snapshot.cgi', 'snapshot'],
  ])('guesses the kind of %s: %s (the config\'s kind decides where given)', (path, kind) => {
    expect(validateConfig({ cameras: [camera({ url: `http://127.0.0.1:9${path}` })] }).cameras[0]!.kind).toBe(kind);
    const other = kind === 'mjpeg' ? 'snapshot' : 'mjpeg';
    expect(validateConfig({ cameras: [camera({ url: `http://127.0.0.1:9${path}`, kind: other })] }).cameras[0]!.kind).toBe(other);
  });

  it('reports unreadable and malformed files with the file name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-config-'));
    dirs.push(dir);
    expect(errorOf(() => loadConfigFile(join(dir, 'missing.json'))).message).toContain('missing.json: cannot read the file');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"cameras": [');
    expect(errorOf(() => loadConfigFile(bad)).message).toContain('bad.json: not valid JSON');
    // V8's "at position N" is given as the line and column an editor shows (a stray comma on line 3).
    writeFileSync(bad, '{\n  "db": "x.db",\n  "cameras": [],,\n}\n');
    expect(errorOf(() => loadConfigFile(bad)).message).toMatch(/bad\.json: not valid JSON \(.* at line 3, column 17\); fix the syntax$/);
    writeFileSync(bad, '\ufeff{\n "db": 1 "cameras": []}');
    expect(errorOf(() => loadConfigFile(bad)).message).toMatch(/at line 2, column 10\)/);
  });

  it('reads a file saved with a UTF-8 byte-order mark (as Windows Notepad saves it)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-config-'));
    dirs.push(dir);
    const file = join(dir, 'bom.json');
    writeFileSync(file, '\ufeff' + JSON.stringify({ cameras: [camera()] }));
    expect(loadConfigFile(file).cameras[0]!.id).toBe('cam1');
  });
});
