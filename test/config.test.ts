// Config validation: defaults fill in, bad keys are named with a fix, the result is frozen.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig, loadConfigFile } from '../dist/src/config/validate-config.js';

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
    expect(cfg.channel).toBe('ipc');
    expect(cfg.db).toBe('./data/counts.db');
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(Object.isFrozen(cfg.cameras[0]!.roi)).toBe(true);
    expect(() => {
      (cfg as { db: string }).db = 'x';
    }).toThrow();
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
    [{ cameras: [camera({ lines: [{ id: 'a', from: [0, 0], to: [0, 0] }] })] }, 'cameras[0].lines[0]: "from" and "to" are the same point'],
    [{ cameras: [camera({ lines: [{ id: 'a', from: [0, 0], to: [1, 0] }, { id: 'a', from: [0, 1], to: [1, 1] }] })] }, 'cameras[0].lines[1].id: "a" is used twice'],
    [{ cameras: [camera(), camera()] }, 'cameras[1].id: "cam1" is used twice'],
    [{ cameras: [camera({ colour: 'red' })] }, 'cameras[0].colour: unknown key'],
    [{ cameras: [camera()], channel: 'pigeon' }, 'channel: must be one of "ipc", "zeromq", "shared"'],
    [{ cameras: [camera()], decoders: 0 }, 'decoders: must be an integer from 1 to 64'],
  ])('rejects %j', (raw, message) => {
    const err = errorOf(() => validateConfig(raw));
    expect(err.code).toBe('TC_ERR_CONFIG');
    expect(err.message).toContain(message);
  });

  it('does not need a url for replay', () => {
    expect(validateConfig({ cameras: [camera({ url: undefined })] }, { requireUrl: false }).cameras[0]!.url).toBeUndefined();
  });

  it('allows zero local decoders only for zeromq, where remote decoders connect', () => {
    expect(validateConfig({ cameras: [camera()], channel: 'zeromq', decoders: 0, zeromqEndpoint: 'tcp://127.0.0.1:5555' }).decoders).toBe(0);
  });

  it('guesses an MJPEG stream from the URL', () => {
    const cfg = validateConfig({ cameras: [camera({ url: 'http://127.0.0.1:9/stream.mjpg' })] });
    expect(cfg.cameras[0]!.kind).toBe('mjpeg');
  });

  it('reports unreadable and malformed files with the file name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-config-'));
    dirs.push(dir);
    expect(errorOf(() => loadConfigFile(join(dir, 'missing.json'))).message).toContain('missing.json: cannot read the file');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"cameras": [');
    expect(errorOf(() => loadConfigFile(bad)).message).toContain('bad.json: not valid JSON');
  });
});
