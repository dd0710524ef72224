// A value option given "" (`--camera "$CAM"` with CAM unset) is refused by one rule (parseCliArgs), naming the flag,
// with the command's hint. Before, each command had its own checks for some flags: `run --config ""` was refused but
// `replay --frames ""` said "--config is required", `run --http-host ""` blamed a missing --http, `query --db ""` and
// `query --camera ""` were refused in two other places. Every command's every value option, as its --help lists
// them, is walked here: a flag added later is covered without touching this test.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { expect, test } from 'vitest';
import { CLI, runCli, type CliResult } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

/** The commands `traffic-counter --help` lists. */
function commands(): string[] {
  const help = execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
  return [...help.matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)].map((m) => m[1]!);
}

/** The value options a command's --help lists (`  --db FILE  …`), not its switches (`--json`). */
function valueFlags(command: string): string[] {
  const help = execFileSync(process.execPath, [CLI, command, '--help'], { encoding: 'utf8' });
  return [...new Set([...help.matchAll(/^\s+--([a-z][a-z-]*)[ =][A-Z][A-Z0-9_]*\b/gm)].map((m) => m[1]!))];
}

/** Runs `jobs` at most `n` at a time (each is a CLI process). */
async function pool<T>(jobs: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

test('every value option of every command given "" is refused with exit 2, naming the flag, before anything starts', { timeout: 180_000 }, async () => {
  const all = commands();
  expect(all).toEqual(expect.arrayContaining(['run', 'query', 'replay', 'eval', 'camera-sim', 'decoder', 'zeromq-key']));
  const cases = all.filter((c) => c !== 'zeromq-key').flatMap((command) => valueFlags(command).map((flag) => ({ command, flag })));
  // The --help parsing found the flags (run alone has 15).
  expect(cases.filter((c) => c.command === 'run').map((c) => c.flag)).toEqual(expect.arrayContaining(['config', 'camera', 'db', 'http-host', 'zeromq-key-file', 'duration']));
  expect(cases.length).toBeGreaterThanOrEqual(40);

  const results = await pool(
    cases.map(({ command, flag }) => async (): Promise<{ command: string; flag: string; r: CliResult }> => ({ command, flag, r: await runCli([command, `--${flag}`, '']) })),
    3,
  );
  const wrong = results.filter(
    ({ command, flag, r }) =>
      r.code !== 2 || r.stdout !== '' || !new RegExp(`^traffic-counter: ${command}: --${flag} given empty; give [^\\n]+ \\[TC_ERR_USAGE\\]\\n$`).test(r.stderr),
  );
  expect(wrong.map(({ command, flag, r }) => `${command} --${flag} "": exit ${r.code}, ${JSON.stringify(r.stdout + r.stderr).slice(0, 300)}`)).toEqual([]);

  // The = form is the same value, and the first empty flag is the one named.
  const eq = await runCli(['replay', '--config=', '--frames', '']);
  expect({ code: eq.code, stderr: eq.stderr }).toEqual({ code: 2, stderr: 'traffic-counter: replay: --config given empty; give the camera config file (JSON) [TC_ERR_USAGE]\n' });
  // zeromq-key takes its FILE as an argument, not an option: refused as well, by the same rule and in the same words
  // (before: 'give one FILE to write the key pair to, got ""').
  const key = await runCli(['zeromq-key', '']);
  expect({ code: key.code, stdout: key.stdout, stderr: key.stderr }).toEqual({
    code: 2, stdout: '', stderr: 'traffic-counter: zeromq-key: FILE given empty; give the path of the key file to write, e.g. ./zeromq.key [TC_ERR_USAGE]\n',
  });
  // And its flags as every command's: an unknown one named as such (before: 'give one FILE …, got "--force"').
  expect((await runCli(['zeromq-key', 'k.key', '--force'])).stderr).toBe("traffic-counter: zeromq-key: Unknown option '--force'; see 'traffic-counter zeromq-key --help' [TC_ERR_USAGE]\n");
  // "-" (standard output to many tools) is not taken as a file name: it was refused before, as a flag, and still is.
  const cwd = tempDir();
  expect((await runCli(['zeromq-key', '-'], { cwd })).code).toBe(2);
  expect(readdirSync(cwd)).toEqual([]);
});

test('an empty value after --help still shows the help', async () => {
  const r = await runCli(['query', '--help', '--db', '']);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('Usage: traffic-counter query');
});
