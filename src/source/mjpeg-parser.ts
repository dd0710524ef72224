// Incremental, bounded parser for multipart/x-mixed-replace (MJPEG) bodies: feed it network chunks, get back
// complete JPEG parts. Never holds more than maxPartBytes plus header bytes; oversized parts are skipped. A stream
// whose parts use another boundary than the declared one is read with the one it uses (see #seekFirstDelimiter).

export interface MjpegParserOptions {
  /**
   * The boundary from the Content-Type header, with or without leading "--". Omitted: taken from the first "--token"
   * line. Given, but the stream's first part is delimited by another "--token" line: that one is used instead.
   */
  readonly boundary?: string;
  /** Largest part kept; a bigger part is discarded and the parser resyncs on the next boundary. */
  readonly maxPartBytes: number;
  /** Largest header block of one part (default 8 KiB); beyond it the part is treated as garbage. */
  readonly maxHeaderBytes?: number;
}

export interface MjpegParserStats {
  /** Complete parts returned. */
  parts: number;
  /** Parts discarded for exceeding maxPartBytes. */
  oversized: number;
  /** Size of the latest oversized part: its Content-Length, or the bytes seen before giving up on it. */
  lastOversizedBytes?: number;
  /** Whether lastOversizedBytes is the part's whole size (its Content-Length, or its end was seen), not a lower bound. */
  lastOversizedExact?: boolean;
  /** Header blocks that were too long or malformed. */
  badHeaders: number;
  /**
   * Parts whose Content-Length reached past their JPEG's end and into the next delimiter line: each was cut at that
   * delimiter (its JPEG kept) and the bytes after it read as the next part, rather than swallowing that delimiter.
   */
  overlong: number;
  /** The latest overlong part: its Content-Length, and the JPEG's real size up to the delimiter. */
  lastOverlong?: { claimed: number; actual: number };
  /**
   * Partial frames (no JPEG end-of-image marker) whose Content-Length reached into the next part's delimiter line and
   * headers: each was cut at that delimiter and dropped, and the next part read from it, rather than lost with it.
   */
  cutShort: number;
  /** The latest such part: its Content-Length, and the bytes that came before the delimiter. */
  lastCutShort?: { claimed: number; actual: number };
  /** Bytes skipped while looking for a boundary (garbage, preambles, the rest of discarded parts). */
  skippedBytes: number;
  /** Bytes held right now. */
  bufferedBytes: number;
  /** Delimiter lines read, each starting a part (0 until the stream's first). */
  delimiters: number;
  /** Set when the stream's parts use another boundary than the declared one, which was then dropped (both without "--"). */
  boundaryMismatch?: { declared: string; found: string };
}

import { ConfigError } from '../errors.js';

const LF = 0x0a;
const CR = 0x0d;
const DASH = 0x2d;
/** RFC 2046 boundaries are at most 70 characters. */
const MAX_BOUNDARY = 70;
const INITIAL_BUFFER = 64 * 1024;
/** A part header line: a field name (printable ASCII but the colon), then a colon. */
const HEADER_LINE = /^[!-9;-~]+:/;

/** Whether the byte after a delimiter's text ends it (line end or blank), not continues another token. */
function endsDelimiter(b: number): boolean {
  return b === CR || b === LF || b === 0x20 || b === 0x09;
}

/** Where the dashes just before view[at] begin: a delimiter line may carry extra leading ones ("----foo" for "--foo"). */
function dashesBefore(view: Uint8Array, at: number): number {
  let j = at;
  while (j > 0 && view[j - 1] === DASH) j--;
  return j;
}

/** Whether a trimmed line is a delimiter line "--token" (RFC 2046 length, no spaces; not a closing "--token--"). */
function isDelimiterLine(line: string): boolean {
  return line.length > 2 && line.length <= MAX_BOUNDARY + 2 && /^--[!-~]+$/.test(line) && !line.endsWith('--');
}

/** Whether view[0, end) ends at a JPEG's end-of-image marker, bar padding and line breaks some cameras add after it. */
function endsAtJpegEnd(view: Uint8Array, end: number): boolean {
  let e = end;
  while (e > 4 && (view[e - 1] === 0x00 || view[e - 1] === CR || view[e - 1] === LF || view[e - 1] === 0x20 || view[e - 1] === 0x09)) e--;
  return e >= 4 && view[e - 2] === 0xff && view[e - 1] === 0xd9;
}

