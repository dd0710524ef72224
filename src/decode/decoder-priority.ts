// Decoders run at a lower CPU priority than the analyzer: when cores are short, the analyzer's thread (and
// its event loop) must win, and a decoder that falls behind only costs frames the drop policy discards.

import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Default niceness added to decoder processes and threads (0 = same priority as the analyzer). */
export const DECODER_NICE = 10;

/**
 * Lowers this decoder process's priority by `increment`. On Linux priority is per thread, so every thread
 * that exists already (libuv's pool, where sharp decodes, may have been started while modules loaded) is
 * reniced too; threads started later inherit the main thread's value. Call first thing in a decoder process.
 */
export function lowerDecoderPriority(increment: number): void {
  if (!(increment > 0)) return;
  const target = Math.min(19, getPriority() + increment);
  let threads: number[] = [];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux: setPriority(target) below covers the process.
  }
  for (const tid of [0, ...threads]) {
    try {
      setPriority(tid, target);
    } catch {
      // Not permitted or the thread is gone: decoding still works, at normal priority.
    }
  }
}
