// Counts a directory of JPEG frames in this thread (jpeg-js decode → CameraAnalyzer), for evaluation and
// tuning without the decode channel. Frame k (sorted by name, from 0) is at k / fps seconds. With a
// decodeScale, frames are box-averaged down first, as the jpeg-js decoders of the channels do.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import jpeg from 'jpeg-js';
import { SourceError, TrafficCounterError, UsageError, exitCodeFor } from '../errors.js';
import { readJsonFile, validateConfigFrom } from '../config/validate-config.js';
import type { CameraConfig } from '../config/config-types.js';
import type { CrossingEvent } from '../analyze/analyzer-types.js';
import { CameraAnalyzer } from '../analyze/camera-analyzer.js';
import { boxAverageRgba, type DecodeScale } from '../decode/decode-scale.js';
import { frameFileNames } from '../source/directory-source.js';

export interface InProcessResult {
  frames: number;
  lines: { id: string; in: number; out: number }[];
  events: CrossingEvent[];
  /** Mean analyzer time per frame (excludes decoding), ms. */
  avgMs: number;
}

const CLIP_LAYOUT = 'a clip folder holds frames/ (its .jpg/.jpeg files), config.json and truth.json';

/**
 * Lists the JPEG files of a directory in natural name order (frame2 before frame10), leaving sub-folders out, as
 * replay and eval take them (frameFileNames); throws SourceError when there are none.
 */
export function listJpegs(framesDir: string): string[] {
  let jpegs: string[];
  try {
    jpegs = frameFileNames(readdirSync(framesDir, { withFileTypes: true }));
  } catch (err) {
    throw new SourceError('TC_ERR_SOURCE_DIR', `${framesDir}: cannot read the folder (${(err as NodeJS.ErrnoException).code ?? String(err)}); ${CLIP_LAYOUT}`, { cause: err });
  }
  if (jpegs.length === 0) throw new SourceError('TC_ERR_SOURCE_DIR', `${framesDir}: no .jpg/.jpeg files in it; ${CLIP_LAYOUT}`);
  return jpegs;
}

/**
 * For a clip tool (resize-clip, reverse-clip): `step`'s result; when it throws one of this project's errors (a clip
 * folder without frames, a file missing or not JSON, a frame not a JPEG), its message, on one line, and the CLI's exit
 * code for it (exitCodeFor: 2 for a config or usage error, 1 for a frame or folder that cannot be read).
 */
export function clipToolStep<T>(tool: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (!(err instanceof TrafficCounterError)) throw err;
    process.stderr.write(`${tool}: ${err.message}\n`);
    process.exit(exitCodeFor(err));
  }
}

/** For a clip tool: the frames of CLIP/frames by listJpegs (see clipToolStep). */
export function clipFramesOrExit(tool: string, clipDir: string): string[] {
  return clipToolStep(tool, () => listJpegs(join(clipDir, 'frames')));
}

/** A clip's config.json or truth.json, parsed; ConfigError naming the file when it is missing or not JSON. */
export function readClipJson(file: string): unknown {
  return readJsonFile(file, file, CLIP_LAYOUT);
}

/** A clip's config.json, parsed and checked as eval would (no camera URL needed); ConfigError naming the file and the key. */
export function readClipConfig(file: string): unknown {
  const raw = readClipJson(file);
  validateConfigFrom(raw, { requireUrl: false }, file);
  return raw;
}

/**
 * For a clip tool: writes the clip folder `dst` with `write(dir)` into a folder beside it, `DST.partial-XXXXXX`,
 * renamed to `dst` once complete. A step that fails half-way (a frame that is not a JPEG: clipToolStep exits) has
 * that folder removed, so no clip is left that looks whole with frames missing; one interrupted (Ctrl-C) leaves it
 * under its .partial name. A `dst` that exists and is not empty is refused (exit code 2) before anything is written:
 * frames of another clip left in it would be mixed in.
 */
export function writeClipFolder(tool: string, dst: string, write: (dir: string) => void): void {
  clipToolStep(tool, () => {
    if (existsSync(dst) && !isEmptyFolder(dst)) {
      throw new UsageError(`${dst}: already exists; give a new folder for the clip, or remove this one first`);
    }
  });
  mkdirSync(dirname(dst), { recursive: true });
  const dir = mkdtempSync(join(dirname(dst), `${basename(dst)}.partial-`));
  const removePartial = (): void => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removePartial);
  write(dir);
  process.off('exit', removePartial);
  // An empty folder at dst (made for it beforehand) is replaced.
  renameSync(dir, dst);
}

function isEmptyFolder(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return false; // a file, or a folder that cannot be read
  }
}

/** A clip's frame file, read; SourceError naming the file and the fix when it cannot be. */
export function readClipFrame(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    // A dangling symbolic link, a link to a folder, a file without read permission.
    throw new SourceError('TC_ERR_SOURCE_DIR', `${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)}); every .jpg/.jpeg entry in a clip's frames must be a readable JPEG file: replace or remove this one`, { cause: err });
  }
}

/** A clip's frame decoded to RGBA by jpeg-js; SourceError naming the file and the fix when it is not a JPEG. */
export function decodeClipFrame(file: string, bytes: Uint8Array): { width: number; height: number; data: Uint8Array } {
  try {
    return jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 512 });
  } catch (err) {
    throw new SourceError('TC_ERR_SOURCE_DIR', `${file}: not a JPEG that can be decoded (${err instanceof Error ? err.message : String(err)}); every .jpg/.jpeg file in a clip's frames must be a JPEG image: replace or remove this one`, { cause: err });
  }
}

export async function countFramesInProcess(
  camera: CameraConfig,
  framesDir: string,
  opts: { fps: number; every: number; first?: number; startMs?: number; decodeScale?: DecodeScale },
): Promise<InProcessResult> {
  const files = listJpegs(framesDir);
  const analyzer = new CameraAnalyzer(camera);
  const events: CrossingEvent[] = [];
  const startMs = opts.startMs ?? Date.UTC(2024, 0, 1);
  let frames = 0;
  // `first`: index of the first frame used, so every sampling phase of a lower frame rate can be tried.
  for (let k = opts.first ?? 0; k < files.length; k += opts.every) {
    const file = join(framesDir, files[k]!);
    const full = decodeClipFrame(file, readClipFrame(file));
    const img = boxAverageRgba({ width: full.width, height: full.height, data: full.data, scale: 1 }, opts.decodeScale ?? 1);
    events.push(...analyzer.process({ width: img.width, height: img.height, scale: img.scale, data: img.data, timeMs: startMs + Math.round((k * 1000) / opts.fps) }));
    frames++;
    // Yield now and then so a caller's timers and signals still run during a long clip.
    if (frames % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  events.push(...analyzer.flush());
  return {
    frames,
    lines: analyzer.counts().map((c) => ({ id: c.lineId, in: c.in, out: c.out })),
    events,
    avgMs: analyzer.stats().avgMs,
  };
}
