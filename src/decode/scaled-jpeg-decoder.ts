// A pure-JavaScript baseline JPEG decoder that decodes straight to 1/2, 1/4 or 1/8 of the size, for the
// portable decoder path at decodeScale > 1. Each output pixel is the box average of the scale x scale
// pixels it covers, computed in the DCT domain: the mean of an 8x8 IDCT over a k x k sub-block is a fixed
// linear function of the coefficients, so no full-size IDCT, colour conversion or pixel buffer is needed.
// jpeg-js spends ~85% of a 1280x720 decode on those; entropy decoding, which cannot be skipped, is the rest.
// Handles what cameras send (baseline and extended Huffman, 8-bit, grey or YCbCr, one interleaved scan,
// restart markers); anything else returns null and the caller falls back to jpeg-js + box averaging.

import { DecodeError } from '../errors.js';
import type { DecodedImage } from './decode-jpeg.js';
import { scaledSize, type DecodeScale } from './decode-scale.js';

/** Natural (row-major) index of the k-th coefficient in zigzag order. */
const NATURAL = new Uint8Array([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43,
  36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]);

/**
 * AVG[k][o * 8 + u]: the mean over output cell o (of k cells, each 8/k samples wide) of the 1-D IDCT basis
 * function u, C(u)/2 · cos((2x + 1)uπ/16). The 2-D mean is the product of a row and a column factor.
 */
const AVG: Record<number, Float64Array> = {};
for (const k of [1, 2, 4, 8]) {
  const a = new Float64Array(k * 8);
  const w = 8 / k;
  for (let o = 0; o < k; o++) {
    for (let u = 0; u < 8; u++) {
      let s = 0;
      for (let x = o * w; x < (o + 1) * w; x++) s += Math.cos(((2 * x + 1) * u * Math.PI) / 16);
      a[o * 8 + u] = (s / w) * (u === 0 ? Math.SQRT1_2 : 1) * 0.5;
    }
  }
  AVG[k] = a;
}

/** Canonical Huffman table: a 9-bit lookup for short codes, code ranges per length for the rest. */
interface Huffman {
  /** (length << 8) | symbol for the codes of ≤ 9 bits, indexed by the next 9 bits; 0 = longer code. */
  readonly fast: Uint16Array;
  readonly maxCode: Int32Array; // per length 1..16: largest code, -1 if none
  readonly valPtr: Int32Array; // per length: index in symbols of the smallest code minus that code
  readonly symbols: Uint8Array;
}

interface Component {
  readonly id: number;
  readonly h: number;
  readonly v: number;
  readonly tq: number;
  /** Output pixels per block, across and down (8 component samples averaged into k cells). */
  kx: number;
  ky: number;
  plane: Float32Array;
  planeWidth: number;
  /** weights[k·n + cell]: what coefficient k (zigzag order), dequantized, adds to each of the n = kx·ky cells. */
  weights: Float64Array;
  dc?: Huffman;
  ac?: Huffman;
  pred: number;
}

const FAST_BITS = 9;

function corrupt(what: string, why: string): DecodeError {
  return new DecodeError('TC_ERR_DECODE_CORRUPT', `${what}: corrupt JPEG (${why})`);
}

function buildHuffman(counts: Uint8Array, symbols: Uint8Array, what: string): Huffman {
  const fast = new Uint16Array(1 << FAST_BITS);
  const maxCode = new Int32Array(18).fill(-1);
  const valPtr = new Int32Array(18);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    const n = counts[len - 1]!;
    valPtr[len] = k - code;
    for (let i = 0; i < n; i++, k++, code++) {
      if (len <= FAST_BITS) {
        const shift = FAST_BITS - len;
        for (let j = 0; j < 1 << shift; j++) fast[(code << shift) | j] = (len << 8) | symbols[k]!;
      }
    }
    if (n > 0) maxCode[len] = code - 1;
    if (code > 1 << len) throw corrupt(what, 'Huffman table with more codes than bits');
    code <<= 1;
  }
  maxCode[17] = 0x7fffffff; // sentinel: no code is longer than 16 bits
  return { fast, maxCode, valPtr, symbols };
}

/** Reads the entropy-coded segment: removes byte stuffing, stops at markers (zero bits past them). */
class BitReader {
  pos: number;
  acc = 0; // the low `bits` bits are unread
  bits = 0;
  /** Zero bits appended because a marker or the end of the data was reached. */
  padded = 0;

  constructor(
    readonly data: Uint8Array,
    start: number,
  ) {
    this.pos = start;
  }

