// Binary morphology (the analyzer's closing of the foreground mask) against a direct definition: a pixel of
// dilate(src) is set when any pixel of its (2r+1)² window is set; of erode(src) when every pixel of the window
// that lies inside the image is set (the border does not shrink blobs).
import { describe, expect, test } from 'vitest';
import { close, dilate, erode } from '../dist/src/analyze/morphology.js';

function reference(src: Uint8Array, w: number, h: number, r: number, isDilate: boolean): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let any = false;
      let all = true;
      for (let dy = -r; dy <= r; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          const yy = y + dy, xx = x + dx;
          if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
          if (src[yy * w + xx]) any = true;
          else all = false;
        }
      }
      out[y * w + x] = (isDilate ? any : all) ? 1 : 0;
    }
  }
  return out;
}

function randomMask(w: number, h: number, density: number, seed: number): Uint8Array {
  let s = seed >>> 0;
  const m = new Uint8Array(w * h);
  for (let i = 0; i < m.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    m[i] = s / 2 ** 32 < density ? 1 : 0;
  }
  return m;
}

const sizes: [number, number][] = [[37, 23], [64, 5], [3, 40], [1, 1], [2, 7]];

describe.each([1, 2, 3])('radius %i', (r) => {
  test.each(sizes)('dilate and erode of random %ix%i masks match the definition', (w, h) => {
    for (const density of [0.1, 0.5, 0.9]) {
      const src = randomMask(w, h, density, w * 31 + h + r);
      const out = new Uint8Array(w * h);
      const tmp = new Uint8Array(w * h);
      dilate(src, w, h, r, out, tmp);
      expect(out).toEqual(reference(src, w, h, r, true));
      erode(src, w, h, r, out, tmp);
      expect(out).toEqual(reference(src, w, h, r, false));
    }
  });
});

test('closing fills a one-pixel gap in a blob and leaves the blob no larger', () => {
  const w = 20, h = 10;
  const src = new Uint8Array(w * h);
  for (let y = 3; y < 7; y++) for (let x = 4; x < 15; x++) src[y * w + x] = x === 9 ? 0 : 1;
  const out = new Uint8Array(w * h);
  close(src, w, h, 1, out, new Uint8Array(w * h), new Uint8Array(w * h));
  const expected = new Uint8Array(w * h);
  for (let y = 3; y < 7; y++) for (let x = 4; x < 15; x++) expected[y * w + x] = 1;
  expect(out).toEqual(expected);
});
