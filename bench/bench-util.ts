// Helpers shared by the benchmark scenarios: percentiles, CPU and memory readings, probe processes, and the
// cached simulator clip that the decode, analyzer and end-to-end scenarios replay.

import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../src/config/config-types.js';
import { validateConfig } from '../src/config/validate-config.js';

export const FRAME_W = 1280;
export const FRAME_H = 720;
export const FRAME_BYTES = FRAME_W * FRAME_H * 4;
export const LIMITS = { maxMegapixels: 4, maxDecodeMemoryMB: 64 };

/** What every scenario gets from run.ts. */
export interface BenchContext {
  readonly quick: boolean;
  /** Progress line on stderr (stdout is the report). */
  log(msg: string): void;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(samples: number[]): { p50: number; p99: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), n: s.length };
}

/** CPU time of this process (all threads), ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU time of another process from /proc (Linux), ms; NaN where /proc is not available. */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Peak resident set of this process so far, MB. */
export function peakRssMB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function hrNow(): bigint {
  return process.hrtime.bigint();
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How long a probe that has sent its result may take to exit before it is killed (see runProbe). */
const EXIT_GRACE_MS = 2_000;

/**
 * Runs a probe file (dist/bench/probes/*.js) in a fresh process, so that each measurement starts with a
 * clean heap, its own peak RSS and no JIT or GC state left by another scenario. Resolves with the probe's
 * one result message.
 */
export function runProbe<T>(file: string, args: unknown, timeoutMs = 120_000): Promise<T> {
  const path = fileURLToPath(new URL(`./probes/${file}`, import.meta.url));
  return new Promise<T>((resolve, reject) => {
    const child = fork(path, [JSON.stringify(args)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    let result: T | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ${JSON.stringify(args).slice(0, 120)}: no result within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', (m: { result?: T; error?: string }) => {
      if (m.error) reject(new Error(`${file}: ${m.error}`));
      else {
        result = m.result;
        // The result is in: the probe's own exit is not waited for beyond EXIT_GRACE_MS. Node 24 can deadlock in
        // process.exit() (nodejs/node#54918: the main thread joins a V8 compile thread that waits for a GC), and
        // such a probe would otherwise hold the bench until the timeout, with its result lost.
        clearTimeout(timer);
        setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS).unref();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (result !== undefined) resolve(result);
      else reject(new Error(`${file} exited with code ${code} and no result`));
    });
  });
}

/** Probe side of runProbe: parses the args, runs, reports, exits. */
export function probeMain<A, T>(run: (args: A) => Promise<T>): void {
  const args = JSON.parse(process.argv[2] ?? '{}') as A;
  run(args).then(
    (result) => process.send!({ result }, () => process.exit(0)),
    (err: unknown) => process.send!({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }, () => process.exit(1)),
  );
}

export interface Clip {
  readonly dir: string;
  readonly jpegs: Uint8Array[];
  readonly config: Config;
  readonly fps: number;
}

const CACHE = fileURLToPath(new URL('../../bench/.cache/', import.meta.url));

/**
 * A simulated traffic clip of 1280x720 JPEGs (the camera simulator's renderClip), rendered once and cached
 * under bench/.cache/ because rendering takes ~0.4 s a frame. Scenarios cycle through its frames.
 */
export async function loadClip(frames: number, log: (m: string) => void): Promise<Clip> {
  const fps = 10;
  const dir = join(CACHE, `clip-seed7-fps${fps}-n${frames}`);
  const framesDir = join(dir, 'frames');
  const complete = existsSync(join(dir, 'config.json')) && existsSync(framesDir) && readdirSync(framesDir).length === frames;
  if (!complete) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    log(`rendering a ${frames}-frame 1280x720 clip into ${dir} (once; ~0.4 s a frame)`);
    const { renderClip } = await import('../src/source/camera-sim/render-clip.js');
    await renderClip({ dir, seed: 7, fps, durationSec: frames / fps });
  }
  const jpegs = readdirSync(framesDir)
    .filter((f) => f.endsWith('.jpg'))
    .sort()
    .map((f) => new Uint8Array(readFileSync(join(framesDir, f))));
  const config = validateConfig(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')), { requireUrl: false });
  return { dir, jpegs, config, fps };
}

/**
 * Decodes every frame of a clip once (input for the analyzer and fan-out probes, not what they measure):
 * with the fastest decoder installed.
 */
export async function decodeClipFrames(clipDir: string): Promise<{ width: number; height: number; data: Uint8Array }[]> {
  const { createDecoder } = await import('../src/decode/decode-jpeg.js');
  const decoder = await createDecoder('jpeg-turbo')
    .catch(() => createDecoder('sharp'))
    .catch(() => createDecoder('jpeg-js'));
  const dir = join(clipDir, 'frames');
  const out = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.jpg')).sort()) out.push(await decoder(new Uint8Array(readFileSync(join(dir, f))), LIMITS));
  return out;
}

/** A 1280x720 RGBA frame with some structure (what a decoder would hand over). */
export function syntheticFrame(): Uint8Array {
  const f = new Uint8Array(FRAME_BYTES);
  for (let i = 0, p = 0; i < f.length; i += 4, p++) {
    f[i] = p & 255;
    f[i + 1] = (p >> 8) & 255;
    f[i + 2] = (p * 7) & 255;
    f[i + 3] = 255;
  }
  return f;
}
