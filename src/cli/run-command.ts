// `traffic-counter run`: the daemon. With neither --config nor --camera it counts the built-in simulated camera.

import { isAbsolute, resolve } from 'node:path';
import { parseCliArgs, numberFlag, decodeScaleFlag, describeRule, flagText, CHANNEL_HINTS, PORT_RULE, type EmptyHints, type NumberRule } from './parse-cli-args.js';
import { MAX_MEGAPIXELS, STAND_IN_VIEW, loadConfigFile, validateConfig } from '../config/validate-config.js';
import { applyOverrides } from '../config/apply-overrides.js';
import { CAMERA_DEFAULTS, DAEMON_DEFAULTS } from '../config/defaults.js';
import type { Config } from '../config/config-types.js';
import { Daemon } from '../daemon.js';
import { spawnCameraSim } from './spawn-camera-sim.js';
import { checkHttpListen, startHttpServer } from '../server/http-server.js';
import { probeCameraSize } from '../source/probe-camera-size.js';
import { hideUrlPassword } from '../source/camera-url.js';
import { ConfigError, DecodeError, StoreError, UsageError } from '../errors.js';
import { checkZeromqKey } from '../channel/zeromq-key.js';
import { URL_HOST_PORT, hostNote, isWildcardHost } from './wildcard-host.js';
import { refuseTakenIpcPath } from '../channel/ipc-socket-file.js';
import { WriterLock, dbFolderProblem } from '../store/index.js';

const HELP = `Usage: traffic-counter run [--config FILE] [--camera URL] [--db FILE] [options]

Polls the cameras, counts vehicles crossing the configured lines, prints each crossing and stores events
and minute/hour/day counts in SQLite. Ctrl-C (SIGINT), SIGTERM or SIGHUP flushes and closes the database.

  (no --config, no --camera)  start the built-in simulated camera on 127.0.0.1 and count it
  --camera URL                count one camera (snapshot or MJPEG URL) with a full-frame ROI and one
                              horizontal line at 60% of the height; prints that config to adapt
Options:
  --config FILE      cameras, ROIs and lines (JSON, see README)
  --camera URL       a single camera's URL (instead of --config)
  --tls-fingerprint FP
                     with an https:// --camera: accept the certificate with this SHA-256 fingerprint (most
                     cameras' are self-signed; the error for one names its fingerprint)
  --tls-insecure     with an https:// --camera: accept any certificate (not recommended)
  --db FILE          SQLite file (default ./data/counts.db or the config's "db"); a relative path, here or
                     in the config, is taken from the current directory, not the config file's
  --channel C        ipc (default), zeromq or shared: how decoded frames reach the analyzer
  --decoder D        jpeg-js (default), jpeg-turbo or sharp, for the local decoders (remote ones pick their own)
  --decoders N       local decoder processes/threads (default 1; 0 with zeromq = remote decoders only)
  --decode-scale N   decode frames at 1/N: 1 (default), 2, 4 or 8; must divide analyzer.downscale where set
                     (unset, it is fitted to the frame size: 4 at 1280x720, a multiple of N)
  --zeromq-endpoint E  ipc://PATH or tcp://HOST:PORT for the zeromq channel (remote decoders connect here)
  --zeromq-key-file FILE
                     key file for the zeromq channel (write one with traffic-counter zeromq-key FILE): the link
                     is encrypted and only decoders given a copy (--key-file) get in; needed for a tcp://
                     endpoint other than loopback
  --http PORT        also serve the HTTP API and dashboard on 127.0.0.1:PORT (0 = any free port)
  --http-host HOST   bind address for --http (default 127.0.0.1); needs --http or the config's httpPort
  --http-allowed-host NAME[,NAME...]
                     host names the HTTP API answers to besides IP addresses, localhost and --http-host
                     (repeatable; replaces the config's httpAllowedHosts); others get 403 (DNS rebinding)
  --seed N           simulator seed (only without --config/--camera; default 1)
  --duration SEC     stop after SEC seconds (default, or 0: run until interrupted)
  -h, --help         this help

A flag that the others make meaningless (--seed with --config, --http-host without --http, ...) is refused.
`;

