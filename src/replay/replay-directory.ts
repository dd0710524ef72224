// Counts a directory of JPEG snapshots offline through the same decode channel and analyzer as the daemon.
// Unlike a live camera, nothing may be dropped here: submissions wait for the analyzer (bounded window).

import { viewMovedMessage } from '../analyze/view-check.js';
import type { Config } from '../config/config-types.js';
import type { CrossingEvent, LineReach } from '../analyze/analyzer-types.js';
import { CameraAnalyzer } from '../analyze/camera-analyzer.js';
import { lineShortfallWarning } from '../analyze/line-reach.js';
import { frameSizeOptions, type FrameSizeOptions } from '../analyze/analyzer-options.js';
import { DirectorySource } from '../source/directory-source.js';
import { createChannelFor } from '../channel/create-channel.js';
import type { ChannelOutput, DecodeFailure } from '../channel/messages.js';
import { frameName } from '../decode/decode-to-frame.js';
import { CAMERA_HINTS } from '../decode/jpeg-header.js';

const DRAIN_TIMEOUT_MS = 60_000; // offline: give the decoders time to finish every frame

export interface ReplayOptions {
  readonly framesDir: string;
  readonly fps: number;
  readonly every: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: CrossingEvent) => void;
  /** A frame left out, and why: its file could not be read or decoded (the message names the file). */
  readonly onFrameSkipped?: (message: string) => void;
  /** What the replay does differently from the daemon with this config (see offlineConfig). */
  readonly onNote?: (message: string) => void;
}

export interface ReplayResult {
  frames: number;
  decodeErrors: number;
  /** Files that could not be read. */
  unreadable: number;
  cameras: {
    id: string;
    lines: { id: string; in: number; out: number }[];
    /** At the end of the clip: the ROI's reach around each line (see lineReachWarning). */
    lineReach: LineReach[];
    /** Each change of frame size in the clip (see CameraAnalyzer.lastResize), then the reach's warnings. */
    warnings: string[];
    /** The analyzer's frame-size options in use (fitted to the frames where the config leaves them unset). */
    scale: FrameSizeOptions;
  }[];
}

/**
 * The decoders' message names the camera and frame ("camera replay frame 2") and, for a bad or truncated JPEG,
 * a camera's fix (check its URL); a replayed frame's names its file and the file's fix.
 */
function fileMessage(failure: DecodeFailure, file: string | undefined): string {
  if (file === undefined) return failure.message;
  const message = failure.message.replace(frameName(failure.cameraId, failure.seq), file);
  // The camera's fix is the end of the message (for an HTML page, with where a login goes): cut from its start.
  if (failure.code === 'TC_ERR_DECODE_NOT_JPEG') return `${cutFrom(message, `; ${CAMERA_HINTS.notJpeg}`)}; every .jpg/.jpeg file in --frames must be a JPEG image: replace or remove this one`;
  if (failure.code === 'TC_ERR_DECODE_CORRUPT') return `${message.replace(`; ${CAMERA_HINTS.truncated}`, '')}; the file is damaged (an interrupted copy or download?): copy it again or remove it`;
  return message;
}

/** `message` up to where `tail` begins, or all of it. */
function cutFrom(message: string, tail: string): string {
  const at = message.lastIndexOf(tail);
  return at < 0 ? message : message.slice(0, at);
}

/**
 * A replay decodes here: a daemon's config that leaves decoding to remote decoders (decoders 0) gets one local
 * decoder (it waited forever for remote ones), and the zeromq channel takes its private ipc:// socket instead
 * of the daemon's endpoint, which a running daemon may hold and remote decoders connect to. Returns the config
 * and what to tell the user.
 */
export function offlineConfig(config: Config): { config: Config; notes: string[] } {
  const notes: string[] = [];
  if (config.decoders === 0) notes.push('"decoders": 0 in the config leaves decoding to remote decoders; a replay decodes here, with 1 local decoder');
  return { config: { ...config, decoders: Math.max(1, config.decoders), zeromqEndpoint: '', zeromqKeyFile: '' }, notes };
}

