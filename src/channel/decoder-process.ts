// What the channels that fork decoder processes (ipc, zeromq) share: crash-loop back-off for restarts and
// a bounded stop.

import type { ChildProcess } from 'node:child_process';

/** A forked decoder's restart bookkeeping. */
export interface CrashRecord {
  startedAt: number;
  crashes: number;
  /** Set as it is killed for holding a job past decodeTimeoutMs: its exit is ours, not a crash. */
  killedHung?: boolean;
}

/**
 * Counts a crash and returns how long to wait before restarting: at once after a decoder that ran a while
 * (10 s or more), then 100 ms doubling up to 5 s while it keeps dying soon after start (crash-loop protection).
 * A decoder killed as hung (killedHung) is restarted at once and not counted: a camera whose frames hang it now and
 * then made the restarts back off up to 5 s (decodeTimeoutMs under 10 s), every camera's frames waiting meanwhile.
 */
export function restartDelayMs(dec: CrashRecord, now = Date.now()): number {
  if (dec.killedHung) return 0;
  dec.crashes = now - dec.startedAt < 10_000 ? dec.crashes + 1 : 0;
  return Math.min(5_000, dec.crashes === 0 ? 0 : 100 * 2 ** (dec.crashes - 1));
}

/** Decoder children alive now, killed if this process exits first (see killWithParent). */
const live = new Set<ChildProcess>();

/**
 * SIGKILLs `proc` if this process exits before it: an exit that does not stop the decoders first (a second Ctrl-C's
 * forced exit, process.exit anywhere) left a decoder that was stopped or busy on a slow frame running without its
 * daemon (a SIGSTOPped one for good, holding its 150 MB). One 'exit' listener for all of them.
 */
export function killWithParent(proc: ChildProcess): void {
  if (!process.listeners('exit').includes(killLive)) process.on('exit', killLive);
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
}

function killLive(): void {
  for (const proc of live) proc.kill('SIGKILL');
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