const RUN_FLAGS = {
  config: { type: 'string' },
  camera: { type: 'string' },
  'tls-fingerprint': { type: 'string' },
  'tls-insecure': { type: 'boolean' },
  db: { type: 'string' },
  channel: { type: 'string' },
  decoder: { type: 'string' },
  decoders: { type: 'string' },
  'decode-scale': { type: 'string' },
  http: { type: 'string' },
  'http-host': { type: 'string' },
  'http-allowed-host': { type: 'string', multiple: true },
  'zeromq-endpoint': { type: 'string' },
  'zeromq-key-file': { type: 'string' },
  seed: { type: 'string' },
  duration: { type: 'string' },
} as const;

const DURATION_RULE: NumberRule = { min: 0, unit: 'seconds', note: '0 = run until interrupted' };
const SEED_RULE: NumberRule = { integer: true };
const DECODERS_RULE: NumberRule = { min: 0, integer: true };

// An empty value (a shell variable not set: `run --config "$CONFIG"`) read as none started the simulator and
// counted it into the database as if it were the camera; an empty --zeromq-key-file left the link unencrypted,
// without a word. Refused by parseCliArgs, with these hints.
const RUN_EMPTY_HINTS: EmptyHints<typeof RUN_FLAGS> = {
  config: 'the config file, or leave --config out to count the built-in simulator',
  camera: "the camera's snapshot or MJPEG URL, or leave --camera out to count the built-in simulator",
  'tls-fingerprint': "the camera certificate's SHA-256 fingerprint (the error for its certificate names it), or leave --tls-fingerprint out",
  db: 'the SQLite file to write, or leave --db out for the config\'s "db" (./data/counts.db by default)',
  ...CHANNEL_HINTS,
  decoders: `${describeRule(DECODERS_RULE)} (local decoders), or leave --decoders out for the config's (1 by default)`,
  http: `the HTTP API's port, ${describeRule(PORT_RULE)}, or leave --http out`,
  'http-host': 'the address the HTTP API binds, e.g. 127.0.0.1 (the default) or 0.0.0.0, or leave --http-host out',
  'http-allowed-host': 'a host name the HTTP API answers to, or leave --http-allowed-host out',
  'zeromq-key-file': 'the key file written by `traffic-counter zeromq-key FILE`, or leave --zeromq-key-file out',
  'zeromq-endpoint': 'ipc://PATH or tcp://HOST:PORT, or leave --zeromq-endpoint out for a private ipc:// socket',
  seed: `the simulator's seed, ${describeRule(SEED_RULE)}, or leave --seed out for 1`,
  duration: `${describeRule(DURATION_RULE)}, or leave --duration out to run until interrupted`,
};

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseCliArgs('run', argv, RUN_FLAGS, RUN_EMPTY_HINTS);
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values.config && values.camera) throw new UsageError('run: give either --config FILE or --camera URL, not both');
  // Every flag value is checked before anything starts (the simulator, the decoders, the database).
  const duration = numberFlag('duration', values.duration, 0, DURATION_RULE);
  const seed = numberFlag('seed', values.seed, 1, SEED_RULE);
  const overrides = {
    db: values.db,
    channel: values.channel,
    decoder: values.decoder,
    decoders: values.decoders === undefined ? undefined : numberFlag('decoders', values.decoders, 1, DECODERS_RULE),
    decodeScale: decodeScaleFlag(values['decode-scale']),
    zeromqEndpoint: values['zeromq-endpoint'],
    zeromqKeyFile: values['zeromq-key-file'],
    httpHost: values['http-host'],
    httpPort: values.http === undefined ? undefined : numberFlag('http', values.http, 0, PORT_RULE),
    httpAllowedHosts: values['http-allowed-host']?.flatMap((v) => v.split(',').map((h) => h.trim())),
  };
  const fileConfig = values.config ? loadConfigFile(values.config, { requireUrl: true }) : undefined;
  refuseIgnoredFlags(values, fileConfig);
  // Without a config file, the config the flags apply to comes from the simulator or the --camera probe, once started:
  // the flags are checked against a stand-in camera first, so that a wrong combination (--channel zeromq --decoders 0
  // without a tcp:// endpoint) is refused at once, not after the simulator started or the probe waited 15 s. Those
  // configs give cameras only: the daemon's keys checked here (channel, db, zeromq) are the ones it will run with.
  const early = applyOverrides(fileConfig ?? validateConfig({ cameras: [{ id: 'flags', ...STAND_IN_VIEW }] }, { requireUrl: false }), overrides, fileConfig !== undefined);
  await refuseBeforeStart(early);
  // The API's port and host too: a port in use was told after the simulator had started and the database had been
  // created, with a row for the minute (0 vehicles, uptime -, monitored 0%).
  if (values.http !== undefined || early.httpPort > 0) await checkHttpListen(early.httpHost, early.httpPort);
  const cleanups: (() => Promise<void>)[] = [];

  try {
    // A reader of the crossings or the log that ends early (`run | head -1`, a log pipe that closes): the next write
    // threw EPIPE with a stack trace and killed the daemon without its flush, the crossings it had printed lost from
    // the database. The counting goes on; what can no longer be read is no longer written. So for any write that
    // fails, not only EPIPE (asynchronous, a pipe): ENOSPC, a file on a full disk or /dev/full, is thrown by the write
    // itself, and `run > crossings.txt` on a full disk died at its first crossing, exit 1, its minute 0 vehicles at
    // 0.0% uptime.
    const gone = { stdout: false, stderr: false };
    const lost = (name: 'stdout' | 'stderr', err: NodeJS.ErrnoException): void => {
      if (gone[name]) return;
      gone[name] = true;
      if (name !== 'stdout') return;
      log.warn(
        err.code === 'EPIPE'
          ? 'standard output closed (its reader ended): crossings are no longer printed; counting and storing go on (query, /api/counts)'
          : `standard output could not be written (${err.code ?? err.message}): crossings are no longer printed; counting and storing go on (query, /api/counts)`,
      );
    };
    const put = (name: 'stdout' | 'stderr', text: string): void => {
      if (gone[name]) return;
      try {
        process[name].write(text);
      } catch (err) {
        lost(name, err as NodeJS.ErrnoException);
      }
    };
    const log = {
      info: (m: string) => put('stderr', `${new Date().toISOString()}  ${m}\n`),
      warn: (m: string) => put('stderr', `${new Date().toISOString()}  warning: ${m}\n`),
    };
    for (const name of ['stdout', 'stderr'] as const) process[name].on('error', (err: NodeJS.ErrnoException) => lost(name, err));
    let base: Config;
    if (fileConfig) {
      base = fileConfig;
    } else if (values.camera) {
      base = await singleCameraConfig(values.camera, { tlsFingerprint: values['tls-fingerprint'], tlsInsecure: values['tls-insecure'] }, (t) => put('stderr', t));
    } else {
      const sim = await spawnCameraSim(seed);
      cleanups.push(() => sim.close());
      const simConfig = (await (await fetch(`${sim.url}/config.json`)).json()) as unknown;
      base = validateConfig(simConfig);
      put('stderr', `simulated camera at ${sim.url}/snapshot.jpg (truth: ${sim.url}/truth.json)\n`);
    }
    const config = applyOverrides(base, overrides, true);

    for (const m of unusedKeys(config, values.config, values.channel !== undefined)) log.warn(m);
    // The channels say a decoder restarted or timed out through process.emitWarning, which Node prints without a
    // time ("(node:2355) Warning: …"): in a log kept for days, when a decoder crashed could not be told (helper 27).
    process.removeAllListeners('warning');
    process.on('warning', (w: Error) => log.warn(w.name === 'Warning' ? w.message : `${w.name}: ${w.message}`));
    const daemon = await Daemon.start(config, {
      log,
      configFile: values.config,
      onEvent: (ev, totals) =>
        put(
          'stdout',
          `${new Date(ev.timeMs).toISOString()}  ${ev.cameraId}  ${ev.lineId.padEnd(12)} ${ev.direction.padEnd(3)} ${ev.vehicleClass.padEnd(11)} in=${totals.in} out=${totals.out}\n`,
        ),
    });
    cleanups.unshift(() => daemon.close());
    // Listening for the signals before saying that it counts: a signal sent the moment that line is read (a
    // supervisor, a test) found no handler yet and killed the process without its flush.
    let hungUp = false;
    const stopped = new Promise<string>((resolve) => {
      const stop = (why: string) => {
        log.info(`${why}: flushing counts and stopping`);
        resolve(why);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
      // The terminal it runs in closing: stopped as by Ctrl-C (the default ended the process without its flush).
      process.once('SIGHUP', () => {
        hungUp = true;
        stop('SIGHUP');
      });
      if (duration > 0) setTimeout(() => stop(`--duration ${duration}s elapsed`), duration * 1000).unref();
    });
    const { channel: channelName, endpoint } = daemon.stats().channel;
    const keyNote = config.zeromqKeyFile !== '' ? ` with --key-file and a copy of ${config.zeromqKeyFile}` : '';
    const connect = endpoint === undefined ? undefined : decoderEndpoint(endpoint);
    const decodersAt = connect !== undefined ? ` (decoders connect to ${connect.endpoint}${keyNote}${connect.note})` : '';
    log.info(`counting ${config.cameras.length} camera(s) over the ${channelName} channel${decodersAt}; database ${describeDbPath(config.db)}`);

    if (values.http !== undefined || config.httpPort > 0) {
      const server = await startHttpServer({ host: config.httpHost, port: config.httpPort, dbPath: config.db, allowedHosts: config.httpAllowedHosts, stats: () => daemon.stats(), latestImage: (id) => daemon.latestImage(id) });
      cleanups.unshift(() => server.close());
      log.info(`HTTP API and dashboard on ${httpAddress(server.url)}`);
    }

    const status = setInterval(() => {
      const cameras = daemon.stats().cameras;
      // Over STATUS_CAMERAS cameras, one line for all (30 cameras logged 60 lines a minute, down or not: helper 27);
      // each camera's figures are in /api/health and /metrics.
      if (cameras.length > STATUS_CAMERAS) {
        const byStatus = new Map<string, number>();
        for (const c of cameras) byStatus.set(c.status, (byStatus.get(c.status) ?? 0) + 1);
        const sum = (f: (c: (typeof cameras)[number]) => number): number => cameras.reduce((n, c) => n + f(c), 0);
        const crossings = sum((c) => c.counts.reduce((n, l) => n + l.in + l.out, 0));
        log.info(
          `${cameras.length} cameras: ${[...byStatus].map(([st, n]) => `${n} ${st}`).join(', ')}; ${sum((c) => c.framesAnalysed)} frames analysed, ` +
            `${sum((c) => c.dropped)} dropped, ${sum((c) => c.decodeErrors)} rejected, ${crossings} crossings (each camera: /api/health, /metrics)`,
        );
        return;
      }
      for (const c of cameras) {
        const lines = c.counts.map((l) => `${l.lineId} in=${l.in} out=${l.out}`).join(', ');
        log.info(`camera ${c.id} (${c.status}): ${c.framesAnalysed} frames analysed, ${c.dropped} dropped, ${c.decodeErrors} rejected; ${lines}`);
      }
    }, 30_000);
    status.unref();

    const why = await stopped;
    clearInterval(status);
    // A close that takes a while (a decoder stopped or busy on a slow frame is waited for, then stopped: about 8 s)
    // says what it waits for, and how to stop at once: before, nothing was said after the signal until the exit.
    const again = why === 'SIGTERM' || why === 'SIGHUP' ? `a second ${why} or Ctrl-C` : 'Ctrl-C again';
    const waitNote = setTimeout(() => {
      const what = daemon.closeWaitingFor();
      if (what !== undefined) log.info(`still stopping: waiting for ${what}; ${again} stops at once (counts stored; frames still at the decoders not analysed)`);
    }, CLOSE_NOTE_MS);
    waitNote.unref();
    // A second signal while closing forces the exit: what the analyzers hold (a start-up's buffered frames
    // included) is counted and stored first; only the frames still at the decoders are not analysed.
    const force = (signal: NodeJS.Signals) => {
      let notAnalysed = 0;
      try {
        notAnalysed = daemon.closeNow();
      } catch (err) {
        log.warn(String(err));
      }
      log.warn(`second ${signal}: stopped at once; counts stored, ${notAnalysed} frame(s) still at the decoders not analysed`);
      process.exit(130);
    };
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const s of signals) process.once(s, force);
    // A close that could not write what it held (the database refusing writes) ends with status 1, not 0: a
    // supervisor or script must see that counts were lost (helper 26: "closed without writing 7 events", status 0).
    let closeFailed = false;
    for (const c of cleanups.splice(0)) {
      await c().catch((err: unknown) => {
        closeFailed = true;
        log.warn(String(err));
      });
    }
    clearTimeout(waitNote);
    for (const s of signals) process.off(s, force);
    if (hungUp) {
      // Flushed and closed: now ended by the signal, as a supervisor expects (status 129). Exiting normally on a
      // terminal that hung up tripped an assertion in Node's stdio reset (SIGABRT, a core dump; nodejs/node#42433).
      process.removeAllListeners('SIGHUP');
      process.kill(process.pid, 'SIGHUP');
      await new Promise((r) => setTimeout(r, 1_000).unref());
    }
    if (closeFailed) return 1;
  } finally {
    // Also on errors: a started simulator or daemon must not keep the process alive.
    for (const c of cleanups) await c().catch(() => {});
  }
  return 0;
}