export async function replayDirectory(daemonConfig: Config, opts: ReplayOptions): Promise<ReplayResult> {
  const { config, notes } = offlineConfig(daemonConfig);
  for (const n of notes) opts.onNote?.(n);
  // One source: every camera in the config looks at the same frames (each with its own ROI and lines).
  const result: ReplayResult = { frames: 0, decodeErrors: 0, unreadable: 0, cameras: [] };
  const source = new DirectorySource({
    cameraId: 'replay',
    dir: opts.framesDir,
    fps: opts.fps,
    every: opts.every,
    onError: (err) => {
      result.unreadable++;
      opts.onFrameSkipped?.(err.message);
    },
  });
  const analyzers = config.cameras.map((c, i) => new CameraAnalyzer(c, `cameras[${i}]`));
  /** Per camera, each change of frame size the clip made (CameraAnalyzer.lastResize), told with the warnings. */
  const resizes = analyzers.map(() => [] as string[]);
  const limits = {
    maxMegapixels: Math.max(...config.cameras.map((c) => c.maxMegapixels)),
    maxDecodeMemoryMB: Math.max(...config.cameras.map((c) => c.maxDecodeMemoryMB)),
  };
  const channel = createChannelFor(config);
  const consume = (out: ChannelOutput | null): void => {
    if (out === null) return;
    if (out.kind === 'error') {
      result.decodeErrors++;
      opts.onFrameSkipped?.(fileMessage(out.failure, source.fileOf(out.failure.seq)));
      return;
    }
    const f = out.frame;
    try {
      result.frames++;
      for (const [i, a] of analyzers.entries()) {
        for (const ev of a.process({ width: f.width, height: f.height, scale: f.scale, data: f.data, timeMs: f.capturedAt })) opts.onEvent?.(ev);
        if (a.lastResize && a.lastResize.count > resizes[i]!.length) resizes[i]!.push(`frame ${result.frames}: ${a.lastResize.message}`);
      }
    } finally {
      f.release();
    }
  };
  try {
    await channel.start();
    // Keep the window one below the channel's limit so its drop-oldest policy never fires offline.
    const window = Math.max(1, config.maxFramesInFlight - 1);
    for await (const frame of source.frames(opts.signal)) {
      while (channel.stats().inFlight >= window) consume(await channel.next());
      channel.submit(frame, limits);
    }
    // close() lets the decoders finish what they hold; next() then yields the rest and null.
    const closing = channel.close(DRAIN_TIMEOUT_MS);
    for (let out = await channel.next(); out !== null; out = await channel.next()) consume(out);
    await closing;
    // A clip shorter than the analyzer's start-up window is still analysed.
    for (const a of analyzers) for (const ev of a.flush()) opts.onEvent?.(ev);
  } finally {
    await channel.close();
    await source.close();
  }
  result.cameras = config.cameras.map((c, i) => {
    const a = analyzers[i]!;
    const lineReach = a.lineReach();
    const view = a.viewState();
    const reach = a.lineReachWarnings(lineReach);
    const lines = a.counts().map((l) => ({ id: l.lineId, in: l.in, out: l.out }));
    // A line the reach check left alone (too little traffic to judge by rates) but that lost more vehicles than it counted.
    const shortfall = lineReach.flatMap((r, k) => (reach.some((w) => w.lineId === r.lineId) ? [] : [lineShortfallWarning(c.id, r, lines[k]!.in + lines[k]!.out) ?? []].flat()));
    const warnings = [...resizes[i]!, ...(view?.moved ? [viewMovedMessage(c.id, view, (ms) => `${(ms / 1000).toFixed(1)} s into the frames`)] : []), ...reach.map((w) => w.message), ...shortfall];
    return { id: c.id, lines, lineReach, warnings, scale: frameSizeOptions(a.options) };
  });
  return result;
}
