// A small baseline JPEG encoder (YCbCr 4:2:0, standard Annex K tables) for the simulator: real cameras
// send 4:2:0, and it is several times faster than jpeg-js's 4:4:4 encoder, which matters when one
// 2-core machine runs the simulator, the decoder and the analyzer at once.

const ZIGZAG_POS = new Uint8Array([
  0, 1, 5, 6, 14, 15, 27, 28, 2, 4, 7, 13, 16, 26, 29, 42, 3, 8, 12, 17, 25, 30, 41, 43, 9, 11, 18, 24, 31, 40, 44, 53, 10, 19, 23, 32,
  39, 45, 52, 54, 20, 22, 33, 38, 46, 51, 55, 60, 21, 34, 37, 47, 50, 56, 59, 61, 35, 36, 48, 49, 57, 58, 62, 63,
]); // natural (row-major) index → position in zigzag order

const LUMA_Q = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22,
  37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_Q = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
  ...new Array<number>(32).fill(99),
];

const DC_LUMA_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_CHROMA_BITS = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_LUMA_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
const AC_LUMA_VALUES = [
  0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91,
  0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a,
  0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53,
  0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79,
  0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
  0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
  0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2,
  0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
];
const AC_CHROMA_BITS = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77];
const AC_CHROMA_VALUES = [
  0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14,
  0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17,
  0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a,
  0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78,
  0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
  0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
  0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2,
  0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
];

// AAN DCT output scale factors.
const AASF = [1.0, 1.387039845, 1.306562965, 1.175875602, 1.0, 0.785694958, 0.5411961, 0.275899379];

interface Huffman {
  readonly code: Uint16Array;
  readonly size: Uint8Array;
}

function huffman(bits: readonly number[], values: readonly number[]): Huffman {
  const code = new Uint16Array(256), size = new Uint8Array(256);
  let c = 0, k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < bits[len - 1]!; i++) {
      code[values[k]!] = c++;
      size[values[k]!] = len;
      k++;
    }
    c <<= 1;
  }
  return { code, size };
}

const DC_LUMA = huffman(DC_LUMA_BITS, DC_VALUES);
const DC_CHROMA = huffman(DC_CHROMA_BITS, DC_VALUES);
const AC_LUMA = huffman(AC_LUMA_BITS, AC_LUMA_VALUES);
const AC_CHROMA = huffman(AC_CHROMA_BITS, AC_CHROMA_VALUES);

interface QuantTables {
  /** DQT payload: both tables in zigzag order. */
  readonly dqt: Uint8Array;
  /** Multipliers that fold the AAN scale and the quantizer, natural order. */
  readonly lumaMul: Float64Array;
  readonly chromaMul: Float64Array;
}

function quantTables(quality: number): QuantTables {
  const sf = quality < 50 ? Math.floor(5000 / quality) : Math.floor(200 - quality * 2); // IJG scaling
  const dqt = new Uint8Array(130);
  const lumaMul = new Float64Array(64), chromaMul = new Float64Array(64);
  dqt[0] = 0;
  dqt[65] = 1;
  for (let k = 0; k < 64; k++) {
    const ql = Math.min(255, Math.max(1, Math.floor((LUMA_Q[k]! * sf + 50) / 100)));
    const qc = Math.min(255, Math.max(1, Math.floor((CHROMA_Q[k]! * sf + 50) / 100)));
    dqt[1 + ZIGZAG_POS[k]!] = ql;
    dqt[66 + ZIGZAG_POS[k]!] = qc;
    const s = AASF[k >> 3]! * AASF[k & 7]! * 8;
    lumaMul[k] = 1 / (ql * s);
    chromaMul[k] = 1 / (qc * s);
  }
  return { dqt, lumaMul, chromaMul };
}

