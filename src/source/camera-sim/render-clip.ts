// Writes a simulated clip to disk for replay, accuracy tests and benchmarks: numbered JPEG frames,
// a config.json with the scene's ROI and lines, and truth.json with the crossings those frames show.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../errors.js';
import { createScene } from './scene.js';
import type { ScenarioName } from './scenarios.js';

export interface RenderClipOptions {
  readonly dir: string;
  readonly seed: number;
  readonly scenario?: ScenarioName;
  /** Frames per second of the clip. */
  readonly fps: number;
  /** Clip length, s; the clip has round(durationSec * fps) frames. */
  readonly durationSec: number;
  /** Fixed JPEG quality; default varies 70-85 per frame. */
  readonly jpegQuality?: number;
  /** JPEG encoder (see SceneOptions.jpegEncoder); default 'builtin'. */
  readonly jpegEncoder?: 'builtin' | 'jpeg-js';
  /** Sim time of the first frame, s (default 0). */
  readonly startSec?: number;
}

export interface RenderedClip {
  readonly frames: number;
  readonly configPath: string;
  readonly truthPath: string;
  readonly truth: { lines: Record<string, { in: number; out: number }> };
}

/**
 * Renders frames/000001.jpg... (frame k shows sim time startSec + (k - 1) / fps), config.json and truth.json.
 * The truth counts crossings with startSec < t <= startSec + (frames - 1) / fps: those that happen
 * between the first and the last frame, i.e. exactly what a counter watching these frames can see.
 */
export async function renderClip(opts: RenderClipOptions): Promise<RenderedClip> {
  const startSec = opts.startSec ?? 0;
  if (typeof opts.fps !== 'number' || !(opts.fps > 0 && opts.fps <= 60)) {
    throw new ConfigError(`renderClip fps: must be a number above 0 and at most 60, got ${String(opts.fps)}`);
  }
  if (typeof opts.durationSec !== 'number' || !(opts.durationSec > 0 && opts.durationSec <= 86_400)) {
    throw new ConfigError(`renderClip durationSec: must be a number of seconds above 0 and at most 86400, got ${String(opts.durationSec)}`);
  }
  if (typeof startSec !== 'number' || !(startSec >= 0)) {
    throw new ConfigError(`renderClip startSec: must be a time in seconds >= 0, got ${String(startSec)}`);
  }
  const scene = createScene({
    seed: opts.seed,
    ...(opts.scenario !== undefined ? { scenario: opts.scenario } : {}),
    ...(opts.jpegQuality !== undefined ? { jpegQuality: opts.jpegQuality } : {}),
    ...(opts.jpegEncoder !== undefined ? { jpegEncoder: opts.jpegEncoder } : {}),
  });
  const frames = Math.max(1, Math.round(opts.durationSec * opts.fps));
  const framesDir = join(opts.dir, 'frames');
  await mkdir(framesDir, { recursive: true });
  for (let k = 1; k <= frames; k++) {
    const { jpeg } = scene.encodeJpeg(startSec + (k - 1) / opts.fps);
    await writeFile(join(framesDir, `${String(k).padStart(6, '0')}.jpg`), jpeg);
  }
  const untilSec = startSec + (frames - 1) / opts.fps;
  const truth = scene.truthCounts(untilSec, startSec);
  const events = scene.crossings(untilSec, startSec).map((e) => ({
    t: e.t,
    frame: 1 + (e.t - startSec) * opts.fps, // fractional frame number at which the crossing happens
    lineId: e.lineId,
    direction: e.direction,
    x: Math.round(e.x * 10) / 10,
    type: e.type,
    vehicleId: e.vehicleId,
  }));
  const configPath = join(opts.dir, 'config.json');
  const truthPath = join(opts.dir, 'truth.json');
  const config = { cameras: [{ ...scene.cameraConfig(), pollIntervalMs: Math.round(1000 / opts.fps) }] };
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
  const truthDoc = {
    lines: truth.lines,
    events,
    seed: scene.seed,
    scenario: scene.scenario,
    fps: opts.fps,
    frames,
    startSec,
    window: { afterSec: startSec, untilSec },
  };
  await writeFile(truthPath, `${JSON.stringify(truthDoc, null, 2)}\n`);
  return { frames, configPath, truthPath, truth };
}
