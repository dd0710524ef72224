// A second Ctrl-C stops the daemon at once, with frames still at its decoders: a decoder that then finishes one
// finds the pipe to the daemon closed. It used to print "decoder child: Error: write EPIPE" and a stack trace under
// the daemon's last line (1 run in 6 of `run` stopped with Ctrl-C twice); the daemon is gone, so it now just exits.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { LIMITS, makeJpeg } from './helpers/jpeg-fixtures.js';

const CHILD = fileURLToPath(new URL('../dist/src/decode/ipc-decoder-child.js', import.meta.url));

test('a decoder whose daemon closed the pipe while it decoded exits quietly', async () => {
  // Large enough that jpeg-js takes tens of ms, so the pipe closes while the frame is being decoded.
  const jpeg = makeJpeg(2000, 1500, 3).jpeg;
  for (let round = 0; round < 2; round++) {
    const proc = fork(CHILD, ['0'], { serialization: 'advanced', stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = once(proc, 'exit');
    proc.send({ type: 'init', decoder: 'jpeg-js' });
    const [ready] = (await once(proc, 'message')) as [{ type: string }];
    expect(ready.type).toBe('ready');
    const req = { type: 'decode', cameraId: 'cam', seq: 1, capturedAt: Date.now(), limits: LIMITS, scale: 1 };
    proc.send({ type: 'decode', job: 1, req, jpeg }, undefined, {}, () => {
      // Written: the decoder is reading or decoding it now. Close the pipe under it, as a daemon exiting does.
      setTimeout(() => proc.disconnect(), 5);
    });
    const [code] = (await exited) as [number | null];
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  }
}, 60_000);
