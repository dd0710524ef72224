// A daemon that exits without stopping its decoders (a second Ctrl-C while closing ends with process.exit(130)) takes
// its decoder processes with it. Before, `run` with its decoder SIGSTOPped (or busy on a slow frame), stopped by two
// Ctrl-Cs, said "stopped at once" and left the decoder behind, reparented to init, for good.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished, test } from 'vitest';

const DIST = fileURLToPath(new URL('../dist/src/channel/', import.meta.url));

/** Alive: there, and not a zombie (a container's init may not reap an orphan at once). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test.skipIf(process.platform !== 'linux')('decoder processes of the ipc and zeromq channels go when the process exits without closing them', async () => {
  const script = `
    import { IpcChannel } from ${JSON.stringify(DIST + 'ipc-channel.js')};
    import { ZeromqChannel } from ${JSON.stringify(DIST + 'zeromq-channel.js')};
    const ipc = new IpcChannel({ maxInFlight: 2, decoders: 1, decoder: 'jpeg-js' });
    const zmq = new ZeromqChannel({ maxInFlight: 2, decoders: 1, decoder: 'jpeg-js' });
    await ipc.start();
    await zmq.start();
    console.log(JSON.stringify([...ipc.decoderPids(), ...zmq.decoderPids()]));
    process.stdin.once('data', () => process.exit(130));
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const pids: number[] = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out) as number[]);
    });
    proc.once('exit', (code) => reject(new Error(`exited with ${code} before starting its decoders`)));
  });
  onTestFinished(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  expect(pids).toHaveLength(2);
  // Stopped decoders: they cannot notice that their daemon has gone.
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  const exited = new Promise((r) => proc.once('exit', r));
  proc.stdin.write('go\n');
  await exited;
  const end = Date.now() + 3_000;
  while (pids.some(alive) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(pids.filter(alive)).toEqual([]);
});
