// `traffic-counter camera-sim`: serves the synthetic traffic camera until interrupted.

import { URL_HOST_PORT, hostNote, isWildcardHost } from './wildcard-host.js';
import { parseCliArgs, numberFlag, describeRule, PORT_RULE, type NumberRule } from './parse-cli-args.js';
import { startCameraSim } from '../source/camera-sim/camera-sim-server.js';
import { SCENARIOS, type ScenarioName } from '../source/camera-sim/index.js';
import { UsageError } from '../errors.js';

const SEED_RULE: NumberRule = { integer: true };
const FPS_RULE: NumberRule = { min: 0.1, max: 30, unit: 'frames per second' };

const HELP = `Usage: traffic-counter camera-sim [--port N] [--seed N] [--scenario S] [--host H] [--fps N]

Serves a synthetic 1280x720 two-way road scene, deterministic for a seed:
  /snapshot.jpg   the current frame          /stream.mjpg   MJPEG stream
  /truth.json     ground-truth crossings so far (?until=ISO)   /config.json   a config to count it

Options:
  --port N         port (default 0 = any free port; the URL is printed)
  --host H         bind address (default 127.0.0.1)
  --seed N         traffic seed (default 1)
  --scenario S     ${SCENARIOS.join(', ')} (default default)
  --fps N          MJPEG stream frame rate (default 2)
  --exit-with-parent  stop when standard input closes (used when another process starts the simulator)
  -h, --help       this help
`;

export async function cameraSimCommand(argv: string[]): Promise<number> {
  // An empty --host (a shell variable not set) made the server listen on every interface, not loopback.
  const { values } = parseCliArgs(
    'camera-sim',
    argv,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      scenario: { type: 'string' },
      fps: { type: 'string' },
      'exit-with-parent': { type: 'boolean' },
    },
    {
      port: `${describeRule(PORT_RULE)}, or leave --port out for any free port`,
      host: 'an address to bind, e.g. 127.0.0.1 (this machine only, the default) or 0.0.0.0, or leave --host out',
      seed: `${describeRule(SEED_RULE)}, or leave --seed out for 1`,
      scenario: `one of ${SCENARIOS.join(', ')}, or leave --scenario out for default`,
      fps: `the MJPEG stream's rate, ${describeRule(FPS_RULE)}, or leave --fps out for 2`,
    },
  );
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const scenario = values.scenario ?? 'default';
  if (!(SCENARIOS as readonly string[]).includes(scenario)) {
    throw new UsageError(`--scenario: must be one of ${SCENARIOS.join(', ')}; got "${scenario}"`);
  }
  const sim = await startCameraSim({
    port: numberFlag('port', values.port, 0, PORT_RULE),
    host: values.host ?? '127.0.0.1',
    seed: numberFlag('seed', values.seed, 1, SEED_RULE),
    scenario: scenario as ScenarioName,
    streamFps: numberFlag('fps', values.fps, 2, FPS_RULE),
  });
  // Bound on every interface (--host 0.0.0.0), "http://0.0.0.0:PORT/snapshot.jpg" is no URL to give a daemon on
  // another host or container (it sends it to itself): the URLs are given with HOST, and what to put for it.
  const m = URL_HOST_PORT.exec(sim.url);
  const wildcard = m !== null && isWildcardHost(m[1]!);
  const base = wildcard ? `http://HOST:${m[2]}` : sim.url;
  const note = wildcard ? `  ${hostNote(m[1] !== '0.0.0.0')}, as the daemon's host reaches it (on this machine 127.0.0.1)\n` : '';
  process.stdout.write(`camera-sim listening on ${base}\n  snapshot ${base}/snapshot.jpg\n  stream   ${base}/stream.mjpg\n  truth    ${base}/truth.json\n  config   ${base}/config.json\n${note}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (values['exit-with-parent']) {
      // The parent holds our stdin open; it closes when the parent exits, even if it crashed.
      process.stdin.on('end', resolve).on('close', resolve).resume();
    }
  });
  await sim.close();
  return 0;
}
