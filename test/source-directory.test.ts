// DirectorySource replays a folder of JPEGs: natural name order, timestamps from --fps, --every K subsampling,
// and clear errors for a missing/empty folder or bad flags.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirectorySource } from '../dist/src/source/directory-source.js';
import { tempDir } from './helpers/temp-dir.js';

/** Writes files whose content is their own name, so the yielded bytes say which file they came from. */
function folder(names: string[]): string {
  const dir = tempDir('tc-source-dir-');
  for (const name of names) writeFileSync(join(dir, name), name);
  return dir;
}

async function replay(src: DirectorySource): Promise<{ name: string; seq: number; capturedAt: number }[]> {
  const out = [];
  for await (const f of src.frames()) out.push({ name: Buffer.from(f.jpeg).toString(), seq: f.seq, capturedAt: f.capturedAt });
  return out;
}

describe('directory replay', () => {
  it('yields JPEG files in natural order with timestamps from fps, ignoring other files', async () => {
    const dir = folder(['frame10.jpg', 'frame2.jpg', 'frame1.JPEG', 'notes.txt', 'frame3.jpeg', 'frame2.png']);
    const src = new DirectorySource({ cameraId: 'replay', dir, fps: 4, startMs: 1_000 });

    const frames = await replay(src);

    expect(frames).toEqual([
      { name: 'frame1.JPEG', seq: 1, capturedAt: 1_000 },
      { name: 'frame2.jpg', seq: 2, capturedAt: 1_250 },
      { name: 'frame3.jpeg', seq: 3, capturedAt: 1_500 },
      { name: 'frame10.jpg', seq: 4, capturedAt: 1_750 },
    ]);
    expect(await src.count()).toBe(4);
    expect(src.stats().frames).toBe(4);
  });

  it('with every=K yields files 1, 1+K, 1+2K… keeping their original timestamps', async () => {
    const names = Array.from({ length: 7 }, (_, i) => `img_${i + 1}.jpg`);
    const src = new DirectorySource({ cameraId: 'replay', dir: folder(names), fps: 10, every: 3 });

    const frames = await replay(src);

    expect(frames).toEqual([
      { name: 'img_1.jpg', seq: 1, capturedAt: 0 },
      { name: 'img_4.jpg', seq: 2, capturedAt: 300 },
      { name: 'img_7.jpg', seq: 3, capturedAt: 600 },
    ]);
    expect(await src.count()).toBe(3);
  });

  it('stops when closed', async () => {
    const src = new DirectorySource({ cameraId: 'replay', dir: folder(['a1.jpg', 'a2.jpg', 'a3.jpg']), fps: 1 });
    const seen: string[] = [];
    for await (const f of src.frames()) {
      seen.push(Buffer.from(f.jpeg).toString());
      await src.close();
    }
    expect(seen).toEqual(['a1.jpg']);
  });

  it('names the folder when it is missing or holds no JPEGs', async () => {
    const missing = join(tempDir('tc-source-dir-'), 'nope');
    const missingSrc = new DirectorySource({ cameraId: 'replay', dir: missing, fps: 5 });
    // Named as the flag that gave it (replay and eval: --frames), not as a "replay directory" under eval.
    await expect(missingSrc.count()).rejects.toMatchObject({ code: 'TC_ERR_SOURCE_DIR', message: `--frames ${missing}: does not exist; give a folder of .jpg/.jpeg frames` });

    const empty = folder(['readme.txt']);
    const emptySrc = new DirectorySource({ cameraId: 'replay', dir: empty, fps: 5 });
    await expect(replay(emptySrc)).rejects.toMatchObject({
      code: 'TC_ERR_SOURCE_DIR',
      message: expect.stringMatching(new RegExp(`^--frames ${empty.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}: no JPEG files`)),
    });
  });

  it('rejects fps ≤ 0 and a non-integer or zero --every, naming the flag', () => {
    const dir = folder(['a.jpg']);
    expect(() => new DirectorySource({ cameraId: 'r', dir, fps: 0 })).toThrow(/--fps/);
    expect(() => new DirectorySource({ cameraId: 'r', dir, fps: Number.NaN })).toThrow(/--fps/);
    expect(() => new DirectorySource({ cameraId: 'r', dir, fps: 5, every: 0 })).toThrow(/--every/);
    expect(() => new DirectorySource({ cameraId: 'r', dir, fps: 5, every: 1.5 })).toThrow(/--every/);
  });
});