  fill(): void {
    const d = this.data;
    while (this.bits <= 24) {
      let b = 0;
      if (this.pos < d.length && (d[this.pos] !== 0xff || d[this.pos + 1] === 0x00)) {
        b = d[this.pos]!;
        this.pos += b === 0xff ? 2 : 1;
      } else {
        this.padded += 8;
      }
      this.acc = ((this.acc << 8) | b) >>> 0;
      this.bits += 8;
    }
  }

  /** Unread bits that came from the data, not from padding (negative: read past a marker). */
  get realBits(): number {
    return this.bits - this.padded;
  }

  decode(t: Huffman): number {
    if (this.bits < 16) this.fill();
    const e = t.fast[(this.acc >>> (this.bits - FAST_BITS)) & ((1 << FAST_BITS) - 1)]!;
    if (e !== 0) {
      this.bits -= e >> 8;
      return e & 0xff;
    }
    let len = FAST_BITS + 1;
    let code = (this.acc >>> (this.bits - len)) & ((1 << len) - 1);
    while (code > t.maxCode[len]!) {
      len++;
      code = (this.acc >>> (this.bits - len)) & ((1 << len) - 1);
    }
    if (len > 16) return -1;
    this.bits -= len;
    return t.symbols[t.valPtr[len]! + code] ?? -1;
  }

  /** Reads s bits (s ≤ 16) as a signed JPEG magnitude (the EXTEND step of the standard). */
  receiveExtend(s: number): number {
    if (this.bits < s) this.fill();
    this.bits -= s;
    const v = (this.acc >>> this.bits) & ((1 << s) - 1);
    return v < 1 << (s - 1) ? v - (1 << s) + 1 : v;
  }

  /** At the k-th restart (from 0): drop the partial byte, step over RST(k mod 8), clear the padding. */
  restart(k: number, what: string): void {
    const d = this.data;
    // Bytes read ahead into acc are whole bytes; give back those that were data (never stuffed 0xff here:
    // an encoder pads the last byte with 1-bits, and a stuffed ff would have been followed by 00).
    let back = Math.floor((this.bits - this.padded) / 8);
    while (back-- > 0) this.pos -= d[this.pos - 1] === 0x00 && d[this.pos - 2] === 0xff ? 2 : 1;
    while (this.pos + 1 < d.length && d[this.pos] === 0xff && d[this.pos + 1] === 0xff) this.pos++;
    const m = d[this.pos + 1];
    // A marker out of sequence means lost or damaged data: better refused than decoded shifted.
    if (d[this.pos] !== 0xff || m !== 0xd0 + (k & 7)) throw corrupt(what, `restart marker ${k & 7} missing at byte ${this.pos}`);
    this.pos += 2;
    this.acc = 0;
    this.bits = 0;
    this.padded = 0;
  }
}

/**
 * Decodes `bytes` at 1/scale (box average per output pixel), or returns null if the JPEG uses a feature
 * this decoder leaves to jpeg-js (progressive, arithmetic coding, 12-bit, CMYK/RGB, several scans).
 * Throws DecodeError for corrupt data. The caller has checked the header against the size limits.
 */