/**
 * Refuses what the daemon would refuse only once started: a non-loopback zeromq endpoint without a key file, a key
 * file that cannot be read or is not one, a folder given as the database, a database another run counts into. The same checks and messages as the
 * channel's and the store's (they check again), said before the simulator, the --camera probe, the store (it
 * created the database first) or the decoders start (before, the simulator printed its URL first, 4 s in).
 */
async function refuseBeforeStart(config: Config): Promise<void> {
  if (config.channel === 'zeromq') checkZeromqKey(config.zeromqEndpoint, config.zeromqKeyFile);
  // A file (or a running daemon's socket) at an ipc:// endpoint's path: libzmq would delete (or take) it.
  if (config.channel === 'zeromq' && config.zeromqEndpoint.startsWith('ipc://')) await refuseTakenIpcPath(config.zeromqEndpoint.slice('ipc://'.length));
  // A ConfigError, not the store's StoreError: the user's input, exit status 2 as for the others.
  const folder = dbFolderProblem(config.db);
  if (folder !== undefined) throw new ConfigError(folder);
  // Another run counting into the database: the store's refusal (TC_ERR_STORE, status 1), said before, not after.
  const held = WriterLock.refusal(config.db);
  if (held !== undefined) throw new StoreError(held);
}

/**
 * What remote decoders give --connect, for the start line. A wildcard bind (tcp://0.0.0.0:P, tcp://*:P, tcp://[::]:P)
 * is no address to connect to: "decoders connect to tcp://0.0.0.0:42513" sent a decoder on another host to itself.
 */