type State = 'boundary' | 'headers' | 'body-length' | 'body-scan';

export class MjpegParser {
  readonly stats: MjpegParserStats = { parts: 0, oversized: 0, badHeaders: 0, overlong: 0, cutShort: 0, skippedBytes: 0, bufferedBytes: 0, delimiters: 0 };
  /**
   * For each part returned by the latest push(), the capture instant its X-Sim-Time header stamped (epoch ms),
   * or NaN without one. Reused between calls; read it before the next push().
   */
  readonly partTimes: number[] = [];
  readonly #maxPartBytes: number;
  readonly #maxHeaderBytes: number;
  /** Hard ceiling for #buf: a full part (no Content-Length) plus its headers and delimiter. */
  readonly #capacity: number;
  /** "--" + boundary; undefined until auto-detected. */
  #delimiter: Buffer | undefined;
  /** The declared boundary (without "--"), undefined when none was given. */
  readonly #declared: string | undefined;
  /**
   * How many dashes #start is past the start of its line (the stream's start is one), or -1 when past anything else:
   * boundary text after other bytes on its line is not a delimiter (RFC 2046 §5.1.1) but data or garbage. Kept by #skip;
   * the other states move #start by whole lines or whole parts (a delimiter may follow a Content-Length body at once),
   * so it is 0 when 'boundary' is entered again.
   */
  #lineDashes = 0;
  #buf: Buffer;
  /** Unconsumed bytes are #buf[#start, #end). */
  #start = 0;
  #end = 0;
  #state: State = 'boundary';
  #headerBytes = 0;
  #contentLength = -1;
  #partTime = Number.NaN;
  /** Part being filled straight from the chunks (Content-Length known). */
  #part: Uint8Array | undefined;
  #partFilled = 0;
  /** In body-scan: where (relative to #start, which is the body start) the delimiter search resumes. */
  #scanFrom = 0;
  /** In body-length: where in #part the search for a delimiter after the JPEG's end (an overlong part) resumes. */
  #lengthScanFrom = 0;

  constructor(opts: MjpegParserOptions) {
    if (!Number.isInteger(opts.maxPartBytes) || opts.maxPartBytes < 1) {
      throw new ConfigError(`MJPEG parser: maxPartBytes (the camera's maxBodyBytes) must be a positive integer, got ${opts.maxPartBytes}`);
    }
    this.#maxPartBytes = opts.maxPartBytes;
    this.#maxHeaderBytes = opts.maxHeaderBytes ?? 8 * 1024;
    this.#capacity = this.#maxPartBytes + this.#maxHeaderBytes + 2 * (MAX_BOUNDARY + 8);
    if (opts.boundary !== undefined) {
      const b = opts.boundary.replace(/^"|"$/g, '').replace(/^--/, '');
      if (b.length === 0) throw new ConfigError('MJPEG parser: boundary must not be empty; omit it to detect it from the stream');
      // Cameras that declare boundary=--foo and then send "--foo" lines (instead of "----foo") still match,
      // because "--foo" is also the tail of "----foo".
      this.#delimiter = Buffer.from(`--${b}`, 'latin1');
      this.#declared = b;
    }
    this.#buf = Buffer.allocUnsafe(Math.min(INITIAL_BUFFER, this.#capacity));
  }

