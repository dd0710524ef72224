// The optional sharp (libjpeg-turbo) decoder: same frames as jpeg-js within rounding, same rejections, and a
// clear ConfigError naming the fix when sharp is not installed.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { createDecoder } from '../dist/src/decode/decode-jpeg.js';
import { LIMITS, decodeReference, hasSharp, makeJpeg, truncated } from './helpers/jpeg-fixtures.js';
import { tempDir } from './helpers/temp-dir.js';


describe.skipIf(!hasSharp)('with sharp installed', () => {
  test('decodes a 1280x720 JPEG to RGBA matching jpeg-js within rounding', async () => {
    const decode = await createDecoder('sharp');
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

  test('rejects truncated and oversized JPEGs like jpeg-js does', async () => {
    const decode = await createDecoder('sharp');
    const f = makeJpeg(320, 180, 1);
    await expect(Promise.resolve().then(() => decode(truncated(f), LIMITS))).rejects.toMatchObject({ code: 'TC_ERR_DECODE_CORRUPT' });
    await expect(Promise.resolve().then(() => decode(f.jpeg, { maxMegapixels: 0.01, maxDecodeMemoryMB: 64 }))).rejects.toMatchObject({
      code: 'TC_ERR_DECODE_TOO_LARGE',
    });
  });
});

test('without sharp, --decoder sharp fails with a ConfigError that says how to install it', () => {
  const dir = tempDir('tc-nosharp-');
  // A module hook that makes `import('sharp')` fail as it does when the optional package is absent.
  const hook = join(dir, 'hide-sharp.mjs');
  writeFileSync(
    hook,
    `export async function resolve(s, c, next) {
       if (s === 'sharp') { const e = new Error("Cannot find package 'sharp'"); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; }
       return next(s, c);
     }`,
  );
  const decodeJpeg = pathToFileURL(join(import.meta.dirname, '../dist/src/decode/decode-jpeg.js')).href;
  const script = `
    import { createDecoder } from ${JSON.stringify(decodeJpeg)};
    try { await createDecoder('sharp'); console.log('loaded'); }
    catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});`;
  const out = execFileSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  const err = JSON.parse(out) as { name: string; code: string; message: string };
  expect(err.name).toBe('ConfigError');
  expect(err.code).toBe('TC_ERR_CONFIG');
  expect(err.message).toMatch(/npm install sharp/);
  expect(err.message).toMatch(/--decoder jpeg-js/);
});