function decoderEndpoint(endpoint: string): { endpoint: string; note: string } {
  const m = URL_HOST_PORT.exec(endpoint);
  if (!m || !isWildcardHost(m[1]!)) return { endpoint, note: '' };
  return { endpoint: `tcp://HOST:${m[2]}`, note: `; ${hostNote(m[1] === '[::]')}, as the decoders' hosts reach it` };
}

/**
 * The HTTP API's address, for the start line. Bound on every interface (--http-host 0.0.0.0 or ::, as in the
 * Docker image), "on http://0.0.0.0:8080/" is no address to open: other machines cannot reach it so, and browsers
 * refuse it. Named as the zeromq endpoint is: HOST to fill in, and loopback for this machine.
 */
function httpAddress(url: string): string {
  const m = URL_HOST_PORT.exec(url);
  if (!m || !isWildcardHost(m[1]!)) return `${url}/`;
  return `http://HOST:${m[2]}/ (on this machine http://127.0.0.1:${m[2]}/; from others ${hostNote(m[1] === '[::]')})`;
}

/** Up to this many cameras, the status every 30 s has a line per camera; beyond, one line for all. */
const STATUS_CAMERAS = 8;
/** How long a close may take before the log says what it waits for (ms): a normal close is over well before. */
const CLOSE_NOTE_MS = 1_000;

