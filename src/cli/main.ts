#!/usr/bin/env node
// traffic-counter command line: dispatches to one thin entry per command; one catch maps errors to exit codes.

import { TrafficCounterError, exitCodeFor } from '../errors.js';
import { runCommand } from './run-command.js';
import { queryCommand } from './query-command.js';
import { replayCommand } from './replay-command.js';
import { evalCommand } from './eval-command.js';
import { cameraSimCommand } from './camera-sim-command.js';
import { decoderCommand } from './decoder-command.js';
import { zeromqKeyCommand } from './zeromq-key-command.js';

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; summary: string }> = {
  run: { run: runCommand, summary: 'count vehicles from live cameras (default: the built-in simulated camera)' },
  query: { run: queryCommand, summary: 'print stored counts in minute, 15-minute, hour or day buckets' },
  replay: { run: replayCommand, summary: 'count a directory of JPEG snapshots offline' },
  eval: { run: evalCommand, summary: 'compare counts on a directory of snapshots with hand-counted truth' },
  'camera-sim': { run: cameraSimCommand, summary: 'serve a synthetic traffic camera (snapshot, MJPEG, truth) on loopback' },
  decoder: { run: decoderCommand, summary: 'run a remote JPEG decoder for the zeromq channel' },
  'zeromq-key': { run: zeromqKeyCommand, summary: 'write a new key file for the zeromq channel over tcp://' },
};

const USAGE = `Usage: traffic-counter <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(11)} ${c.summary}`)
  .join('\n')}

Run 'traffic-counter <command> --help' for a command's options.
`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`traffic-counter: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const code = err instanceof TrafficCounterError ? ` [${err.code}]` : '';
    const msg = err instanceof Error ? err.message : String(err);
    process.stderr.write(`traffic-counter: ${msg}${code}\n`);
    if (!(err instanceof TrafficCounterError) && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    process.exitCode = exitCodeFor(err);
  },
);
