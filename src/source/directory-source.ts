// Replays a folder of JPEG files as a camera: files in natural name order (frame2 before frame10),
// capture times from --fps, optional subsampling with --every K. Files are read one at a time, on demand.

import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import type { JpegFrame } from '../channel/messages.js';
import { SourceError, UsageError } from '../errors.js';
import type { FrameSource, SourceEvents, SourceStats } from './frame-source.js';
import { ownBytes } from './own-bytes.js';
import { SourceStatsRecorder } from './source-stats-recorder.js';

export interface DirectorySourceOptions extends SourceEvents {
  readonly cameraId: string;
  readonly dir: string;
  /** Frames per second the files were recorded at: file k (1-based) is captured at startMs + (k−1)·1000/fps. */
  readonly fps: number;
  /** Yield files 1, 1+K, 1+2K, … (keeping their original timestamps). Default 1. */
  readonly every?: number;
  /** Capture time of the first file, ms epoch. Default 0. */
  readonly startMs?: number;
}

const JPEG_NAME = /\.jpe?g$/i;

// Natural order: digit runs compare by value. A fixed locale keeps the order the same on every machine;
// the code-unit comparison breaks ties ("a01" vs "a1") deterministically.
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'variant' });
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The frames among a folder's entries (read with withFileTypes), in natural order: files and symbolic links named
 * *.jpg or *.jpeg in any case. Sub-folders are left out, whatever their name; replay, eval, eval:real, resize-clip
 * and reverse-clip all take a folder's frames by this one rule.
 */
export function frameFileNames(entries: readonly Dirent[]): string[] {
  return entries.filter((e) => (e.isFile() || e.isSymbolicLink()) && JPEG_NAME.test(e.name)).map((e) => e.name).sort(naturalCompare);
}

interface Listing {
  /** Every JPEG in natural order; the position (0-based) fixes the timestamp. */
  readonly files: readonly string[];
}

export class DirectorySource implements FrameSource {
  readonly cameraId: string;
  readonly #dir: string;
  readonly #fps: number;
  readonly #every: number;
  readonly #startMs: number;
  readonly #stats: SourceStatsRecorder;
  readonly #closeController = new AbortController();
  #listing: Promise<Listing> | undefined;
  #seq = 0;
  /** The file of each frame yielded, by seq (index seq − 1), for messages about a frame. */
  readonly #files: string[] = [];

  constructor(opts: DirectorySourceOptions) {
    const every = opts.every ?? 1;
    if (typeof opts.fps !== 'number' || !(opts.fps > 0) || !Number.isFinite(opts.fps)) {
      throw new UsageError(`--fps must be a number greater than 0 (frames per second of the recording), got ${String(opts.fps)}`);
    }
    if (!Number.isInteger(every) || every < 1) {
      throw new UsageError(`--every must be a whole number of at least 1 (1 = every file, 2 = every other file), got ${String(opts.every)}`);
    }
    this.cameraId = opts.cameraId;
    this.#dir = opts.dir;
    this.#fps = opts.fps;
    this.#every = every;
    this.#startMs = opts.startMs ?? 0;
    this.#stats = new SourceStatsRecorder(opts, Date.now);
  }

  /** How many frames frames() will yield (after --every). Throws TC_ERR_SOURCE_DIR like frames() would. */
  async count(): Promise<number> {
    const { files } = await this.#list();
    return Math.ceil(files.length / this.#every);
  }

  /** The file a yielded frame was read from (its path in the folder given). */
  fileOf(seq: number): string | undefined {
    return this.#files[seq - 1];
  }

  stats(): SourceStats {
    return this.#stats.snapshot();
  }

  frames(signal?: AbortSignal): AsyncIterableIterator<JpegFrame> {
    return this.#run(signal);
  }

  async *#run(signal?: AbortSignal): AsyncGenerator<JpegFrame, void, undefined> {
    const { files } = await this.#list();
    const stopped = (): boolean => this.#closeController.signal.aborted || signal?.aborted === true;
    for (let i = 0; i < files.length && !stopped(); i += this.#every) {
      const file = path.join(this.#dir, files[i]);
      let jpeg: Buffer;
      this.#stats.s.requests++;
      try {
        jpeg = await readFile(file, { signal });
      } catch (err) {
        if (stopped()) return;
        // One unreadable file (deleted meanwhile, no permission) should not end a long replay.
        const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        this.#stats.warning(new SourceError('TC_ERR_SOURCE_DIR', `${file}: cannot read the file (${code}); check that it is still there and readable`, { cause: err }));
        continue;
      }
      this.#stats.s.bytes += jpeg.length;
      this.#stats.s.frames++;
      this.#files.push(file);
      yield { cameraId: this.cameraId, seq: ++this.#seq, capturedAt: this.#startMs + (i * 1000) / this.#fps, jpeg: ownBytes(jpeg) };
    }
  }

  #list(): Promise<Listing> {
    // Listed once, so count() and frames() agree even if files are added during the replay.
    this.#listing ??= this.#readListing();
    return this.#listing;
  }

  async #readListing(): Promise<Listing> {
    let names: string[];
    try {
      const entries = await readdir(this.#dir, { withFileTypes: true });
      names = frameFileNames(entries);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a directory' : `cannot be read (${(err as Error).message})`;
      throw new SourceError('TC_ERR_SOURCE_DIR', `--frames ${this.#dir}: ${why}; give a folder of .jpg/.jpeg frames`, { cause: err });
    }
    if (names.length === 0) {
      throw new SourceError(
        'TC_ERR_SOURCE_DIR',
        `--frames ${this.#dir}: no JPEG files in it; expected frames named like frame0001.jpg (*.jpg or *.jpeg, in name order)`,
      );
    }
    return { files: names };
  }

  close(): Promise<void> {
    this.#closeController.abort();
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