/** A relative db path (the config's "db" or --db) is taken from the working directory: the log says where that is. */
function describeDbPath(db: string): string {
  return isAbsolute(db) ? db : `${db} (${resolve(db)})`;
}

type RunFlags = Partial<Record<'config' | 'camera' | 'seed' | 'channel' | 'zeromq-endpoint' | 'zeromq-key-file' | 'http' | 'http-host' | 'decoder' | 'decoders' | 'tls-fingerprint', string>> & { readonly 'tls-insecure'?: boolean; readonly 'http-allowed-host'?: string[] };

/** Refuses flags that the rest of the command line makes meaningless: they would be silently ignored. */
function refuseIgnoredFlags(values: RunFlags, fileConfig: Config | undefined): void {
  const source = values.config ? `--config ${values.config}` : values.camera ? `--camera ${hideUrlPassword(values.camera)}` : undefined;
  for (const flag of ['tls-fingerprint', 'tls-insecure'] as const) {
    if (values[flag] === undefined) continue;
    if (!values.camera) {
      const key = flag === 'tls-fingerprint' ? 'tlsFingerprint' : 'tlsInsecure';
      throw new UsageError(`run: --${flag} is for an https:// --camera URL only; ${values.config ? `in --config ${values.config}, set the camera's "${key}"` : 'add --camera URL'}`);
    }
    if (!/^https:/i.test(values.camera.trim())) {
      throw new UsageError(`run: --${flag} is for an https:// --camera URL only, and ${hideUrlPassword(values.camera)} is not one; drop --${flag}`);
    }
  }
  if (values['tls-fingerprint'] !== undefined && values['tls-insecure']) {
    throw new UsageError('run: --tls-insecure beside --tls-fingerprint would make the pin pointless; drop --tls-insecure (the pinned certificate is accepted, any other refused)');
  }
  if (values.seed !== undefined && source) {
    throw new UsageError(`run: ${flagText('seed', values.seed)} seeds the built-in simulated camera, which runs only without --config and --camera; drop --seed, or drop ${source} to count the simulator`);
  }
  const channel = values.channel ?? fileConfig?.channel ?? DAEMON_DEFAULTS.channel;
  for (const flag of ['zeromq-endpoint', 'zeromq-key-file'] as const) {
    if (values[flag] === undefined || channel === 'zeromq') continue;
    const from = values.channel !== undefined ? flagText('channel', values.channel) : fileConfig ? `--config ${values.config}, or the default` : 'the default';
    throw new UsageError(`run: ${flagText(flag, values[flag])} is used only by the zeromq channel, but the channel is ${channel} (${from}); add --channel zeromq, or drop --${flag}`);
  }
  if (values['http-host'] !== undefined && values.http === undefined && !(fileConfig && fileConfig.httpPort > 0)) {
    throw new UsageError(`run: ${flagText('http-host', values['http-host'])} is where the HTTP API listens, but the API is off without --http PORT${fileConfig ? ` (or "httpPort" in ${values.config})` : ''}; add --http PORT (0 = any free port), or drop --http-host`);
  }
  if (values['http-allowed-host'] !== undefined && values.http === undefined && !(fileConfig && fileConfig.httpPort > 0)) {
    throw new UsageError(`run: ${flagText('http-allowed-host', values['http-allowed-host'].join(','))} names hosts the HTTP API answers to, but the API is off without --http PORT${fileConfig ? ` (or "httpPort" in ${values.config})` : ''}; add --http PORT, or drop --http-allowed-host`);
  }
  const decoders = values.decoders ?? String(fileConfig?.decoders ?? DAEMON_DEFAULTS.decoders);
  // Checked here too, not only when the config is validated with the flags: that comes after the simulator has
  // started (it printed its URL before the refusal) or the --camera probe has waited up to 15 s for a frame.
  if (values.decoders !== undefined && Number(values.decoders) === 0 && channel !== 'zeromq') {
    const from = values.channel !== undefined ? flagText('channel', values.channel) : fileConfig ? `--config ${values.config}, or the default` : 'the default';
    throw new UsageError(`run: --decoders 0 (no local decoder: remote \`traffic-counter decoder\` processes only) needs the zeromq channel, but the channel is ${channel} (${from}); add --channel zeromq --zeromq-endpoint tcp://HOST:PORT, or give --decoders 1 or more`);
  }
  if (values.decoder !== undefined && Number(decoders) === 0) {
    const from = values.decoders !== undefined ? '--decoders 0' : `"decoders": 0 in ${values.config}`;
    throw new UsageError(`run: ${flagText('decoder', values.decoder)} picks the local decoders' library, but ${from} runs none (each remote decoder picks its own: traffic-counter decoder --decoder ${values.decoder}); drop --decoder, or give --decoders 1 or more`);
  }
}

/**
 * Keys of a config file that the channel it picks does not read: said at start, not refused, since a config that
 * switches between channels keeps both (the same given as a flag is refused, see refuseIgnoredFlags).
 */
export function unusedKeys(config: Config, file: string | undefined, channelFlag: boolean): string[] {
  const out: string[] = [];
  const where = file ?? 'the config';
  const channel = channelFlag ? `${config.channel} (--channel ${config.channel})` : config.channel;
  if (config.channel !== 'zeromq' && config.zeromqEndpoint !== '') {
    const fix = channelFlag ? 'give --channel zeromq to use it' : 'set "channel": "zeromq" to use it';
    out.push(`${where}: zeromqEndpoint ${JSON.stringify(config.zeromqEndpoint)} is not used: the channel is ${channel}, and only the zeromq channel listens there (${fix})`);
  }
  if (config.channel !== 'zeromq' && config.zeromqKeyFile !== '') {
    const fix = channelFlag ? 'give --channel zeromq to use it' : 'set "channel": "zeromq" to use it';
    out.push(`${where}: zeromqKeyFile ${JSON.stringify(config.zeromqKeyFile)} is not used: the channel is ${channel}, and only the zeromq channel uses a key (${fix})`);
  }
  if (config.channel !== 'ipc' && config.ipcSerialization !== DAEMON_DEFAULTS.ipcSerialization) {
    out.push(`${where}: ipcSerialization ${JSON.stringify(config.ipcSerialization)} is not used: the channel is ${channel}, and only the ipc channel serializes frames that way`);
  }
  return out;
}

/**
 * A one-camera config for --camera URL: full-frame ROI, one horizontal line at 60% of the height, the kind of
 * source and the frame size the camera's first answer showed.
 */
async function singleCameraConfig(
  url: string,
  tls: { readonly tlsFingerprint?: string; readonly tlsInsecure?: boolean },
  say: (text: string) => void,
): Promise<Config> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--camera: not a URL: "${hideUrlPassword(url)}"; give the camera's snapshot or MJPEG URL, e.g. http://192.0.2.10/snapshot.jpg`);
  }
  const tlsKeys = { ...(tls.tlsFingerprint !== undefined ? { tlsFingerprint: tls.tlsFingerprint } : {}), ...(tls.tlsInsecure ? { tlsInsecure: true } : {}) };
  let probed: Awaited<ReturnType<typeof probeCameraSize>>;
  try {
    probed = await probeCameraSize(parsed.href, undefined, tlsKeys);
  } catch (err) {
    // The probe's config check names config keys; here they were given as flags: named as those.
    for (const [key, flag] of [['cameras[0].tlsFingerprint', '--tls-fingerprint'], ['cameras[0].url', '--camera']] as const) {
      if (err instanceof ConfigError && err.message.startsWith(`${key}:`)) throw new UsageError(`run: ${flag}${err.message.slice(key.length)}`, { cause: err });
    }
    throw err;
  }
  const { width, height, kind } = probed;
  const y = Math.round(height * 0.6);
  // A camera larger than the default limit (a 2688x1520 "4 MP" camera is 4.1 MP) gets a limit that lets its frames
  // in; without it, every frame the probe just read would be refused.
  const megapixels = Math.ceil((width * height) / 1e5) / 10;
  // Past what any config may hold: a JPEG header that is broken or hostile (65000x65000), said as the frame's fault.
  // Before, the config was printed with that size and then refused itself ("cameras[0].maxMegapixels: must be a
  // number from 0.01 to 100, got 4225", exit 2), as if the user had written it.
  if (megapixels > MAX_MEGAPIXELS) {
    throw new DecodeError(
      'TC_ERR_DECODE_TOO_LARGE',
      `--camera ${hideUrlPassword(url)}: its frame's JPEG header claims ${width}x${height} (${megapixels.toFixed(1)} MP), over the ${MAX_MEGAPIXELS} MP traffic-counter decodes; check that the URL serves the camera's snapshots or stream (a broken camera or a JPEG that is not a camera's)`,
    );
  }
  const limit = megapixels > CAMERA_DEFAULTS.maxMegapixels ? { maxMegapixels: megapixels } : {};
  const raw = {
    cameras: [
      {
        id: 'camera',
        url: parsed.href,
        kind,
        // A stream's frame interval as measured: the slots its uptime is counted in.
        ...(probed.frameIntervalMs !== undefined ? { pollIntervalMs: probed.frameIntervalMs } : {}),
        ...tlsKeys,
        ...limit,
        roi: [
          [0, 0],
          [width, 0],
          [width, height],
          [0, height],
        ],
        lines: [{ id: 'line', from: [0, y], to: [width, y] }],
        drawnOn: [width, height],
      },
    ],
  };
  // The log may be kept (a journal, a CI log): the password is shown as ***, to be put back in the saved file.
  const shown = { cameras: [{ ...raw.cameras[0]!, url: hideUrlPassword(parsed.href) }] };
  const putBack = shown.cameras[0]!.url !== parsed.href ? ' (secrets in the URL are shown as ***: write them in again)' : '';
  say(`no config given: counting with this one (save it to a file${putBack}, adjust roi and lines, use --config):\n${JSON.stringify(shown)}\n`);
  try {
    return validateConfig(raw);
  } catch (err) {
    throw new ConfigError(`--camera ${hideUrlPassword(url)}: ${(err as Error).message}`, { cause: err });
  }
}
