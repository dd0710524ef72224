// Single-thread compute probes, one fresh process each: JPEG decode time per decoder and decode scale, and
// analyzer time per frame for a given ROI, on the simulator clip's 1280x720 frames.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDecoder, type DecoderName } from '../../src/decode/decode-jpeg.js';
import type { CameraConfig, Point } from '../../src/config/config-types.js';
import { boxAverageRgba, type DecodeScale } from '../../src/decode/decode-scale.js';
import { CameraAnalyzer } from '../../src/analyze/camera-analyzer.js';
import { LIMITS, cpuMs, decodeClipFrames, probeMain, summarize } from '../bench-util.js';

export type ComputeArgs =
  | { task: 'decode'; decoder: DecoderName; scale: DecodeScale; clipDir: string; warmup: number; frames: number }
  | { task: 'analyzer'; camera: CameraConfig; roi: Point[]; scale: DecodeScale; clipDir: string; warmup: number; frames: number; fps: number };

export interface ComputeResult {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly cpuMsPerFrame: number;
  readonly jpegKB?: number;
  /** Analyzer: CPU ms of the whole start-up (buffering plus learning), and how many frames it took. */
  readonly startupCpuMs?: number;
  readonly startupFrames?: number;
}

function loadJpegs(clipDir: string): Uint8Array[] {
  const dir = join(clipDir, 'frames');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jpg'))
    .sort()
    .map((f) => new Uint8Array(readFileSync(join(dir, f))));
}

probeMain<ComputeArgs, ComputeResult>(async (a) => {
  const jpegs = loadJpegs(a.clipDir);
  const times: number[] = [];
  let cpu = 0;
  if (a.task === 'decode') {
    const decode = await createDecoder(a.decoder);
    for (let i = 0; i < a.warmup + a.frames; i++) {
      const c0 = cpuMs();
      const t0 = performance.now();
      await decode(jpegs[i % jpegs.length]!, LIMITS, { scale: a.scale });
      const dt = performance.now() - t0;
      if (i >= a.warmup) {
        times.push(dt);
        cpu += cpuMs() - c0;
      }
    }
    const { p50, p99 } = summarize(times);
    const kb = jpegs.reduce((s, j) => s + j.length, 0) / jpegs.length / 1024;
    return { p50Ms: p50, p99Ms: p99, meanMs: times.reduce((s, t) => s + t, 0) / times.length, cpuMsPerFrame: cpu / a.frames, jpegKB: kb };
  }
  // Analyzer: decode the clip once (box-averaged to the decode scale), then feed the frames round and round
  // with advancing timestamps.
  const frames = (await decodeClipFrames(a.clipDir)).map((f) => boxAverageRgba({ ...f, scale: 1 }, a.scale));
  const analyzer = new CameraAnalyzer({ ...a.camera, roi: a.roi }, 'bench');
  // Start-up: the frames buffered for the background median, then the one frame that learns from all of
  // them (median, two learning passes, the counting pass). Timed on its own: it happens once per camera.
  let i = 0;
  const feed = (): number => {
    const f = frames[i % frames.length]!;
    const t0 = performance.now();
    analyzer.process({ width: f.width, height: f.height, scale: f.scale, data: f.data, timeMs: 1_700_000_000_000 + (i * 1000) / a.fps });
    i++;
    return performance.now() - t0;
  };
  const s0 = cpuMs();
  while (analyzer.starting) feed();
  const startupCpuMs = cpuMs() - s0;
  const startupFrames = i;
  for (let k = 0; k < a.warmup; k++) feed();
  for (let k = 0; k < a.frames; k++) {
    const c0 = cpuMs();
    times.push(feed());
    cpu += cpuMs() - c0;
  }
  const { p50, p99 } = summarize(times);
  return { p50Ms: p50, p99Ms: p99, meanMs: times.reduce((s, t) => s + t, 0) / times.length, cpuMsPerFrame: cpu / a.frames, startupCpuMs, startupFrames };
});