/** In-place AAN forward DCT of an 8x8 block (natural order), then quantization into out (zigzag order). */
function dctQuant(d: Float64Array, mul: Float64Array, out: Int32Array): void {
  for (let o = 0; o < 64; o += 8) {
    const t0 = d[o]! + d[o + 7]!, t7 = d[o]! - d[o + 7]!;
    const t1 = d[o + 1]! + d[o + 6]!, t6 = d[o + 1]! - d[o + 6]!;
    const t2 = d[o + 2]! + d[o + 5]!, t5 = d[o + 2]! - d[o + 5]!;
    const t3 = d[o + 3]! + d[o + 4]!, t4 = d[o + 3]! - d[o + 4]!;
    const t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
    d[o] = t10 + t11;
    d[o + 4] = t10 - t11;
    const z1 = (t12 + t13) * 0.707106781;
    d[o + 2] = t13 + z1;
    d[o + 6] = t13 - z1;
    const s10 = t4 + t5, s11 = t5 + t6, s12 = t6 + t7;
    const z5 = (s10 - s12) * 0.382683433;
    const z2 = 0.5411961 * s10 + z5, z4 = 1.306562965 * s12 + z5, z3 = s11 * 0.707106781;
    const z11 = t7 + z3, z13 = t7 - z3;
    d[o + 5] = z13 + z2;
    d[o + 3] = z13 - z2;
    d[o + 1] = z11 + z4;
    d[o + 7] = z11 - z4;
  }
  for (let o = 0; o < 8; o++) {
    const t0 = d[o]! + d[o + 56]!, t7 = d[o]! - d[o + 56]!;
    const t1 = d[o + 8]! + d[o + 48]!, t6 = d[o + 8]! - d[o + 48]!;
    const t2 = d[o + 16]! + d[o + 40]!, t5 = d[o + 16]! - d[o + 40]!;
    const t3 = d[o + 24]! + d[o + 32]!, t4 = d[o + 24]! - d[o + 32]!;
    const t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
    d[o] = t10 + t11;
    d[o + 32] = t10 - t11;
    const z1 = (t12 + t13) * 0.707106781;
    d[o + 16] = t13 + z1;
    d[o + 48] = t13 - z1;
    const s10 = t4 + t5, s11 = t5 + t6, s12 = t6 + t7;
    const z5 = (s10 - s12) * 0.382683433;
    const z2 = 0.5411961 * s10 + z5, z4 = 1.306562965 * s12 + z5, z3 = s11 * 0.707106781;
    const z11 = t7 + z3, z13 = t7 - z3;
    d[o + 40] = z13 + z2;
    d[o + 24] = z13 - z2;
    d[o + 8] = z11 + z4;
    d[o + 56] = z11 - z4;
  }
  for (let k = 0; k < 64; k++) out[ZIGZAG_POS[k]!] = Math.round(d[k]! * mul[k]!);
}

/** Encodes RGBA frames as baseline JFIF JPEGs; reuses its buffers between calls (not re-entrant). */
export class JpegEncoder {
  private readonly tables = new Map<number, QuantTables>();
  private out = new Uint8Array(256 * 1024);
  private pos = 0;
  private bitBuf = 0;
  private bitCount = 0;
  private readonly yBlocks = [new Float64Array(64), new Float64Array(64), new Float64Array(64), new Float64Array(64)];
  private readonly cb = new Float64Array(64);
  private readonly cr = new Float64Array(64);
  private readonly coef = new Int32Array(64);

  /**
   * Returns a new Buffer with the JPEG of an RGBA image at quality 1..100. `restartInterval` > 0 puts a
   * restart marker after every that many 16x16 blocks, as many IP cameras do (so decoders meet them).
   */
  encode(rgba: Uint8Array, width: number, height: number, quality: number, restartInterval = 0): Buffer {
    const q = Math.min(100, Math.max(1, Math.round(quality)));
    let t = this.tables.get(q);
    if (!t) {
      t = quantTables(q);
      this.tables.set(q, t);
    }
    this.pos = 0;
    this.bitBuf = 0;
    this.bitCount = 0;
    this.ensure(2048);
    this.headers(width, height, t, restartInterval);
    let dcY = 0, dcCb = 0, dcCr = 0;
    let mcu = 0;
    const Y = this.yBlocks, cb = this.cb, cr = this.cr;
    const maxX = width - 1, maxY = height - 1;
    for (let my = 0; my < height; my += 16) {
      this.ensure(width * 16 * 2 + 4096);
      for (let mx = 0; mx < width; mx += 16, mcu++) {
        if (restartInterval > 0 && mcu > 0 && mcu % restartInterval === 0) {
          this.padToByte();
          this.byte(0xff);
          this.byte(0xd0 + ((mcu / restartInterval - 1) & 7)); // RST0..RST7 in turn
          dcY = dcCb = dcCr = 0;
        }
        cb.fill(0);
        cr.fill(0);
        for (let yy = 0; yy < 16; yy++) {
          const py = Math.min(my + yy, maxY);
          const row = py * width;
          const blockRow = (yy >> 3) * 2;
          const inRow = (yy & 7) * 8;
          const cRow = (yy >> 1) * 8;
          for (let xx = 0; xx < 16; xx++) {
            const p = (row + Math.min(mx + xx, maxX)) * 4;
            const r = rgba[p]!, g = rgba[p + 1]!, b = rgba[p + 2]!;
            Y[blockRow + (xx >> 3)]![inRow + (xx & 7)] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
            // Chroma is averaged over 2x2 pixels (4:2:0); the 0.25 is applied below.
            const c = cRow + (xx >> 1);
            cb[c] += -0.168736 * r - 0.331264 * g + 0.5 * b;
            cr[c] += 0.5 * r - 0.418688 * g - 0.081312 * b;
          }
        }
        for (let i = 0; i < 4; i++) dcY = this.block(Y[i]!, t.lumaMul, dcY, DC_LUMA, AC_LUMA);
        for (let i = 0; i < 64; i++) {
          cb[i] *= 0.25;
          cr[i] *= 0.25;
        }
        dcCb = this.block(cb, t.chromaMul, dcCb, DC_CHROMA, AC_CHROMA);
        dcCr = this.block(cr, t.chromaMul, dcCr, DC_CHROMA, AC_CHROMA);
      }
    }
    this.padToByte();
    this.byte(0xff);
    this.byte(0xd9);
    return Buffer.from(this.out.subarray(0, this.pos));
  }

