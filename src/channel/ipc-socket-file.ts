// The zeromq channel's private ipc:// socket files (zeromqEndpoint unset): one per daemon, in the temp dir, named
// after the daemon's pid. A daemon that exits removes its own; one killed (kill -9, out of memory, power cut) leaves
// it behind, and each such file stayed in the temp dir for good. The next daemon removes those that are stale.

import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelError } from '../errors.js';

/** traffic-counter-PID-8HEX.sock: the daemon's private socket (see privateIpcFile). */
const PRIVATE_IPC_NAME = /^traffic-counter-(\d{1,10})-[0-9a-f]{8}\.sock$/;
/** Stale files looked at per start, at most: a temp dir holding more is cleaned over the next starts. */
const MAX_CHECKED = 256;
/** A socket that neither takes nor refuses a connection within this time is left alone. */
const CONNECT_TIMEOUT_MS = 1_000;

/** A new private socket path for this process, in the temp dir. */
export function privateIpcFile(): string {
  return join(tmpdir(), `traffic-counter-${process.pid}-${randomBytes(4).toString('hex')}.sock`);
}

/** The process with this id is alive (or is another user's: not ours to judge). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Nothing listens on the unix socket at `path`: a connection is refused (not taken, nor timed out). */
export function socketRefused(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ path });
    const done = (refused: boolean): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(refused);
    };
    const timer = setTimeout(() => done(false), CONNECT_TIMEOUT_MS);
    sock.once('connect', () => done(false));
    sock.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED'));
  });
}

/**
 * Removes the private socket files in `dir` that daemons killed before they could remove them left behind: only
 * files named as privateIpcFile names them, that are sockets, owned by this user, whose daemon (the pid in the name)
 * is gone, and that refuse a connection (nothing listens). Returns the paths removed. Never throws: a file that
 * cannot be looked at or removed is left.
 */
export async function removeStaleIpcFiles(dir = tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  let checked = 0;
  for (const name of names) {
    const m = PRIVATE_IPC_NAME.exec(name);
    if (m === null) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || processAlive(pid)) continue;
    if (++checked > MAX_CHECKED) break;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isSocket() || (uid !== undefined && st.uid !== uid)) continue;
      if (!(await socketRefused(path))) continue;
      unlinkSync(path);
      removed.push(path);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}

/**
 * What is at `path`, where a zeromqEndpoint ipc://PATH is to be bound: undefined when it can be (nothing there, or a
 * socket nothing listens on: a daemon's that was killed), else why not. libzmq removes whatever is there before it
 * binds: a file given by mistake (ipc:///etc/traffic-counter/config.json) was deleted without a word, and a second
 * daemon on the same path took the socket from the first, whose decoders then served the second.
 */
async function ipcPathProblem(path: string): Promise<string | undefined> {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!st.isSocket()) return `${path} exists and is ${st.isDirectory() ? 'a directory' : 'not a socket'}: binding would delete it`;
  if (!(await socketRefused(path))) return `${path} is in use: another process (a traffic-counter daemon?) listens on it`;
  return undefined;
}

/** Refuses (TC_ERR_CHANNEL_START) to bind zeromqEndpoint ipc://PATH where ipcPathProblem finds a problem. */
export async function refuseTakenIpcPath(path: string): Promise<void> {
  const problem = await ipcPathProblem(path);
  if (problem !== undefined) throw new ChannelError('TC_ERR_CHANNEL_START', `zeromq channel: cannot bind ipc://${path}: ${problem}; pick another zeromqEndpoint path`);
}
