// Binary morphology on 0/1 masks with a (2r+1)² square, done separably so cost does not grow with r².

/** out = dilate(src) with radius r; `tmp` is scratch of the same size. */
export function dilate(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, tmp: Uint8Array): void {
  pass(src, w, h, r, tmp, true, true);
  pass(tmp, w, h, r, out, true, false);
}

/** out = erode(src) with radius r; pixels outside the image count as set, so borders do not shrink blobs. */
export function erode(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, tmp: Uint8Array): void {
  pass(src, w, h, r, tmp, false, true);
  pass(tmp, w, h, r, out, false, false);
}

/** Closing fills gaps narrower than 2r+1 (windscreens, dark bonnets) without growing blobs. */
export function close(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, tmp: Uint8Array, tmp2: Uint8Array): void {
  dilate(src, w, h, r, tmp2, tmp);
  erode(tmp2, w, h, r, out, tmp);
}

// One 1-D pass with a running count of set pixels in the window: max (dilate) is count > 0, min (erode) is
// count === window length.
function pass(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, isDilate: boolean, horizontal: boolean): void {
  const lines = horizontal ? h : w;
  const len = horizontal ? w : h;
  const stride = horizontal ? 1 : w;
  const win = 2 * r + 1;
  for (let l = 0; l < lines; l++) {
    const base = horizontal ? l * w : l;
    // Out-of-range samples: 0 for dilate, 1 for erode.
    const pad = isDilate ? 0 : 1;
    let count = pad * r;
    for (let k = 0; k <= r && k < len; k++) count += src[base + k * stride]!;
    if (r + 1 > len) count += pad * (r + 1 - len);
    for (let i = 0; i < len; i++) {
      out[base + i * stride] = isDilate ? (count > 0 ? 1 : 0) : count === win ? 1 : 0;
      const leaving = i - r;
      const entering = i + r + 1;
      count -= leaving >= 0 ? src[base + leaving * stride]! : pad;
      count += entering < len ? src[base + entering * stride]! : pad;
    }
  }
}
