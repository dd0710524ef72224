// A first Ctrl-C while a decoder is stopped (or busy on a slow frame) makes `run` wait for that decoder's frame, then
// stop the decoders: about 8 s. Before, nothing was said after "SIGINT: flushing counts and stopping" until the exit;
// now the log says what the daemon waits for, and that a second Ctrl-C stops at once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

/** The pid of `pid`'s child process whose command line holds `name`, or undefined. */
function childWith(pid: number, name: string): number | undefined {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.find((c) => {
    try {
      return readFileSync(`/proc/${c}/cmdline`, 'utf8').includes(name);
    } catch {
      return false;
    }
  });
}

async function until(what: string, check: () => boolean, ms: number, err: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms; stderr:\n${err()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test.skipIf(process.platform !== 'linux')('run says what it waits for after a Ctrl-C with its decoder stopped, and a second Ctrl-C stops it at once', { timeout: 90_000 }, async () => {
  const cli = startCli(['run', '--db', join(tempDir(), 'counts.db')]);
  await until('"counting" line', () => cli.stderr().includes('counting 1 camera(s)'), 40_000, cli.stderr);
  const decoder = childWith(cli.proc.pid!, 'ipc-decoder-child');
  expect(decoder).toBeDefined();
  process.kill(decoder!, 'SIGSTOP');
  onTestFinished(() => {
    try {
      process.kill(decoder!, 'SIGKILL');
    } catch {
      // gone with the daemon
    }
  });
  // Frames reach the stopped decoder, and wait for it.
  await new Promise((r) => setTimeout(r, 1_500));
  cli.proc.kill('SIGINT');
  await until('word of what the close waits for', () => /still stopping/.test(cli.stderr()), 30_000, cli.stderr);
  expect(cli.proc.exitCode).toBeNull(); // said while it waits, not at the end
  expect(cli.stderr()).toMatch(
    // Naming the decoder and the frame it holds (it said "waiting for 2 frame(s) at or waiting for the decoders").
    new RegExp(`still stopping: waiting for decoder 0 \\(pid ${decoder}\\) holding camera sim frame \\d+ for \\d+\\.\\d s(, and \\d+ more frame\\(s\\) queued)? \\(up to 5 s: a decoder that does not answer, stopped or busy on a slow frame, is waited for that long\\), then the decoders to stop; Ctrl-C again stops at once \\(counts stored; frames still at the decoders not analysed\\)`),
  );
  cli.proc.kill('SIGINT');
  const result = await cli.done;
  expect(result.code).toBe(130);
  expect(result.stderr).toMatch(/second SIGINT: stopped at once/);
});