  /** Feeds one chunk; returns the parts completed by it (each a fresh Uint8Array the caller may keep). */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    this.partTimes.length = 0;
    let off = 0;
    while (off < chunk.length) {
      if (this.#state === 'body-length') {
        // Known length: copy straight into the part, no intermediate buffering.
        const part = this.#part!;
        const n = Math.min(part.length - this.#partFilled, chunk.length - off);
        part.set(chunk.subarray(off, off + n), this.#partFilled);
        this.#partFilled += n;
        off += n;
        if (this.#cutOverlong(out)) this.#process(out);
        else if (this.#partFilled === part.length) this.#emit(out, part);
        continue;
      }
      const n = this.#append(chunk, off);
      off += n;
      this.#process(out);
      if (n === 0 && this.#start === 0 && this.#end >= this.#capacity) {
        // Full, and nothing held could be used (no state's limit caught it): resync on the next delimiter, keeping
        // what could be the start of one, rather than spin on a chunk that never fits.
        this.#state = 'boundary';
        this.#skip(this.#end - (MAX_BOUNDARY + 4));
      }
    }
    this.stats.bufferedBytes = this.#end - this.#start + (this.#part ? this.#partFilled : 0);
    return out;
  }

  /** Copies as much of chunk[off..] as fits into the buffer (growing it up to the ceiling); returns the count. */
  #append(chunk: Uint8Array, off: number): number {
    if (this.#start > 0) {
      this.#buf.copy(this.#buf, 0, this.#start, this.#end);
      this.#end -= this.#start;
      this.#start = 0;
    }
    const want = this.#end + (chunk.length - off);
    if (want > this.#buf.length && this.#buf.length < this.#capacity) {
      let size = this.#buf.length;
      while (size < want && size < this.#capacity) size *= 2;
      const bigger = Buffer.allocUnsafe(Math.min(size, this.#capacity));
      this.#buf.copy(bigger, 0, 0, this.#end);
      this.#buf = bigger;
    }
    const n = Math.min(chunk.length - off, this.#buf.length - this.#end);
    this.#buf.set(chunk.subarray(off, off + n), this.#end);
    this.#end += n;
    return n;
  }

  #process(out: Uint8Array[]): void {
    for (;;) {
      let progressed: boolean;
      switch (this.#state) {
        case 'boundary':
          progressed = this.#seekBoundary();
          break;
        case 'headers':
          progressed = this.#readHeaders(out);
          break;
        case 'body-scan':
          progressed = this.#scanBody(out);
          break;
        case 'body-length':
          return; // the rest of the part comes straight from push()
      }
      if (!progressed) return;
    }
  }

  #skip(n: number): void {
    this.#lineDashes = this.#lineDashesAt(this.#buf.subarray(this.#start, this.#end), n);
    this.#start += n;
    this.stats.skippedBytes += n;
  }

  /** #lineDashes for position `at` of the unconsumed bytes `view`. */
  #lineDashesAt(view: Buffer, at: number): number {
    const j = dashesBefore(view, at);
    if (j > 0) return view[j - 1] === LF ? at - j : -1;
    return this.#lineDashes < 0 ? -1 : this.#lineDashes + at;
  }

  /** Whether view[at] starts a line, extra leading dashes aside. */
  #startsLine(view: Buffer, at: number): boolean {
    return this.#lineDashesAt(view, at) >= 0;
  }

  /** Finds the next delimiter line and enters 'headers'. Returns false when more bytes are needed. */
  #seekBoundary(): boolean {
    const view = this.#buf.subarray(this.#start, this.#end);
    if (!this.#delimiter) return this.#detectBoundary(view);
    const delim = this.#delimiter;
    const at = view.indexOf(delim);
    if (this.#declared !== undefined && this.stats.delimiters === 0) return this.#seekFirstDelimiter(view, at);
    if (at < 0) {
      // Keep only what could be the start of a delimiter split across chunks.
      this.#skip(Math.max(0, view.length - (delim.length - 1)));
      return false;
    }
    // Once parts come, a delimiter is taken wherever it sits: cameras whose Content-Length is a few bytes short, or
    // that pad after the JPEG, send it straight after those bytes, and a delimiter missed loses the frames after it.
    if (this.stats.delimiters === 0 && !this.#startsLine(view, at)) {
      this.#skip(at + 1);
      return true;
    }
    this.#skip(at);
    return this.#readDelimiterLine();
  }

  /** #start is at the delimiter: consumes its line and enters 'headers', or skips it when it is not a delimiter line. */
  #readDelimiterLine(): boolean {
    const delim = this.#delimiter!;
    const view = this.#buf.subarray(this.#start, this.#end);
    const lineEnd = view.indexOf(LF, delim.length);
    if (lineEnd < 0) {
      if (view.length > delim.length + this.#maxHeaderBytes) {
        this.#skip(delim.length); // not a real delimiter line
        return true;
      }
      return false;
    }
    // "--boundary--" closes the multipart body; "--boundaryX" is some other token. Either way, keep looking.
    const isDelimiter = endsDelimiter(view[delim.length]!);
    this.#skip(lineEnd + 1);
    if (!isDelimiter) return true;
    this.stats.delimiters++;
    this.#state = 'headers';
    this.#headerBytes = 0;
    this.#contentLength = -1;
    this.#partTime = Number.NaN;
    return true;
  }

  /**
   * Before the first part, with a declared boundary (`at`: where the declared delimiter is in `view`, or -1). Cameras
   * do declare one boundary and delimit their parts with another: a "--token" line followed by part headers, ahead of
   * any declared delimiter, is the stream's real boundary and is used from then on (stats.boundaryMismatch). Only here:
   * once a part was found, a "--token" line is JPEG data or garbage. Holds at most such a line and its header block.
   */
  #seekFirstDelimiter(view: Buffer, at: number): boolean {
    // Lines wholly before the declared delimiter are judged; the one holding it is the declared delimiter line.
    const end = at < 0 ? view.length : at;
    let pos = 0;
    while (pos < end) {
      if (view[pos] === DASH && (pos > 0 || this.#lineDashes === 0)) {
        const own = this.#tryOwnDelimiter(view, pos, end);
        if (own !== undefined) return own;
      }
      const lf = view.indexOf(LF, pos);
      if (lf < 0 || lf >= end) break;
      pos = lf + 1;
    }
    const lineStart = pos > 0 || this.#lineDashes === 0;
    if (at >= 0) {
      // The declared delimiter may be the start of a longer token the stream uses ("--frame" of "--frame123").
      const next = view[at + this.#delimiter!.length];
      if (at === pos && lineStart && next !== undefined && !endsDelimiter(next)) {
        const own = this.#tryOwnDelimiter(view, at, view.length);
        if (own !== undefined) return own;
      }
      if (!this.#startsLine(view, at)) {
        this.#skip(at + 1);
        return true;
      }
      this.#skip(at);
      return this.#readDelimiterLine();
    }
    // Keep only what could be the start of a delimiter split across chunks.
    this.#skip(Math.max(pos, view.length - (this.#delimiter!.length - 1)));
    return false;
  }

  /**
   * Judges the line at `pos` (see #partDelimiterAt): a "--token" line with part headers is taken as the stream's
   * delimiter instead of the declared one (true: seekBoundary now reads it as the delimiter); false when that needs
   * more bytes (kept from `pos`); undefined when it is not one (nothing consumed).
   */
  #tryOwnDelimiter(view: Buffer, pos: number, end: number): boolean | undefined {
    const found = this.#partDelimiterAt(view, pos, end);
    if (found === undefined) return undefined;
    if (found !== 'wait') {
      this.stats.boundaryMismatch = { declared: this.#declared!, found: found.slice(2) };
      this.#delimiter = Buffer.from(found, 'latin1');
    }
    this.#skip(pos);
    return found !== 'wait';
  }

  /**
   * The "--token" of the line at `pos` when a part's headers follow it (at least one "Name: value" line, then a blank
   * line) within `end`; 'wait' when that needs more bytes (never past `end` < view.length, where the declared
   * delimiter is); undefined when it is not one.
   */
  #partDelimiterAt(view: Buffer, pos: number, end: number): string | 'wait' | undefined {
    const more = end === view.length;
    const lf = view.indexOf(LF, pos);
    if (lf < 0 || lf >= end) {
      const couldBe = more && (pos + 1 >= view.length || view[pos + 1] === DASH) && view.length - pos <= MAX_BOUNDARY + 4;
      return couldBe ? 'wait' : undefined;
    }
    const token = view.toString('latin1', pos, lf).trimEnd();
    if (!isDelimiterLine(token)) return undefined;
    let headerLines = 0;
    for (let p = lf + 1; ; ) {
      const e = view.indexOf(LF, p);
      if (e < 0 || e >= end) return more && view.length - lf <= this.#maxHeaderBytes ? 'wait' : undefined;
      if (e - lf > this.#maxHeaderBytes) return undefined;
      const line = view.toString('latin1', p, e).trimEnd();
      if (line.length === 0) return headerLines > 0 ? token : undefined;
      if (!HEADER_LINE.test(line)) return undefined;
      headerLines++;
      p = e + 1;
    }
  }

  /** No boundary given: the first "--token" line of the stream defines it. */
  #detectBoundary(view: Buffer): boolean {
    const at = view.indexOf('--', 0, 'latin1');
    if (at < 0) {
      this.#skip(Math.max(0, view.length - 1));
      return false;
    }
    if (!this.#startsLine(view, at)) {
      this.#skip(at + 2);
      return true;
    }
    const lineEnd = view.indexOf(LF, at);
    if (lineEnd < 0) {
      if (view.length - at > MAX_BOUNDARY + 4) {
        this.#skip(at + 2);
        return true;
      }
      this.#skip(at);
      return false;
    }
    const token = view.toString('latin1', at, lineEnd).trimEnd();
    if (isDelimiterLine(token)) {
      this.#delimiter = Buffer.from(token, 'latin1');
      this.#skip(at);
      return true; // seekBoundary now consumes the line with the known delimiter
    }
    this.#skip(at + 2);
    return true;
  }

  /** Reads header lines up to the blank line; only Content-Length matters. */
  #readHeaders(out: Uint8Array[]): boolean {
    const view = this.#buf.subarray(this.#start, this.#end);
    const lineEnd = view.indexOf(LF);
    if (lineEnd < 0) {
      if (this.#headerBytes + view.length > this.#maxHeaderBytes) return this.#badHeaders();
      return false;
    }
    this.#headerBytes += lineEnd + 1;
    if (this.#headerBytes > this.#maxHeaderBytes) return this.#badHeaders();
    const contentEnd = lineEnd > 0 && view[lineEnd - 1] === CR ? lineEnd - 1 : lineEnd;
    if (contentEnd === 0) {
      this.#start += lineEnd + 1;
      this.#beginBody(out);
      return true;
    }
    if (view[0] === DASH && this.#delimiter && view.subarray(0, this.#delimiter.length).equals(this.#delimiter)) {
      // A delimiter where headers were expected: the previous part was empty; start over on this line.
      this.#state = 'boundary';
      return true;
    }
    const line = view.toString('latin1', 0, contentEnd);
    this.#start += lineEnd + 1;
    const colon = line.indexOf(':');
    if (colon > 0) {
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') this.#contentLength = /^\d{1,15}$/.test(value) ? Number(value) : -1;
      else if (name === 'x-sim-time') this.#partTime = /^\d{1,16}(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
    }
    return true;
  }

  #badHeaders(): boolean {
    this.stats.badHeaders++;
    this.#state = 'boundary';
    return true;
  }

  #beginBody(out: Uint8Array[]): void {
    const length = this.#contentLength;
    if (length < 0) {
      this.#state = 'body-scan';
      this.#scanFrom = 0;
      return;
    }
    if (length > this.#maxPartBytes) {
      this.#oversized(length, true);
      return;
    }
    if (length === 0) {
      this.#state = 'boundary';
      return;
    }
    const part = new Uint8Array(length);
    const n = Math.min(length, this.#end - this.#start);
    part.set(this.#buf.subarray(this.#start, this.#start + n));
    this.#start += n;
    this.#part = part;
    this.#partFilled = n;
    this.#lengthScanFrom = 0;
    this.#state = 'body-length';
    if (this.#cutOverlong(out)) return;
    if (n === length) this.#emit(out, part);
  }

  /**
   * body-length: a camera whose Content-Length is larger than its JPEG sends the next delimiter line inside the bytes
   * it announced. Taken on trust, that part swallows the delimiter (and the next part's headers and first bytes): it
   * ends in junk, not at the JPEG's end, and the part after it is lost; with every part overlong, every frame is.
   * A delimiter right after a complete JPEG (its end-of-image marker, then at most padding and a line break) is
   * trusted over the Content-Length: the part is cut there (stats.overlong) and what follows is read as the next part.
   * Looked for as the bytes come (a delimiter line within them), and once the part is complete when it does not end
   * at its JPEG's end (a delimiter cut short by the part's end). Returns whether it cut the part (the parser is then
   * in 'boundary', the rest back in #buf).
   */
  #cutOverlong(out: Uint8Array[]): boolean {
    const delim = this.#delimiter;
    const part = this.#part!;
    if (!delim) return false;
    const filled = Buffer.from(part.buffer, part.byteOffset, this.#partFilled);
    const complete = this.#partFilled === part.length;
    for (;;) {
      const at = filled.indexOf(delim, this.#lengthScanFrom);
      if (at < 0) {
        // Keep looking from what could be the start of a delimiter split across chunks.
        this.#lengthScanFrom = Math.max(this.#lengthScanFrom, filled.length - (delim.length - 1));
        break;
      }
      const next = filled[at + delim.length];
      if (next === undefined || (filled.indexOf(LF, at) < 0 && filled.length - at <= delim.length + MAX_BOUNDARY)) {
        this.#lengthScanFrom = at; // its line is not all here yet
        break;
      }
      const lineStart = dashesBefore(filled, at);
      if (endsDelimiter(next) && endsAtJpegEnd(filled, lineStart)) return this.#cutAt(out, filled, lineStart);
      const headers = endsDelimiter(next) && lineStart > 0 && filled[lineStart - 1] === LF ? this.#partHeadersAfter(filled, at, complete) : 'no';
      if (headers === 'wait') {
        this.#lengthScanFrom = at; // the lines after it are not all here yet
        break;
      }
      // A partial frame (no end-of-image marker) whose Content-Length was the whole frame's: the next part's delimiter
      // line and headers came within it. Cut there and dropped (stats.cutShort), so that only this frame is lost,
      // not the next part with it.
      if (headers === 'yes') return this.#cutAt(out, filled, lineStart, false);
      this.#lengthScanFrom = at + 1; // boundary text inside the JPEG: its Content-Length is right
    }
    if (!complete || endsAtJpegEnd(filled, filled.length)) return false;
    // The part ends neither at its JPEG's end nor in a delimiter line: it may end in the start of one ("…\xff\xd9\r\n--fr").
    const tail = filled.toString('latin1', Math.max(0, filled.length - (delim.length + MAX_BOUNDARY + 4)));
    const m = /-+[!-~]*[ \t\r]*$/.exec(tail);
    if (!m || !delim.toString('latin1').replace(/^-+/, '').startsWith(m[0].trimEnd().replace(/^-+/, ''))) return false;
    const lineStart = filled.length - m[0].length;
    return endsAtJpegEnd(filled, lineStart) && this.#cutAt(out, filled, lineStart);
  }

  /**
   * In body-length, for the delimiter at `at` of `filled` (starting a line): 'yes' when a part's header block follows
   * its line (at least one "Name: value" line, then a blank line; or, the part being complete, header lines up to its
   * end), 'wait' when that needs more of the part's bytes, 'no' otherwise (boundary text inside the JPEG).
   */
  #partHeadersAfter(filled: Buffer, at: number, complete: boolean): 'yes' | 'wait' | 'no' {
    const lf = filled.indexOf(LF, at);
    if (lf < 0) return complete ? 'no' : 'wait';
    if (filled.toString('latin1', at, lf).trimEnd() !== this.#delimiter!.toString('latin1')) return 'no';
    let headerLines = 0;
    for (let p = lf + 1; ; ) {
      const e = filled.indexOf(LF, p);
      if (e - lf > this.#maxHeaderBytes || (e < 0 && filled.length - lf > this.#maxHeaderBytes)) return 'no';
      if (e < 0) return !complete ? 'wait' : headerLines > 0 ? 'yes' : 'no';
      const line = filled.toString('latin1', p, e).trimEnd();
      if (line.length === 0) return headerLines > 0 ? 'yes' : 'no';
      if (!HEADER_LINE.test(line)) return 'no';
      headerLines++;
      p = e + 1;
    }
  }

  /**
   * Cuts the body-length part at the delimiter (line) starting at `lineStart` of `filled`; the rest is read again.
   * `whole`: the part is a whole JPEG, passed on (stats.overlong); otherwise a partial frame, dropped (stats.cutShort).
   */
  #cutAt(out: Uint8Array[], filled: Buffer, lineStart: number, whole = true): true {
    let bodyEnd = lineStart;
    if (bodyEnd > 0 && filled[bodyEnd - 1] === LF) bodyEnd--;
    if (bodyEnd > 0 && filled[bodyEnd - 1] === CR) bodyEnd--;
    const cut = { claimed: this.#part!.length, actual: bodyEnd };
    const rest = filled.subarray(lineStart);
    if (whole) {
      this.stats.overlong++;
      this.stats.lastOverlong = cut;
      this.#emit(out, new Uint8Array(filled.subarray(0, bodyEnd)));
    } else {
      this.stats.cutShort++;
      this.stats.lastCutShort = cut;
      this.#part = undefined;
      this.#partFilled = 0;
      this.#state = 'boundary';
    }
    this.#unread(rest);
    this.#lineDashes = 0;
    return true;
  }

  /** Puts `bytes` back in front of the unconsumed ones (they came before them); their total fits the capacity. */
  #unread(bytes: Uint8Array): void {
    if (this.#start >= bytes.length) {
      this.#start -= bytes.length;
      this.#buf.set(bytes, this.#start);
      return;
    }
    const held = this.#end - this.#start;
    const size = bytes.length + held;
    const buf = size <= this.#buf.length ? this.#buf : Buffer.allocUnsafe(Math.min(this.#capacity, Math.max(size, 2 * this.#buf.length)));
    this.#buf.copy(buf, bytes.length, this.#start, this.#end);
    buf.set(bytes, 0);
    this.#buf = buf;
    this.#start = 0;
    this.#end = size;
  }

  /** No Content-Length: the part ends at the next delimiter that starts a line. */
  #scanBody(out: Uint8Array[]): boolean {
    const delim = this.#delimiter!;
    const view = this.#buf.subarray(this.#start, this.#end);
    const at = view.indexOf(delim, this.#scanFrom);
    if (at >= 0) {
      // The delimiter line may carry extra leading dashes (boundary=--foo sent as "----foo").
      const lineStart = dashesBefore(view, at);
      if (lineStart > 0 && view[lineStart - 1] !== LF) {
        this.#scanFrom = at + 1; // the boundary text happened to occur inside the JPEG data
        return true;
      }
      let bodyEnd = lineStart;
      if (bodyEnd > 0 && view[bodyEnd - 1] === LF) bodyEnd--;
      if (bodyEnd > 0 && view[bodyEnd - 1] === CR) bodyEnd--;
      if (bodyEnd > this.#maxPartBytes) {
        this.#oversized(bodyEnd, true);
      } else {
        if (bodyEnd > 0) this.#emit(out, new Uint8Array(view.subarray(0, bodyEnd)));
        this.#state = 'boundary';
      }
      this.#start += lineStart;
      return true;
    }
    // What is held before the start of a delimiter split across chunks (its extra leading dashes too) and the line
    // break before it is the part's own.
    let held = Math.max(0, view.length - (delim.length - 1));
    for (let extra = 0; extra < MAX_BOUNDARY && held > 0 && view[held - 1] === DASH; extra++) held--;
    if (held > 0 && view[held - 1] === LF) held--;
    if (held > 0 && view[held - 1] === CR) held--;
    if (held > this.#maxPartBytes) {
      // Too big to be kept: drop what we hold (bar a possible split delimiter) and resync on the next boundary.
      this.#oversized(held, false);
      this.#skip(view.length - (delim.length - 1));
      return true;
    }
    this.#scanFrom = Math.max(0, view.length - delim.length + 1);
    return false;
  }

  #oversized(size: number, exact: boolean): void {
    this.stats.oversized++;
    this.stats.lastOversizedBytes = size;
    this.stats.lastOversizedExact = exact;
    this.#state = 'boundary';
  }

  #emit(out: Uint8Array[], part: Uint8Array): void {
    this.stats.parts++;
    out.push(part);
    this.partTimes.push(this.#partTime);
    this.#part = undefined;
    this.#partFilled = 0;
    this.#state = 'boundary';
  }
}