export function decodeScaledJpeg(bytes: Uint8Array, scale: Exclude<DecodeScale, 1>, what = 'JPEG'): DecodedImage | null {
  const d = bytes;
  const qt: (Int32Array | undefined)[] = [];
  const dcTables: (Huffman | undefined)[] = [];
  const acTables: (Huffman | undefined)[] = [];
  let comps: Component[] | null = null;
  let width = 0;
  let height = 0;
  let restartInterval = 0;
  let adobeTransform = -1;
  let pos = 2;
  const u16 = (p: number): number => ((d[p] ?? 0) << 8) | (d[p + 1] ?? 0);
  for (;;) {
    if (pos + 4 > d.length) throw corrupt(what, 'no image data');
    if (d[pos] !== 0xff) throw corrupt(what, `bad marker at byte ${pos}`);
    const marker = d[pos + 1]!;
    if (marker === 0xff) {
      pos++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2; // markers without a length
      continue;
    }
    const len = u16(pos + 2);
    const seg = pos + 4;
    const end = pos + 2 + len;
    if (len < 2 || end > d.length) throw corrupt(what, `segment at byte ${pos} runs past the end`);
    if (marker === 0xdb) {
      for (let p = seg; p < end; ) {
        const pq = d[p]! >> 4;
        const tq = d[p]! & 15;
        if (tq > 3 || pq > 1 || p + 1 + 64 * (pq + 1) > end) throw corrupt(what, 'bad quantization table');
        const t = new Int32Array(64);
        for (let k = 0; k < 64; k++) t[k] = pq ? u16(p + 1 + 2 * k) : d[p + 1 + k]!; // zigzag order, like the coefficients
        qt[tq] = t;
        p += 1 + 64 * (pq + 1);
      }
    } else if (marker === 0xc4) {
      for (let p = seg; p < end; ) {
        const tc = d[p]! >> 4;
        const th = d[p]! & 15;
        const counts = d.subarray(p + 1, p + 17);
        const n = counts.reduce((a, b) => a + b, 0);
        if (tc > 1 || th > 3 || counts.length < 16 || p + 17 + n > end) throw corrupt(what, 'bad Huffman table');
        (tc === 0 ? dcTables : acTables)[th] = buildHuffman(counts, d.slice(p + 17, p + 17 + n), what);
        p += 17 + n;
      }
    } else if (marker === 0xc0 || marker === 0xc1) {
      // The size limits were checked against the first frame header (inspectJpeg); a second one is not trusted.
      if (comps) throw corrupt(what, 'more than one frame header');
      if (d[seg] !== 8) return null; // 12-bit samples
      height = u16(seg + 1);
      width = u16(seg + 3);
      const nf = d[seg + 5]!;
      if (nf !== 1 && nf !== 3) return null;
      if (len < 8 + 3 * nf || width === 0 || height === 0) throw corrupt(what, 'bad frame header');
      comps = [];
      for (let i = 0; i < nf; i++) {
        const p = seg + 6 + 3 * i;
        const h = d[p + 1]! >> 4;
        const v = d[p + 1]! & 15;
        if (h < 1 || h > 4 || v < 1 || v > 4) throw corrupt(what, 'bad sampling factors');
        comps.push({ id: d[p]!, h, v, tq: d[p + 2]!, kx: 0, ky: 0, plane: new Float32Array(0), planeWidth: 0, weights: new Float64Array(0), pred: 0 });
      }
    } else if (marker >= 0xc2 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return null; // progressive, lossless or arithmetic-coded
    } else if (marker === 0xdd) {
      restartInterval = u16(seg);
    } else if (marker === 0xee && len >= 14 && d[seg] === 0x41 && d[seg + 1] === 0x64 && d[seg + 2] === 0x6f && d[seg + 3] === 0x62 && d[seg + 4] === 0x65) {
      adobeTransform = d[seg + 11]!; // "Adobe": 0 = RGB/CMYK as stored, 1 = YCbCr
    } else if (marker === 0xda) {
      if (!comps) throw corrupt(what, 'image data before the frame header');
      if (comps.length === 3 && adobeTransform === 0) return null; // RGB, not YCbCr
      const ns = d[seg]!;
      if (ns !== comps.length) return null; // components in separate scans
      const scan: Component[] = [];
      for (let i = 0; i < ns; i++) {
        const c = comps.find((x) => x.id === d[seg + 1 + 2 * i]);
        if (!c || scan.includes(c)) throw corrupt(what, 'scan names an unknown component');
        c.dc = dcTables[d[seg + 2 + 2 * i]! >> 4];
        c.ac = acTables[d[seg + 2 + 2 * i]! & 15];
        if (!c.dc || !c.ac) throw corrupt(what, 'scan uses a missing Huffman table');
        if (!qt[c.tq]) throw corrupt(what, 'component uses a missing quantization table');
        scan.push(c);
      }
      const ss = d[seg + 1 + 2 * ns];
      const se = d[seg + 2 + 2 * ns];
      const a = d[seg + 3 + 2 * ns];
      if (ss !== 0 || se !== 63 || a !== 0) return null;
      return decodeScan(d, end, scan, comps, qt, width, height, scale, restartInterval, what);
    } else if (marker === 0xd9) {
      throw corrupt(what, 'no image data');
    }
    pos = end;
  }
}

