// A bad number given to a number flag, negative ones included (node:util parseArgs took `-5` for a flag and
// called the value "ambiguous"), is refused naming the flag, the value given and what the flag needs.
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

describe('number flags', () => {
  it.each([
    [['run', '--duration', '-5'], '--duration -5: must be 0 or more seconds (0 = run until interrupted)'],
    [['run', '--http', '-1'], '--http -1: must be a whole number from 0 to 65535 (0 = any free port)'],
    [['run', '--decoders', '-1'], '--decoders -1: must be a whole number, 0 or more'],
    [['run', '--seed', '-.5'], '--seed -.5: must be a whole number, 0 or more'],
    [['replay', '--fps', '-2', '--config', 'c.json', '--frames', 'f'], '--fps -2: must be 0.001 or more frames per second'],
    [['eval', '--every', '-1', '--config', 'c.json', '--frames', 'f', '--truth', 't.json'], '--every -1: must be a whole number, 1 or more'],
    [['camera-sim', '--port', '-1'], '--port -1: must be a whole number from 0 to 65535 (0 = any free port)'],
    [['camera-sim', '--fps', '-2'], '--fps -2: must be from 0.1 to 30 frames per second'],
    [['run', '--duration', 'soon'], '--duration soon: must be 0 or more seconds (0 = run until interrupted)'],
  ])('%j', async (args, message) => {
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(`traffic-counter: ${message} [TC_ERR_USAGE]\n`);
  });

  it('a flag missing its value says so, naming the flag that followed', async () => {
    const r = await runCli(['query', '--db', '--bucket', 'hour']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("traffic-counter: query: --db needs a value, got the flag --bucket after it; see 'traffic-counter query --help' [TC_ERR_USAGE]\n");
  });

  it('a value that starts with a dash is shown how to give', async () => {
    const r = await runCli(['query', '--db', '-counts.db', '--bucket', 'hour']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('query: --db needs a value; if it is "-counts.db", write --db=-counts.db');
  });
});
