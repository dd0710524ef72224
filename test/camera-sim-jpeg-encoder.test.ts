// The simulator's built-in JPEG encoder: standard baseline files that jpeg-js decodes back to the
// rendered image, at any frame size, with quality trading size for fidelity.
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { createScene } from '../dist/src/source/camera-sim/index.js';
import { JpegEncoder } from '../dist/src/source/camera-sim/jpeg-encoder.js';

function psnr(a: Uint8Array, b: Uint8Array): number {
  let se = 0, n = 0;
  for (let i = 0; i < a.length; i++) {
    if ((i & 3) === 3) continue; // alpha
    se += (a[i]! - b[i]!) ** 2;
    n++;
  }
  return 10 * Math.log10((255 * 255) / (se / n));
}

describe('camera-sim JPEG encoder', () => {
  it('encodes a rendered frame that decodes to nearly the same pixels; lower quality is smaller and less exact', () => {
    const scene = createScene({ seed: 4, width: 640, height: 360 });
    const rgba = scene.render(20);
    const enc = new JpegEncoder();
    const hi = enc.encode(rgba, 640, 360, 90);
    const lo = enc.encode(rgba, 640, 360, 40);
    expect([...hi.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect([...hi.subarray(-2)]).toEqual([0xff, 0xd9]);
    const dHi = jpeg.decode(hi, { useTArray: true });
    const dLo = jpeg.decode(lo, { useTArray: true });
    expect([dHi.width, dHi.height]).toEqual([640, 360]);
    expect(psnr(rgba, dHi.data)).toBeGreaterThan(30);
    expect(psnr(rgba, dHi.data)).toBeGreaterThan(psnr(rgba, dLo.data));
    expect(lo.length).toBeLessThan(hi.length);
  });

  it('handles frame sizes that are not multiples of the 16-pixel block', () => {
    const enc = new JpegEncoder();
    for (const [w, h] of [[1, 1], [17, 9], [33, 31]] as const) {
      const rgba = new Uint8Array(w * h * 4);
      for (let i = 0; i < rgba.length; i += 4) {
        rgba[i] = 200; rgba[i + 1] = 40; rgba[i + 2] = 90; rgba[i + 3] = 255;
      }
      const d = jpeg.decode(enc.encode(rgba, w, h, 85), { useTArray: true });
      expect([d.width, d.height]).toEqual([w, h]);
      // A flat colour survives within a few levels.
      expect(Math.abs(d.data[0]! - 200)).toBeLessThan(6);
      expect(Math.abs(d.data[1]! - 40)).toBeLessThan(6);
      expect(Math.abs(d.data[2]! - 90)).toBeLessThan(6);
    }
  });

  it('scene.encodeJpeg can use jpeg-js instead, and both decode to the same frame closely', () => {
    const a = createScene({ seed: 4, width: 320, height: 180, jpegQuality: 85 });
    const b = createScene({ seed: 4, width: 320, height: 180, jpegQuality: 85, jpegEncoder: 'jpeg-js' });
    const da = jpeg.decode(a.encodeJpeg(10).jpeg, { useTArray: true }).data;
    const db = jpeg.decode(b.encodeJpeg(10).jpeg, { useTArray: true }).data;
    expect(psnr(da, db)).toBeGreaterThan(30);
  });
});