function decodeScan(
  d: Uint8Array,
  start: number,
  scan: Component[],
  comps: Component[],
  qt: (Int32Array | undefined)[],
  width: number,
  height: number,
  scale: number,
  restartInterval: number,
  what: string,
): DecodedImage | null {
  const maxH = Math.max(...comps.map((c) => c.h));
  const maxV = Math.max(...comps.map((c) => c.v));
  const mcusX = Math.ceil(width / (8 * maxH));
  const mcusY = Math.ceil(height / (8 * maxV));
  const out = scaledSize(width, height, scale as DecodeScale);
  for (const c of comps) {
    // A block covers 8·maxH/h pixels across; at 1/scale that is kx output pixels, each averaging 8/kx samples.
    const spanX = (8 * maxH) / c.h;
    const spanY = (8 * maxV) / c.v;
    if (spanX % scale !== 0 || spanY % scale !== 0 || spanX / scale > 8 || spanY / scale > 8) return null;
    c.kx = spanX / scale;
    c.ky = spanY / scale;
    c.planeWidth = mcusX * c.h * c.kx; // blocks per line × output pixels per block
    c.plane = new Float32Array(c.planeWidth * mcusY * c.v * c.ky);
    c.weights = cellWeights(qt[c.tq]!, c.kx, c.ky);
    c.pred = 0;
  }
  const br = new BitReader(d, start);
  const cell = new Float64Array(64);
  const total = mcusX * mcusY;
  for (let m = 0; m < total; m++) {
    if (restartInterval > 0 && m > 0 && m % restartInterval === 0) {
      br.restart(m / restartInterval - 1, what);
      for (const c of scan) c.pred = 0;
    }
    const mx = m % mcusX;
    const my = (m - mx) / mcusX;
    for (const c of scan) {
      const wt = c.weights;
      const kx = c.kx;
      const ky = c.ky;
      const n = kx * ky;
      const acUsed = n > 1;
      for (let by = 0; by < c.v; by++) {
        for (let bx = 0; bx < c.h; bx++) {
          // DC: a constant over the block, mean = DC·q/8.
          const t = br.decode(c.dc!);
          if (t < 0 || t > 11) throw corrupt(what, 'bad Huffman code');
          if (t > 0) c.pred += br.receiveExtend(t);
          cell.fill(c.pred * wt[0]!, 0, n);
          for (let k = 1; k < 64; ) {
            const rs = br.decode(c.ac!);
            if (rs < 0) throw corrupt(what, 'bad Huffman code');
            const s = rs & 15;
            const r = rs >> 4;
            if (s === 0) {
              if (r !== 15) break; // end of block
              k += 16;
              continue;
            }
            k += r;
            if (k > 63) throw corrupt(what, 'coefficient index past 63');
            const value = br.receiveExtend(s);
            if (acUsed) for (let i = 0, w = k * n; i < n; i++, w++) cell[i]! += value * wt[w]!;
            k++;
          }
          const x0 = (mx * c.h + bx) * kx;
          const y0 = (my * c.v + by) * ky;
          for (let oy = 0; oy < ky; oy++) {
            let p = (y0 + oy) * c.planeWidth + x0;
            for (let ox = 0; ox < kx; ox++) c.plane[p++] = cell[oy * kx + ox]! + 128;
          }
        }
      }
    }
    if (br.realBits < 0) throw corrupt(what, `image data ends early (${m + 1} of ${total} blocks of pixels decoded)`);
  }
  return { width: out.width, height: out.height, data: toRgba(comps, out.width, out.height), scale: scale as DecodeScale };
}

/** Per coefficient (zigzag order), its dequantized contribution to each cell's mean; see AVG. */
function cellWeights(q: Int32Array, kx: number, ky: number): Float64Array {
  const n = kx * ky;
  const ax = AVG[kx]!;
  const ay = AVG[ky]!;
  const w = new Float64Array(64 * n);
  for (let k = 0; k < 64; k++) {
    const u = NATURAL[k]! & 7; // horizontal frequency
    const v = NATURAL[k]! >> 3; // vertical frequency
    for (let oy = 0; oy < ky; oy++) for (let ox = 0; ox < kx; ox++) w[k * n + oy * kx + ox] = q[k]! * ay[oy * 8 + v]! * ax[ox * 8 + u]!;
  }
  return w;
}

/** Planes at output resolution → RGBA (JFIF YCbCr → RGB). */
function toRgba(comps: Component[], w: number, h: number): Uint8Array {
  const rgba = new Uint8ClampedArray(w * h * 4);
  const [y, cb, cr] = comps;
  for (let row = 0; row < h; row++) {
    let o = row * w * 4;
    let p = row * y!.planeWidth;
    if (!cb || !cr) {
      for (let x = 0; x < w; x++, o += 4) {
        const l = y!.plane[p++]!;
        rgba[o] = l;
        rgba[o + 1] = l;
        rgba[o + 2] = l;
        rgba[o + 3] = 255;
      }
      continue;
    }
    let pb = row * cb.planeWidth;
    let pr = row * cr.planeWidth;
    for (let x = 0; x < w; x++, o += 4) {
      const l = y!.plane[p++]!;
      const u = cb.plane[pb++]! - 128;
      const v = cr.plane[pr++]! - 128;
      rgba[o] = l + 1.402 * v;
      rgba[o + 1] = l - 0.344136 * u - 0.714136 * v;
      rgba[o + 2] = l + 1.772 * u;
      rgba[o + 3] = 255;
    }
  }
  return new Uint8Array(rgba.buffer);
}