  private block(data: Float64Array, mul: Float64Array, prevDc: number, dc: Huffman, ac: Huffman): number {
    const c = this.coef;
    dctQuant(data, mul, c);
    const diff = c[0]! - prevDc;
    if (diff === 0) {
      this.bits(dc.code[0]!, dc.size[0]!);
    } else {
      const n = 32 - Math.clz32(diff < 0 ? -diff : diff);
      this.bits(dc.code[n]!, dc.size[n]!);
      this.bits(diff < 0 ? (diff - 1) & ((1 << n) - 1) : diff, n);
    }
    let last = 63;
    while (last > 0 && c[last] === 0) last--;
    let run = 0;
    for (let i = 1; i <= last; i++) {
      const v = c[i]!;
      if (v === 0) {
        run++;
        continue;
      }
      while (run >= 16) {
        this.bits(ac.code[0xf0]!, ac.size[0xf0]!); // sixteen zeros
        run -= 16;
      }
      const n = 32 - Math.clz32(v < 0 ? -v : v);
      const sym = (run << 4) | n;
      this.bits(ac.code[sym]!, ac.size[sym]!);
      this.bits(v < 0 ? (v - 1) & ((1 << n) - 1) : v, n);
      run = 0;
    }
    if (last < 63) this.bits(ac.code[0]!, ac.size[0]!); // end of block
    return c[0]!;
  }

  /** Appends `size` bits (at most 16), stuffing a zero after every 0xFF byte of entropy-coded data. */
  private bits(value: number, size: number): void {
    this.bitBuf = (this.bitBuf << size) | (value & ((1 << size) - 1));
    this.bitCount += size;
    while (this.bitCount >= 8) {
      this.bitCount -= 8;
      const b = (this.bitBuf >>> this.bitCount) & 0xff;
      this.out[this.pos++] = b;
      if (b === 0xff) this.out[this.pos++] = 0;
    }
    this.bitBuf &= (1 << this.bitCount) - 1;
  }

  private padToByte(): void {
    if (this.bitCount > 0) this.bits((1 << (8 - this.bitCount)) - 1, 8 - this.bitCount); // pad with ones
  }

  private byte(b: number): void {
    this.out[this.pos++] = b;
  }

  private word(w: number): void {
    this.out[this.pos++] = w >> 8;
    this.out[this.pos++] = w & 0xff;
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.out.length) return;
    const bigger = new Uint8Array(Math.max(this.out.length * 2, this.pos + extra));
    bigger.set(this.out.subarray(0, this.pos));
    this.out = bigger;
  }

  private headers(width: number, height: number, t: QuantTables, restartInterval: number): void {
    this.word(0xffd8); // SOI
    this.word(0xffe0); // APP0 JFIF 1.1, no density unit
    this.word(16);
    for (const c of [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]) this.byte(c);
    this.word(0xffdb); // DQT
    this.word(2 + t.dqt.length);
    for (const b of t.dqt) this.byte(b);
    this.word(0xffc0); // SOF0: 3 components, Y sampled 2x2, Cb and Cr 1x1
    this.word(17);
    this.byte(8);
    this.word(height);
    this.word(width);
    this.byte(3);
    for (const c of [1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]) this.byte(c);
    this.word(0xffc4); // DHT
    const tables: [number, readonly number[], readonly number[]][] = [
      [0x00, DC_LUMA_BITS, DC_VALUES],
      [0x10, AC_LUMA_BITS, AC_LUMA_VALUES],
      [0x01, DC_CHROMA_BITS, DC_VALUES],
      [0x11, AC_CHROMA_BITS, AC_CHROMA_VALUES],
    ];
    this.word(2 + tables.reduce((s, [, , v]) => s + 17 + v.length, 0));
    for (const [cls, bits, values] of tables) {
      this.byte(cls);
      for (const b of bits) this.byte(b);
      for (const v of values) this.byte(v);
    }
    if (restartInterval > 0) {
      this.word(0xffdd); // DRI
      this.word(4);
      this.word(restartInterval);
    }
    this.word(0xffda); // SOS
    this.word(12);
    this.byte(3);
    for (const c of [1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]) this.byte(c);
  }
}
