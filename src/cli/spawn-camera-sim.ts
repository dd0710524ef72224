// Starts the simulated camera in its own process for `run` without a config, so that rendering and
// encoding the synthetic frames never competes with the analyzer for the daemon's thread.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ChannelError } from '../errors.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

export async function spawnCameraSim(seed: number, timeoutMs = 15_000): Promise<{ url: string; close(): Promise<void> }> {
  // --exit-with-parent: the simulator stops when our end of its stdin closes, so it never outlives a crashed parent.
  const proc = spawn(process.execPath, [MAIN, 'camera-sim', '--seed', String(seed), '--exit-with-parent'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(`did not start within ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      reject(new ChannelError('TC_ERR_CHANNEL_START', `camera simulator: ${why}`));
    };
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => fail(`exited with code ${code}`));
    proc.stdin!.on('error', () => {}); // EPIPE if the simulator has already gone: its exit is what matters
    proc.once('error', (err) => fail(err.message));
  });
  proc.stdout!.resume();
  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        proc.stdin!.destroy(); // our end of the pipe; it would otherwise keep this process alive
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      });
      return closing;
    },
  };
}
