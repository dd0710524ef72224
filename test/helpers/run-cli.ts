// Runs the built CLI as a child process, as a user would, and collects its output.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the CLI; the process is killed after the test if it is still running. */
export function startCli(args: string[], opts: { cwd?: string } = {}): { proc: ChildProcess; done: Promise<CliResult>; stdout: () => string; stderr: () => string } {
  const proc = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d: Buffer) => (stdout += d));
  proc.stderr!.on('data', (d: Buffer) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
  onTestFinished(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  return { proc, done, stdout: () => stdout, stderr: () => stderr };
}

export function runCli(args: string[], opts: { cwd?: string } = {}): Promise<CliResult> {
  return startCli(args, opts).done;
}
