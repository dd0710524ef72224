// The optional libjpeg-turbo decoders (sharp, jpeg-turbo): same frames as jpeg-js within rounding, same
// rejections, a clear ConfigError naming the fix when the package is not installed, and jpeg-turbo's frames
// decoded straight into the shared-memory slots arrive intact.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, onTestFinished, test } from 'vitest';
import { createDecoder, type DecodedImage } from '../dist/src/decode/decode-jpeg.js';
import { SharedMemoryChannel } from '../dist/src/channel/shared-memory-channel.js';
import { LIMITS, OPTIONAL_DECODERS, decodeReference, hasJpegTurbo, hasPackage, makeJpeg, sha1, truncated } from './helpers/jpeg-fixtures.js';
import { tempDir } from './helpers/temp-dir.js';

describe.each(OPTIONAL_DECODERS)('decoder $decoder', ({ decoder, pkg }) => {
  const installed = hasPackage(pkg);

  test.skipIf(!installed)('decodes a 1280x720 JPEG to RGBA matching jpeg-js within rounding', async () => {
    const decode = await createDecoder(decoder);
    const f = makeJpeg(1280, 720, 3);
    const img = await decode(f.jpeg, LIMITS);
    expect([img.width, img.height, img.data.length]).toEqual([1280, 720, 1280 * 720 * 4]);
    const ref = decodeReference(f.jpeg);
    let diff = 0;
    let alphaOk = true;
    for (let i = 0; i < ref.length; i += 4) {
      diff += Math.abs(img.data[i]! - ref[i]!) + Math.abs(img.data[i + 1]! - ref[i + 1]!) + Math.abs(img.data[i + 2]! - ref[i + 2]!);
      if (img.data[i + 3] !== 255) alphaOk = false;
    }
    // libjpeg-turbo and jpeg-js upsample chroma differently; the picture is the same.
    expect(diff / ((ref.length / 4) * 3)).toBeLessThan(4);
    expect(alphaOk).toBe(true);
  });

  test.skipIf(!installed)('rejects truncated, garbage and oversized JPEGs like jpeg-js does, naming the frame', async () => {
    const decode = await createDecoder(decoder);
    const f = makeJpeg(320, 180, 1);
    const attempt = (bytes: Uint8Array, limits = LIMITS) => Promise.resolve().then(() => decode(bytes, limits, { what: 'camera north frame 7' }));
    await expect(attempt(truncated(f))).rejects.toMatchObject({ code: 'TC_ERR_DECODE_CORRUPT' });
    await expect(attempt(truncated(f))).rejects.toThrow(/^camera north frame 7: (truncated|corrupt) JPEG/);
    const garbage = f.jpeg.slice();
    const mid = garbage.length >> 1;
    garbage.set([0xff, 0xd9], mid); // an end-of-image marker in the middle of the entropy-coded data
    await expect(attempt(garbage)).rejects.toMatchObject({ code: 'TC_ERR_DECODE_CORRUPT' });
    await expect(attempt(garbage)).rejects.toThrow(/^camera north frame 7: corrupt JPEG/);
    await expect(attempt(f.jpeg, { maxMegapixels: 0.01, maxDecodeMemoryMB: 64 })).rejects.toMatchObject({ code: 'TC_ERR_DECODE_TOO_LARGE' });
    // The decoder still works after refusing frames.
    expect((await decode(f.jpeg, LIMITS)).width).toBe(320);
  });

  test(`without ${pkg}, --decoder ${decoder} fails with a ConfigError that says how to install it`, () => {
    const dir = tempDir('tc-nodecoder-');
    // A module hook that makes `import(pkg)` fail as it does when the optional package is absent.
    const hook = join(dir, 'hide-package.mjs');
    writeFileSync(
      hook,
      `export async function resolve(s, c, next) {
         if (s === ${JSON.stringify(pkg)}) { const e = new Error("Cannot find package '${pkg}'"); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; }
         return next(s, c);
       }`,
    );
    const decodeJpeg = pathToFileURL(join(import.meta.dirname, '../dist/src/decode/decode-jpeg.js')).href;
    const script = `
      import { createDecoder } from ${JSON.stringify(decodeJpeg)};
      try { await createDecoder(${JSON.stringify(decoder)}); console.log('loaded'); }
      catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }`;
    const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});`;
    const out = execFileSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    const err = JSON.parse(out) as { name: string; code: string; message: string };
    expect(err.name).toBe('ConfigError');
    expect(err.code).toBe('TC_ERR_CONFIG');
    expect(err.message).toContain(`npm install ${pkg}`);
    expect(err.message).toMatch(/--decoder jpeg-js/);
  });
});

test.skipIf(!hasJpegTurbo)(
  'shared channel with jpeg-turbo: frames decoded straight into the slots arrive intact, full size and small, as slots are reused',
  async () => {
    const decode = await createDecoder('jpeg-turbo');
    // Full-size and small frames in turn, so that a small frame lands in a slot a full one used before.
    const fixtures = Array.from({ length: 10 }, (_, k) => (k % 2 === 0 ? makeJpeg(1280, 720, k) : makeJpeg(160, 90, k)));
    const want = await Promise.all(fixtures.map(async (f) => sha1(((await decode(f.jpeg, LIMITS)) as DecodedImage).data)));
    const ch = new SharedMemoryChannel({ maxInFlight: 2, decoders: 2, decoder: 'jpeg-turbo' });
    onTestFinished(() => ch.close());
    await ch.start();
    const got: string[] = [];
    for (let i = 0; i < fixtures.length; i++) {
      while (ch.stats().inFlight >= 2) got.push(take(await ch.next()));
      ch.submit({ cameraId: 'cam', seq: i, capturedAt: 1_700_000_000_000 + i, jpeg: fixtures[i]!.jpeg }, LIMITS);
    }
    while (ch.stats().inFlight > 0) got.push(take(await ch.next()));
    expect(got).toEqual(want);
    expect(ch.stats()).toMatchObject({ delivered: fixtures.length, dropped: 0, decodeErrors: 0 });
  },
);

function take(out: Awaited<ReturnType<SharedMemoryChannel['next']>>): string {
  if (out?.kind !== 'frame') throw new Error(`expected a frame, got ${JSON.stringify(out)}`);
  const h = sha1(out.frame.data);
  out.frame.release();
  return h;
}
