// What the channels that fork decoder processes (ipc, zeromq) share: crash-loop back-off for restarts and
// a bounded stop.

import type { ChildProcess } from 'node:child_process';

/** A forked decoder's restart bookkeeping. */
export interface CrashRecord {
  startedAt: number;
  crashes: number;
}

/**
 * Counts a crash and returns how long to wait before restarting: at once after a decoder that ran a while
 * (10 s or more), then 100 ms doubling up to 5 s while it keeps dying soon after start (crash-loop protection).
 */
export function restartDelayMs(dec: CrashRecord, now = Date.now()): number {
  dec.crashes = now - dec.startedAt < 10_000 ? dec.crashes + 1 : 0;
  return Math.min(5_000, dec.crashes === 0 ? 0 : 100 * 2 ** (dec.crashes - 1));
}

/** Disconnects a decoder child and waits for it to exit, killing it if it is still there after 2 s. */
export async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  if (proc.connected) proc.disconnect();
  const t = setTimeout(() => proc.kill('SIGKILL'), 2_000);
  await exited;
  clearTimeout(t);
}
