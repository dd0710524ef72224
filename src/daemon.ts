// Wires one pipeline per camera: source → decode channel → analyzer → store, and keeps it running
// whatever the cameras send. One channel and one store are shared by all cameras.

import { setMaxListeners } from 'node:events';
import type { Config, CameraConfig } from './config/config-types.js';
import type { CrossingEvent, LineReach } from './analyze/analyzer-types.js';
import { CameraAnalyzer } from './analyze/camera-analyzer.js';
import { FRAMES_TO_FIND_A_MOVE, viewMovedMessage } from './analyze/view-check.js';
import { describeFrameSizeOptions, frameSizeOptions, type FrameSizeOptions } from './analyze/analyzer-options.js';
import { createChannelFor } from './channel/create-channel.js';
import { checkZeromqKey } from './channel/zeromq-key.js';
import type { FrameChannel, ChannelStats } from './channel/frame-channel.js';
import type { JpegFrame } from './channel/messages.js';
import { frameName } from './decode/decode-to-frame.js';
import { namingCameraUrl } from './decode/jpeg-header.js';
import { CountStore } from './store/count-store.js';
import { createSource } from './source/create-source.js';
import { abortableSleep } from './source/abortable-sleep.js';
import { RepeatLog } from './repeat-log.js';
import { LoadWindow, behindMessage, keepsUpMessage, noRemoteDecoderSince } from './load-window.js';
import type { FrameSource, SourceStats } from './source/frame-source.js';
import { SourceError, type TrafficCounterError } from './errors.js';
import { inConfigFile } from './config/validate-config.js';

export interface DaemonLogger {
  info(msg: string): void;
  warn(msg: string): void;
}

export interface DaemonOptions {
  readonly log?: DaemonLogger;
  /** The window over which a camera's frames dropped before analysis are judged (ms, default 60 s; tests shorten it). */
  readonly loadWindowMs?: number;
  readonly onEvent?: (event: CrossingEvent, totals: { in: number; out: number }) => void;
  /** The config file the cameras came from (run --config): named in errors about a camera's keys (see inConfigFile). */
  readonly configFile?: string;
}

export interface CameraStats {
  readonly id: string;
  framesAnalysed: number;
  decodeErrors: number;
  decodeErrorsByCode: Record<string, number>;
  dropped: number;
  analyzerErrors: number;
  lastFrameAt: number | null;
  lastError: string | null;
  source: SourceStats;
  counts: { lineId: string; in: number; out: number }[];
  /** Whether the ROI reaches far enough past each line for the frame rate (see CameraAnalyzer.lineReach). */
  lineReach: LineReach[];
  /**
   * `down`: the camera's latest attempts failed (the source backs off and retries); `frozen`: it answers, but
   * no new image came for frozenAfterMs; `failing`: new images come, but none could be analysed for 10 s (or
   * five poll intervals): the decoder or the analyzer refuses them, the warning says why; `moved`: the picture no
   * longer matches the view the ROI was learnt on (see ViewCheck), counted but unreliable; `learning`: the
   * analyzer is still learning the background (nothing is counted yet); `counting` otherwise.
   */
  status: 'down' | 'frozen' | 'failing' | 'moved' | 'learning' | 'counting';
  /** What the user should fix or know now, each naming the camera (and line) and the fix: empty when all is well. */
  warnings: { lineId?: string; message: string }[];
  /**
   * The analyzer's frame-size options in use (see README, "Frame size"): those the camera left unset are fitted
   * to its first frame; before it, the 1280x720 values.
   */
  scale: FrameSizeOptions;
  /**
   * The ROI and lines as configured, in pixels of the frame `drawnOn` gives (or, without it, of the camera's
   * first frame): the dashboard draws them over the latest image.
   */
  view: { roi: CameraConfig['roi']; lines: CameraConfig['lines']; drawnOn?: CameraConfig['drawnOn'] };
}

/**
 * A camera's source log beside its RepeatLog: whether the current failure was said (its "back" line is said only
 * then), and since when it has been back (null while it fails).
 */
interface SourceSaid {
  failure: boolean;
  backAt: number | null;
}

/** A camera back this long (ms) is steady: its next failure is said at once, not counted as a repeat. */
const STEADY_MS = 60_000;

/** How often the daemon checks that its database file is still there (a stat: microseconds). */
const FILE_CHECK_MS = 5_000;

/** What to do about a database file deleted or replaced under the daemon (CountStore.fileGone). */
function fileGoneMessage(gone: string): string {
  return `database ${gone}; the counts from then on are written to the file the daemon opened, which no longer has that name and is lost when the daemon stops: restart it (Ctrl-C, then run again) to count into a new database at that path`;
}

/** The count database as /api/health and /metrics show it. */
export interface StoreHealth {
  readonly file: string;
  /** False while writes fail (the counts are kept in memory and retried): /api/health then answers 503. */
  readonly ok: boolean;
  /** When writes began to fail (ms since the epoch), null while they work. */
  readonly failingSince: number | null;
  readonly pendingEvents: number;
  readonly pendingBuckets: number;
  readonly failedFlushes: number;
  /** Crossing details (not counts) dropped after writes failed past the store's bound. */
  readonly eventDetailsDropped: number;
  readonly lastError: string | null;
  readonly warnings: readonly { readonly message: string }[];
}

interface CameraPipeline {
  readonly camera: CameraConfig;
  readonly analyzer: CameraAnalyzer;
  readonly source: FrameSource;
  readonly stats: Omit<CameraStats, 'source' | 'counts' | 'lineReach' | 'status' | 'warnings' | 'scale' | 'view'>;
  /** Lines already warned about (see #checkReach): each is reported once per run. */
  readonly reachWarned: Set<string>;
  /** Wall-clock time of the source's latest new image (or of the start); see #isFrozen. */
  lastNewImageAt: number;
  /** Whether the log has said the camera froze (said once, until a new image comes). */
  frozenWarned: boolean;
  /**
   * Whether the log has said the camera's view moved (said once, until it is back); meanwhile the frames received are
   * marked moved in the store (frames_moved), and so are those analysed from the move's start to its finding.
   */
  movedWarned: boolean;
  /** Frames handed to the channel and outputs taken from it, per load window: whether the daemon keeps up (see #judgeLoad). */
  readonly load: LoadWindow;
  /** Capture times of the latest analysed frames (a ring of FRAMES_TO_FIND_A_MOVE), for that mark; and how many were. */
  readonly recentFrames: Float64Array;
  recentCount: number;
  /** Changes of frame size the log has told (CameraAnalyzer.lastResize.count). */
  resizesLogged: number;
  /** When the log says a decode error again (see #consume); not reset by frames that decode in between. */
  readonly decodeLog: RepeatLog;
  /** When the log says the source's error again: not at every poll while the camera stays down. */
  readonly sourceLog: RepeatLog;
  /** Frames received during a start-up, per minute start, not stored until it ends (see #received). */
  readonly heldTicks: Map<number, { received: number; moved: number }>;
  /** Why the latest frame was not analysed (its decode or analyzer error); null once one is. */
  skipReason: string | null;
  /** Wall-clock time the latest frame was analysed (or the camera started), for the health warning below. */
  lastAnalysedAt: number;
  /** Wall-clock time of the first new image since the latest analysed frame; null when none came since. */
  waitingSince: number | null;
  /** The latest image the camera sent (one per camera, replaced by the next), for the HTTP API. */
  latestImage: { readonly jpeg: Uint8Array; readonly capturedAt: number } | null;
  /** The source's sequence number of that image (0 before the first). */
  latestImageSeq: number;
  /**
   * Whether that image was analysed (true), refused by the decoder or the analyzer (false), or is not through
   * yet (null). The camera's answers that repeat it count as received for uptime only when it is not refused:
   * a camera stuck on a picture that cannot be analysed is an outage, not a quiet road.
   */
  latestImageUsable: boolean | null;
  /** The steps of the frame being analysed, while the event loop is let through between them (see #consume). */
  stepping: Generator<CrossingEvent[], void, undefined> | null;
}

/** A camera that answers but has had no frame analysed for this long (or 5 poll intervals) gets a health warning. */
const STARVED_MS = 10_000;

/** How often the daemon deletes crossing details past eventRetentionDays (also once at start). */
const PRUNE_EVERY_MS = 3_600_000;
/** Rows one delete takes at most; the event loop runs between two (a few ms each). */
const PRUNE_BATCH = 5_000;

/** Analysed frames between two checks of the ROI's reach around the lines. */
const REACH_CHECK_FRAMES = 60;

/**
 * A camera whose frames the channel drops (the decoders or the analyzer cannot keep up) is judged over windows of
 * this long (DaemonOptions.loadWindowMs; see LoadWindow for the rule).
 */
const LOAD_WINDOW_MS = 60_000;

/** Snapshot cameras' first polls are spread over their poll interval, but over this long at most (ms). */
const POLL_SPREAD_MAX_MS = 2_000;

/**
 * When each camera's first poll is due after the daemon starts (ms; 0 for MJPEG streams, which set their own pace):
 * the k-th of n snapshot cameras at k/n of its poll interval, or of POLL_SPREAD_MAX_MS if that is shorter. Polled
 * at the same instant, n cameras' JPEGs reach the channel together, and with fewer frames in flight than cameras
 * the channel drops some of them every round even when the decoders are mostly idle (6 cameras at 2 fps, one
 * jpeg-js decoder about a third busy, 4 in flight: 38% of five cameras' frames dropped). Spread out, they come one
 * by one. Beyond a couple of seconds spreading gains nothing, and a camera polled every 10 minutes must not wait
 * minutes for its first poll (nor a 401 or a wrong path go untold that long). Cameras with different intervals
 * drift in and out of step; they are spread at the start only.
 */
export function pollStartDelays(cameras: readonly Pick<CameraConfig, 'kind' | 'pollIntervalMs'>[]): number[] {
  const n = cameras.filter((c) => c.kind === 'snapshot').length;
  let k = 0;
  return cameras.map((c) => (c.kind === 'snapshot' ? Math.floor((k++ * Math.min(c.pollIntervalMs, POLL_SPREAD_MAX_MS)) / n) : 0));
}

const SILENT: DaemonLogger = { info() {}, warn() {} };

/** Runs each release in turn, also after one fails; a failure is logged, not thrown (it would hide the cause). */
async function releaseAll(log: DaemonLogger, releases: readonly (() => unknown)[]): Promise<void> {
  for (const release of releases) {
    try {
      await release();
    } catch (err) {
      log.warn(`while releasing what a failed start had opened: ${(err as Error).message}`);
    }
  }
}

export class Daemon implements AsyncDisposable {
  readonly config: Config;
  readonly #log: DaemonLogger;
  readonly #opts: DaemonOptions;
  readonly #loadWindowMs: number;
  readonly #store: CountStore;
  readonly #channel: FrameChannel;
  readonly #pipelines = new Map<string, CameraPipeline>();
  readonly #abort = new AbortController();
  readonly #loops: Promise<void>[] = [];
  #loadTimer: NodeJS.Timeout | undefined;
  /** Checks every FILE_CHECK_MS that the database file is still the one written (see CountStore.fileGone). */
  #fileTimer: NodeJS.Timeout | undefined;
  #fileGoneSaid = false;
  #closing: Promise<void> | undefined;

  private constructor(config: Config, opts: DaemonOptions, store: CountStore, channel: FrameChannel) {
    this.config = config;
    this.#opts = opts;
    this.#log = opts.log ?? SILENT;
    this.#loadWindowMs = opts.loadWindowMs ?? LOAD_WINDOW_MS;
    this.#store = store;
    this.#channel = channel;
    // Each camera's source listens once on this signal: with over ten cameras that is expected, not a leak,
    // and Node's MaxListenersExceededWarning would tell the user otherwise.
    setMaxListeners(0, this.#abort.signal);
  }

  /** Opens the store, starts the decoders and begins polling every camera. */
  static async start(config: Config, opts: DaemonOptions = {}): Promise<Daemon> {
    const log = opts.log ?? SILENT;
    const window = opts.loadWindowMs;
    if (window !== undefined && !(window > 0 && Number.isFinite(window))) throw new RangeError(`DaemonOptions.loadWindowMs: must be a positive number of ms, got ${String(window)}`);
    // Every analyzer is built (its config checked) before the store opens and the decoders start: a camera it
    // refuses stops the start with nothing to close.
    let analyzers: CameraAnalyzer[];
    try {
      analyzers = config.cameras.map((camera, i) => new CameraAnalyzer(camera, `cameras[${i}]`));
    } catch (err) {
      throw inConfigFile(err, opts.configFile);
    }
    // So is the zeromq key (a missing key file created the database before it was refused: helper 48).
    if (config.channel === 'zeromq') checkZeromqKey(config.zeromqEndpoint, config.zeromqKeyFile);
    // A failing database (disk full, made read-only) is said once, then at its 100th failure since or after 10
    // minutes (see RepeatLog), not at every flush (once a second: helper 26), and its recovery is said.
    const storeLog = new RepeatLog();
    const store = CountStore.open(config.db, {
      flushIntervalMs: config.flushIntervalMs,
      onError: (err, what) => {
        // The failed writes, and the crossing details dropped after they failed too long, each on its own count.
        const { say, since } = storeLog.say(what);
        const again = since > 1 ? ` (${since} times since it was last said)` : '';
        if (say) log.warn(`store: ${err.message} (kept in memory, will retry)${again}`);
      },
      onRecover: ({ failedFlushes, failingSince }) => {
        storeLog.reset();
        log.info(`store: ${config.db}: writes work again after ${failedFlushes} failed attempt(s) over ${Math.round((Date.now() - failingSince) / 1000)} s; the counts kept meanwhile are written`);
      },
    });
    // Any later step can fail (the decoders do not start, the database refuses to register a camera): what was
    // opened is then released, latest first, and the start's own error is thrown.
    const opened: (() => unknown)[] = [() => store.close()];
    try {
      // The channel says each frame it drops as it drops it, so a camera's drops are counted when they happen, also
      // while none of its frames comes through (gaps in its sequence numbers, counted before, showed nothing then).
      let daemon: Daemon | undefined;
      const channel = createChannelFor(
        config,
        (frame) => {
          if (daemon) daemon.#dropped(frame);
        },
        (message) => log.info(message),
      );
      opened.unshift(() => channel.close());
      await channel.start();
      daemon = new Daemon(config, opts, store, channel);
      // From here the daemon's close releases it all: what #begin starts (sources, loops), the channel, the store.
      opened.splice(0, opened.length, () => daemon.close());
      daemon.#begin(analyzers);
      return daemon;
    } catch (err) {
      await releaseAll(log, opened);
      throw err;
    }
  }

  #begin(analyzers: readonly CameraAnalyzer[]): void {
    this.#warnRenamedInCase();
    const startDelays = pollStartDelays(this.config.cameras);
    for (const [i, camera] of this.config.cameras.entries()) {
      for (const { lineId, before } of this.#store.registerCamera({ id: camera.id, pollIntervalMs: camera.pollIntervalMs, lines: camera.lines })) {
        const l = camera.lines.find((x) => x.id === lineId)!;
        const ends = (from: readonly number[], to: readonly number[]): string => `(${from.join(', ')}) → (${to.join(', ')})`;
        this.#log.warn(
          `camera ${camera.id} line ${lineId}: drawn at ${ends(l.from, l.to)}, where the database ${this.config.db} last counted it at ` +
            `${ends(before.from, before.to)}; its counts from before and from now are added up under one id: give the line a new id ` +
            `to count it apart (the old one's history stays)`,
        );
      }
      const stats = { id: camera.id, framesAnalysed: 0, decodeErrors: 0, decodeErrorsByCode: {}, dropped: 0, analyzerErrors: 0, lastFrameAt: null, lastError: null };
      const sourceLog = new RepeatLog();
      const sourceSaid: SourceSaid = { failure: false, backAt: null };
      const source = createSource(camera, {
        onError: (err: TrafficCounterError, kind: 'failure' | 'warning') => this.#onSourceError(camera, sourceLog, sourceSaid, err, kind),
        // Said when its failure was (a flapping camera, down and back every few seconds, said both every time:
        // 83 lines a minute, helper 27). Its errors are said afresh only once it has been back STEADY_MS.
        onRecover: (info: { afterFailures: number }) => {
          if (sourceSaid.failure) this.#log.info(`camera ${camera.id}: back after ${info.afterFailures} failed attempt(s)`);
          sourceSaid.failure = false;
          sourceSaid.backAt = Date.now();
        },
        onSlot: (timeMs: number) => this.#store.addFrameTicks(camera.id, timeMs, { expected: 1 }),
        // The poll in flight when the daemon stops was cut short by us: not a frame the camera failed to give.
        onSlotCancelled: (timeMs: number) => this.#store.withdrawExpected(camera.id, timeMs),
        // A camera that refreshes more slowly than it is polled is up: its unchanged answers count as received.
        // One that sends the same image for frozenAfterMs is said to be frozen, once, and is down from then on
        // until a new image comes: a picture that does not change shows no traffic, so its zero is not a quiet road.
        // Not received either when the image it repeats was refused (see latestImageUsable).
        onUnchanged: (timeMs: number) => {
          const p = this.#pipelines.get(camera.id);
          if (p && p.latestImageUsable !== false && !this.#isFrozen(p)) this.#received(p, timeMs);
          if (p && !p.frozenWarned && this.#isFrozen(p)) {
            p.frozenWarned = true;
            this.#log.warn(this.#frozenMessage(p));
          }
        },
      }, { startDelayMs: startDelays[i] });
      const pipeline: CameraPipeline = { camera, analyzer: analyzers[i]!, source, stats, reachWarned: new Set(), lastNewImageAt: Date.now(), frozenWarned: false, movedWarned: false, recentFrames: new Float64Array(FRAMES_TO_FIND_A_MOVE), recentCount: 0, load: new LoadWindow(this.#loadWindowMs, Date.now()), resizesLogged: 0, decodeLog: new RepeatLog(), sourceLog, heldTicks: new Map(), skipReason: null, lastAnalysedAt: Date.now(), waitingSince: null, latestImage: null, latestImageSeq: 0, latestImageUsable: null, stepping: null };
      this.#pipelines.set(camera.id, pipeline);
      this.#loops.push(this.#produce(pipeline));
    }
    this.#loops.push(this.#consume());
    // Every camera's window ends on this timer, not when an output of it comes: a camera whose every frame is
    // dropped has none, and one whose frames stop would have its last window judged late or never.
    this.#loadTimer = setInterval(() => this.#judgeLoad(), this.#loadWindowMs);
    this.#loadTimer.unref();
    this.#fileTimer = setInterval(() => {
      const gone = this.#fileGoneSaid || this.#store.closed ? null : this.#store.fileGone();
      if (gone === null) return;
      this.#fileGoneSaid = true;
      this.#log.warn(fileGoneMessage(gone));
    }, FILE_CHECK_MS);
    this.#fileTimer.unref();
    if (this.config.eventRetentionDays > 0) this.#loops.push(this.#pruneLoop(this.config.eventRetentionDays));
  }

  /**
   * A camera renamed only in case between runs (cam1, now Cam1) leaves its counts under the old id, which the
   * database, the API and `query` tell apart by case: two cameras where the user meant one. Said once at start;
   * nothing is renamed (the user may mean two cameras, or want the old counts kept as they are).
   */
  #warnRenamedInCase(): void {
    // By lower case: one pass over each list, not every pair (a config may hold thousands of cameras).
    const ids = this.#store.cameraIds();
    const exact = new Set(ids);
    const stored = new Map<string, string[]>();
    for (const id of ids) stored.set(id.toLowerCase(), [...(stored.get(id.toLowerCase()) ?? []), id]);
    for (const [i, camera] of this.config.cameras.entries()) {
      // Said at the first start after the rename only: from then on the database holds both, and a warning at every
      // start (after the advice was followed, about the id just left) would only confuse.
      if (exact.has(camera.id)) {
        this.#warnLinesRenamedInCase(i, camera);
        continue;
      }
      for (const old of stored.get(camera.id.toLowerCase()) ?? []) {
        this.#log.warn(
          `camera ${camera.id}: the database ${this.config.db} already holds camera "${old}", the same id but for case ` +
            `(renamed between runs?); the two are counted apart, so the API and \`query\` show two cameras: ` +
            `set cameras[${i}].id${this.#inConfig()} back to "${old}" to go on counting under it, or read its history with ` +
            `\`traffic-counter query --db ${this.config.db} --bucket day --camera ${old}\``,
        );
      }
    }
  }

  /** Where a config key named in a start-up warning is: ` in --config FILE`, or nothing when no file gave the cameras. */
  #inConfig(): string {
    return this.#opts.configFile === undefined ? '' : ` in --config ${this.#opts.configFile}`;
  }

  /**
   * The same for a line of a camera the database holds (north, now North): its counts go on under the new id, apart
   * from the old one's, so `query --line North` shows only those since the rename. Said at the first start after it.
   */
  #warnLinesRenamedInCase(i: number, camera: CameraConfig): void {
    const ids = this.#store.lineIds(camera.id);
    const exact = new Set(ids);
    for (const [j, line] of camera.lines.entries()) {
      if (exact.has(line.id)) continue;
      for (const old of ids.filter((id) => id.toLowerCase() === line.id.toLowerCase())) {
        this.#log.warn(
          `camera ${camera.id} line ${line.id}: the database ${this.config.db} already holds line "${old}" of this camera, the same ` +
            `id but for case (renamed between runs?); the two are counted apart, so the API and \`query\` show two lines: ` +
            `set cameras[${i}].lines[${j}].id${this.#inConfig()} back to "${old}" to go on counting under it, or read its history with ` +
            `\`traffic-counter query --db ${this.config.db} --bucket day --camera ${camera.id} --line ${old}\``,
        );
      }
    }
  }

  /**
   * Deletes crossing details older than `days` (of every camera the database holds, also those no longer
   * configured), at start and every PRUNE_EVERY_MS, in batches with the event loop let through between them.
   * The counts stay in the roll-ups. SQLite reuses the freed pages, so the file stops growing but does not shrink.
   */
  async #pruneLoop(days: number): Promise<void> {
    const signal = this.#abort.signal;
    do {
      const before = Date.now() - days * 86_400_000;
      let deleted = 0;
      try {
        for (const cameraId of this.#store.cameraIds()) {
          for (let n = PRUNE_BATCH; n === PRUNE_BATCH && !signal.aborted; ) {
            n = this.#store.pruneEvents(cameraId, before, PRUNE_BATCH);
            deleted += n;
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
        }
      } catch (err) {
        // A busy or failing database: tried again at the next pass; nothing counted depends on it.
        if (!signal.aborted) this.#log.warn(`store: could not delete crossing details older than ${days} day(s) (eventRetentionDays): ${(err as Error).message}; retrying in an hour`);
      }
      if (deleted > 0) {
        this.#log.info(`deleted ${deleted} crossing detail(s) from before ${new Date(before).toISOString()} (eventRetentionDays ${days}); their counts stay in the minute/hour/day roll-ups`);
      }
    } while (await abortableSleep(PRUNE_EVERY_MS, signal));
  }

  #onSourceError(camera: CameraConfig, log: RepeatLog, said: SourceSaid, err: TrafficCounterError, kind: 'failure' | 'warning'): void {
    const p = this.#pipelines.get(camera.id);
    if (p) p.stats.lastError = err.message;
    this.#store.addFrameTicks(camera.id, Date.now(), { sourceErrors: 1 });
    // A camera back for a while whose problem comes again is told at once; one that flaps, as a repeat. Only a
    // failure ends its time back: a warning while it streams (an oversized part) was said every time once the
    // camera had been back a minute (helper 31).
    if (kind === 'failure') {
      if (said.backAt !== null && Date.now() - said.backAt >= STEADY_MS) log.reset();
      said.backAt = null;
    }
    // Each cause on its own: an HTTP error's status too (a camera going from 500 to 404 to 401 says each).
    const { say, since } = log.say(err instanceof SourceError && err.status !== undefined ? `${err.code} ${err.status}` : err.code);
    if (say && kind === 'failure') said.failure = true;
    if (say) {
      // A warning (a boundary read anyway, an oversized part skipped) is not retried, also when it comes during a
      // failure streak, before the stream has delivered a frame.
      const retrying = kind === 'failure' ? '; retrying with backoff' : '';
      const again = since > 1 ? ` (${since} times since it was last said)` : '';
      this.#log.warn(`${err.message} [${err.code}]${retrying}${again}`);
    }
  }

  async #produce(p: CameraPipeline): Promise<void> {
    const limits = { maxMegapixels: p.camera.maxMegapixels, maxDecodeMemoryMB: p.camera.maxDecodeMemoryMB };
    try {
      for await (const frame of p.source.frames(this.#abort.signal)) {
        p.lastNewImageAt = Date.now();
        p.latestImage = { jpeg: frame.jpeg, capturedAt: frame.capturedAt };
        p.latestImageSeq = frame.seq;
        p.latestImageUsable = null;
        p.waitingSince ??= p.lastNewImageAt;
        if (p.frozenWarned) {
          p.frozenWarned = false;
          this.#log.info(`camera ${p.camera.id}: new images again`);
        }
        this.#channel.submit(frame, limits);
        p.load.submitted();
      }
    } catch (err) {
      if (!this.#abort.signal.aborted) this.#log.warn(`camera ${p.camera.id}: source stopped: ${(err as Error).message}`);
    }
  }

  /**
   * A frame received (analysed, or the camera's unchanged picture) is stored as such, but during a start-up only
   * once the start-up ends: its frames are counted then, and a daemon killed before (kill -9, a crash loop) stored
   * up to 10 s at 100% uptime with none of their vehicles (helper 26: 16 of 16 frames, 0 of 6 crossings). Those
   * minutes now read as not received, as an outage does. Held per minute, so a start-up that never ends (a camera
   * whose picture stays the same) holds one entry a minute.
   */
  #received(p: CameraPipeline, timeMs: number): void {
    const moved = p.movedWarned ? 1 : 0;
    if (p.analyzer.starting) {
      const minute = Math.floor(timeMs / 60_000) * 60_000;
      const t = p.heldTicks.get(minute) ?? { received: 0, moved: 0 };
      t.received++;
      t.moved += moved;
      p.heldTicks.set(minute, t);
      return;
    }
    this.#storeHeldTicks(p);
    this.#store.addFrameTicks(p.camera.id, timeMs, { received: 1, moved });
  }

  #storeHeldTicks(p: CameraPipeline): void {
    for (const [minute, t] of p.heldTicks) this.#store.addFrameTicks(p.camera.id, minute, t);
    p.heldTicks.clear();
  }

  /** A frame of the camera the channel dropped (the decoders or the analyzer fell behind, or a decoder failed). */
  #dropped(frame: JpegFrame): void {
    const p = this.#pipelines.get(frame.cameraId);
    if (!p) return;
    p.stats.dropped++;
    // Drops during the close's drain come after closeNow() may have closed the store: in the stats only.
    if (!this.#store.closed) this.#store.addFrameTicks(frame.cameraId, Date.now(), { dropped: 1 });
  }

  async #consume(): Promise<void> {
    for (let out = await this.#channel.next(); out !== null; out = await this.#channel.next()) {
      const cameraId = out.kind === 'frame' ? out.frame.cameraId : out.failure.cameraId;
      const seq = out.kind === 'frame' ? out.frame.seq : out.failure.seq;
      const p = this.#pipelines.get(cameraId);
      if (!p) {
        if (out.kind === 'frame') out.frame.release();
        continue;
      }
      p.load.cameOut();
      if (out.kind === 'error') {
        const message = namingCameraUrl(out.failure.message, p.camera.url);
        p.stats.decodeErrors++;
        p.stats.decodeErrorsByCode[out.failure.code] = (p.stats.decodeErrorsByCode[out.failure.code] ?? 0) + 1;
        p.stats.lastError = message;
        p.skipReason = message;
        if (seq === p.latestImageSeq) p.latestImageUsable = false;
        this.#store.addFrameTicks(cameraId, out.failure.capturedAt, { decodeErrors: 1 });
        // Once per camera and code, then that code's every 100th or after 10 minutes (see RepeatLog), while frames
        // keep failing (not twice a second), also when good frames come in between (a camera sending every other
        // frame cut short) or another code does.
        if (p.decodeLog.say(out.failure.code).say) {
          this.#log.warn(`${message} [${out.failure.code}]; frame skipped (${p.stats.decodeErrors} so far; this error is said again at its 100th time since or after 10 minutes)`);
        }
        continue;
      }
      const f = out.frame;
      try {
        // In steps, with the event loop let through between them: the frame that ends a camera's start-up is
        // ~0.5 s of work, which would otherwise hold up the HTTP API, the other cameras and their downloads.
        // closeNow() may come between two steps: it finishes them itself (p.stepping), and this loop stops.
        const steps = p.analyzer.steps({ width: f.width, height: f.height, scale: f.scale, data: f.data, timeMs: f.capturedAt });
        p.stepping = steps;
        try {
          for (const events of steps) {
            this.#record(p, events);
            await new Promise<void>((resolve) => setImmediate(resolve));
            // The store closed under a frame's steps: closeNow() took them over (a normal close waits for this loop).
            if (this.#store.closed) return;
          }
        } finally {
          p.stepping = null;
        }
        p.stats.framesAnalysed++;
        p.stats.lastFrameAt = f.capturedAt;
        p.lastAnalysedAt = Date.now();
        p.waitingSince = null;
        p.skipReason = null;
        if (seq === p.latestImageSeq) p.latestImageUsable = true;
        if (p.stats.framesAnalysed === 1) {
          const o = p.analyzer.options;
          this.#log.info(`camera ${cameraId}: ${f.width * f.scale}x${f.height * f.scale} frames, ${describeFrameSizeOptions(o)}`);
        }
        if (p.stats.framesAnalysed % REACH_CHECK_FRAMES === 0) this.#checkReach(p);
        this.#checkView(p);
        // A change of frame size counted the start-up it cut short (CameraAnalyzer.resize): its frames are received
        // now, not held for the new start-up (a camera changing size again before each start-up ended held them all
        // until the daemon stopped, its stored minutes 0% uptime beside their counts, and lost them to a kill -9).
        if (p.analyzer.lastResize !== undefined && p.analyzer.lastResize.count !== p.resizesLogged) this.#storeHeldTicks(p);
        this.#received(p, f.capturedAt);
        p.recentFrames[p.recentCount++ % p.recentFrames.length] = f.capturedAt;
      } catch (err) {
        // A ROI past the frame's edge, say: named with the config file it is to be fixed in.
        const message = (inConfigFile(err, this.#opts.configFile) as Error).message;
        p.stats.analyzerErrors++;
        p.stats.lastError = message;
        p.skipReason = message;
        if (seq === p.latestImageSeq) p.latestImageUsable = false;
        if (p.stats.analyzerErrors === 1 || p.stats.analyzerErrors % 100 === 0) {
          this.#log.warn(`camera ${cameraId}: analyzer rejected frame ${f.seq}: ${message}`);
        }
      } finally {
        f.release();
        // Said once per change, also when the frame that showed it was refused (a ROI that no longer fits).
        const resize = p.analyzer.lastResize;
        if (resize && resize.count !== p.resizesLogged) {
          p.resizesLogged = resize.count;
          this.#log.warn(`camera ${cameraId}: ${resize.message}; ${describeFrameSizeOptions(p.analyzer.options)}`);
        }
      }
    }
  }

  /**
   * Whether the camera has sent no new image for its frozenAfterMs (and three poll intervals: a camera polled
   * every minute is not frozen after 30 s).
   */
  #isFrozen(p: CameraPipeline): boolean {
    return Date.now() - p.lastNewImageAt >= Math.max(p.camera.frozenAfterMs, 3 * p.camera.pollIntervalMs);
  }

  /**
   * Why no frame came back from the decoders, and the fix. Where remote decoders connect (zeromq over tcp://), how to
   * start one: with `decoders` 0 and the only remote decoder gone, "check the decoders" named neither what nor where.
   */
  #noDecoderMessage(): string {
    const command = this.#remoteDecoderCommand();
    const fix =
      command !== undefined
        ? `check the decoders: start one on a decoder host with ${command}${this.config.decoders === 0 ? ', or give the daemon local decoders (decoders 1 or more)' : ''}`
        : 'check the decoders (the log says when one exited or hung)';
    const lostAt = this.#remoteDecoderLostAt();
    const since = lostAt === undefined ? '' : `; ${noRemoteDecoderSince(lostAt)}`;
    return `no decoder returned its frames (the channel dropped ${this.#channel.stats().dropped}${since}); ${fix}`;
  }

  /** When the last remote decoder was lost, where none is connected now (an operator asks since when); else undefined. */
  #remoteDecoderLostAt(): number | undefined {
    const { remoteDecoders, remoteDecoderLostAt } = this.#channel.stats();
    return remoteDecoders === 0 && remoteDecoderLostAt != null ? remoteDecoderLostAt : undefined;
  }

  /** The command that starts a remote decoder for this daemon, where they connect (zeromq over tcp://). */
  #remoteDecoderCommand(): string | undefined {
    const { endpoint } = this.#channel.stats();
    const key = this.config.zeromqKeyFile !== '' ? ` --key-file (a copy of ${this.config.zeromqKeyFile})` : '';
    return endpoint === undefined ? undefined : `traffic-counter decoder --connect ${endpoint}${key}`;
  }

  /** A camera that answers but has had no frame analysed for a while, and why (`why`: the reason and its fix). */
  #starvedMessage(p: CameraPipeline, why: string): string {
    return `camera ${p.camera.id}: no frame analysed for ${Math.round((Date.now() - p.lastAnalysedAt) / 1000)} s although the camera answers: ${why}`;
  }

  #frozenMessage(p: CameraPipeline): string {
    const s = Math.round((Date.now() - p.lastNewImageAt) / 1000);
    // Stuck on a picture that was refused: the refusal is what the user must hear, with its fix.
    if (p.latestImageUsable === false && p.skipReason !== null) {
      return this.#starvedMessage(p, `it keeps sending one picture (for ${s} s), which cannot be analysed: ${p.skipReason}`);
    }
    return `camera ${p.camera.id}: no new image for ${s} s although it answers (the same image, or nothing new on the stream); nothing can be counted until it changes: check that the camera still updates its picture`;
  }

  /** Ends every camera's load window and says, once per change, whether the daemon cannot keep up with it or keeps up again. */
  #judgeLoad(): void {
    const now = Date.now();
    for (const p of this.#pipelines.values()) {
      const verdict = p.load.end(now);
      if (verdict === 'behind') this.#log.warn(behindMessage(p.camera.id, p.load.last!, this.config, this.#remoteDecoderCommand(), this.#remoteDecoderLostAt(), this.#channel.stats().remoteDecoders));
      else if (verdict === 'keeps up') this.#log.info(keepsUpMessage(p.camera.id, p.load.last!));
    }
  }

  /** Says when the camera's view moved away from the one its ROI was learnt on, once, and when it is back. */
  #checkView(p: CameraPipeline): void {
    const view = p.analyzer.viewState();
    // Not known (after a change of frame size, the view is learnt again): nothing to say either way.
    if (view === undefined) {
      p.movedWarned = false;
      return;
    }
    const moved = view.moved;
    if (moved === p.movedWarned) return;
    p.movedWarned = moved;
    if (moved) {
      this.#log.warn(viewMovedMessage(p.camera.id, view!));
      // The frames analysed since the move began (already stored as received) are marked too: their counts are
      // as unreliable as the ones to come. Frames repeated by an unchanged answer in that time are not.
      const since = view!.sinceMs ?? Infinity;
      for (let k = Math.max(0, p.recentCount - p.recentFrames.length); k < p.recentCount; k++) {
        const t = p.recentFrames[k % p.recentFrames.length]!;
        if (t >= since) this.#store.addFrameTicks(p.camera.id, t, { moved: 1 });
      }
    } else {
      this.#log.info(`camera ${p.camera.id}: the picture matches the view the ROI and lines were learnt on again`);
    }
  }

  /** Warns, once per line, where the ROI is too short around a line for the camera's frame rate. */
  #checkReach(p: CameraPipeline): void {
    if (p.analyzer.starting) return;
    for (const w of p.analyzer.lineReachWarnings()) {
      if (p.reachWarned.has(w.lineId)) continue;
      p.reachWarned.add(w.lineId);
      this.#log.warn(w.message);
    }
  }

  /** Stores a camera's crossing events and reports each, with its line's totals, to onEvent. */
  #record(p: CameraPipeline, events: readonly CrossingEvent[]): void {
    if (events.length === 0) return;
    this.#store.addEvents(events);
    const onEvent = this.#opts.onEvent;
    if (!onEvent) return;
    const totals = runningTotals(events, p.analyzer.counts());
    events.forEach((ev, i) => onEvent(ev, totals[i]!));
  }

  /** The database's side of the health: a daemon whose writes fail is not healthy, however its cameras are. */
  #storeHealth(): StoreHealth {
    const s = this.#store.stats();
    const warnings: { message: string }[] = [];
    if (s.failingSince !== null) {
      warnings.push({
        message:
          `database ${this.config.db}: writes have failed for ${Math.round((Date.now() - s.failingSince) / 1000)} s (${s.lastError}); ` +
          `${s.pendingEvents} crossings and ${s.pendingBuckets} buckets are kept in memory and retried every ${this.config.flushIntervalMs} ms: ` +
          `free disk space, make the file and its folder writable, or end the process holding a write lock on it; ` +
          (s.eventDetailsDropped > 0 ? `the counts are kept, but ${s.eventDetailsDropped} crossings' details (not their counts) were dropped` : 'nothing is lost while the daemon runs'),
      });
    }
    const gone = this.#store.closed ? null : this.#store.fileGone();
    if (gone !== null) warnings.push({ message: fileGoneMessage(gone) });
    const ok = warnings.length === 0;
    return { file: this.#store.file, ok, failingSince: s.failingSince, pendingEvents: s.pendingEvents, pendingBuckets: s.pendingBuckets, failedFlushes: s.failedFlushes, eventDetailsDropped: s.eventDetailsDropped, lastError: s.lastError, warnings };
  }

  /** Per-camera stats for logs and the HTTP health endpoint, with the channel's and the database's. */
  stats(): { channel: ChannelStats; cameras: CameraStats[]; store: StoreHealth } {
    return {
      channel: this.#channel.stats(),
      store: this.#storeHealth(),
      cameras: [...this.#pipelines.values()].map((p) => {
        const source = p.source.stats();
        const lineReach = p.analyzer.lineReach();
        const down = source.consecutiveFailures > 0;
        const frozen = !down && this.#isFrozen(p);
        const warnings: CameraStats['warnings'] = [];
        if (frozen) warnings.push({ message: this.#frozenMessage(p) });
        if (down) {
          // The source's own message names the camera, the URL and the fix.
          const retry = source.nextRetryMs !== undefined ? `, retrying in ${(source.nextRetryMs / 1000).toFixed(1)} s` : '';
          const what = source.lastError?.message ?? `camera ${p.camera.id}: no frame`;
          warnings.push({ message: `${what} (${source.consecutiveFailures} failed attempt(s) in a row${retry})` });
        }
        // Images come (the camera is neither down nor frozen) but none reaches the analyzer: every one refused by
        // the decoder or the source's limits, or no decoder to take them. Said with the latest reason. (A camera
        // whose picture changes seldom waits for no frame: its unchanged answers are not images to analyse.)
        const quietMs = Math.max(STARVED_MS, 5 * p.camera.pollIntervalMs);
        const now = Date.now();
        // A source refusal (e.g. an oversized MJPEG part) since the latest analysed frame.
        const refusal = source.lastError && source.lastError.at > p.lastAnalysedAt ? source.lastError : undefined;
        const waiting = p.waitingSince !== null && now - p.waitingSince > quietMs;
        // Frozen on a picture that was refused reads failing, its warning the refusal (see #frozenMessage).
        const stuckRefused = frozen && p.latestImageUsable === false && p.skipReason !== null;
        const failing = stuckRefused || (!down && !frozen && (waiting || (refusal !== undefined && now - p.lastAnalysedAt > quietMs)));
        if (failing && !stuckRefused) {
          const why = p.skipReason ?? refusal?.message ?? this.#noDecoderMessage();
          warnings.push({ message: this.#starvedMessage(p, why) });
        }
        if (p.load.behind && p.load.share(now) !== undefined) warnings.push({ message: behindMessage(p.camera.id, p.load.last!, this.config, this.#remoteDecoderCommand(), this.#remoteDecoderLostAt(), this.#channel.stats().remoteDecoders) });
        if (p.analyzer.lastResize?.misfit) warnings.push({ message: `camera ${p.camera.id}: ${p.analyzer.lastResize.message}` });
        const view = p.analyzer.viewState();
        if (view?.moved) warnings.push({ message: viewMovedMessage(p.camera.id, view) });
        if (!p.analyzer.starting) warnings.push(...p.analyzer.lineReachWarnings(lineReach));
        return {
          ...p.stats,
          source,
          counts: p.analyzer.counts(),
          lineReach,
          status: down ? 'down' : failing ? 'failing' : frozen ? 'frozen' : view?.moved ? 'moved' : p.analyzer.starting ? 'learning' : 'counting',
          warnings,
          scale: frameSizeOptions(p.analyzer.options),
          view: { roi: p.camera.roi, lines: p.camera.lines, ...(p.camera.drawnOn ? { drawnOn: p.camera.drawnOn } : {}) },
        };
      }),
    };
  }

  /** The latest image camera `cameraId` sent, as it sent it: undefined for no such camera, null before its first. */
  latestImage(cameraId: string): { readonly jpeg: Uint8Array; readonly capturedAt: number } | null | undefined {
    return this.#pipelines.get(cameraId)?.latestImage;
  }

  /** Flushes pending writes now (they are also flushed on a timer). */
  flush(): void {
    this.#store.flush();
  }

  /** What close() waits for now (see closeWaitingFor); undefined when it is not running. */
  #closeWait: { step: 'sources' | 'decoders' | 'analysis'; timeoutMs: number } | undefined;

  /** Stops polling, lets decoders finish, analyses what is in flight, flushes and closes the store. Idempotent. */
  close(timeoutMs = 5_000): Promise<void> {
    this.#closing ??= this.#close(timeoutMs);
    return this.#closing;
  }

  async #close(timeoutMs: number): Promise<void> {
    this.#abort.abort();
    clearInterval(this.#loadTimer);
    clearInterval(this.#fileTimer);
    this.#closeWait = { step: 'sources', timeoutMs };
    await Promise.allSettled([...this.#pipelines.values()].map((p) => p.source.close()));
    this.#closeWait = { step: 'decoders', timeoutMs };
    await this.#channel.close(timeoutMs);
    this.#closeWait = { step: 'analysis', timeoutMs };
    await Promise.allSettled(this.#loops);
    this.#storeWhatIsHeld();
    this.#closeWait = undefined;
  }

  /**
   * While close() runs: what it is waiting for, said to a user whose Ctrl-C seemed to do nothing (with a decoder
   * stopped or busy on a slow frame, the close waits up to its timeout for that frame, then for the decoders to exit:
   * about 8 s without a word), naming the decoders and the frames they hold. Undefined when not closing, or closed.
   */
  closeWaitingFor(): string | undefined {
    const wait = this.#closeWait;
    if (!wait) return undefined;
    if (wait.step === 'sources') return 'the cameras\' requests under way to end';
    if (wait.step === 'analysis') return 'the analyzer to finish the frames it holds';
    const n = this.#channel.stats().inFlight;
    if (n === 0) return 'the decoders to stop';
    // Which decoder holds which camera's frame, as the hung-decoder warnings name them (it said only "2 frame(s)").
    const held = this.#channel.framesAtDecoders().map((h) => `${h.decoder} holding ${frameName(h.frame.cameraId, h.frame.seq)} for ${(h.heldMs / 1000).toFixed(1)} s`);
    const queued = n - held.length;
    if (queued > 0) held.push(held.length === 0 ? `${queued} frame(s) waiting for a decoder` : `${queued} more frame(s) queued`);
    const what = held.length === 1 ? held[0] : `${held.slice(0, -1).join(', ')}, and ${held.at(-1)}`;
    return (
      `${what} (up to ${wait.timeoutMs / 1000} s: a decoder that does not answer, stopped or busy on a slow ` +
      'frame, is waited for that long), then the decoders to stop'
    );
  }

  /**
   * For a forced exit (a second Ctrl-C while closing): counts and stores at once what the analyzers hold, without
   * waiting for the frames still at the decoders or the analyzer's queue; the process is to exit right after.
   * Returns how many frames were in flight, not analysed.
   */
  closeNow(): number {
    this.#abort.abort();
    clearInterval(this.#loadTimer);
    clearInterval(this.#fileTimer);
    const notAnalysed = this.#channel.stats().inFlight;
    this.#storeWhatIsHeld();
    return notAnalysed;
  }

  /** Counts what the analyzers hold and closes the store (idempotent: a store closed stays closed). */
  #storeWhatIsHeld(): void {
    if (this.#store.closed) return;
    // What an analyzer has not counted yet is stored, not lost with it: the frames of a start-up still
    // buffering (ended early, as at a replay's end) and the crossings it holds (see CameraAnalyzer.flush).
    for (const [cameraId, p] of this.#pipelines) {
      try {
        // A frame whose steps were under way when closeNow() came (the frame that ends a start-up empties its
        // buffer in its first steps): its remaining steps first, or flush() finds nothing to count.
        const steps = p.stepping;
        p.stepping = null;
        try {
          if (steps) for (let r = steps.next(); !r.done; r = steps.next()) this.#record(p, r.value);
        } finally {
          // Also when those steps failed: what the analyzer holds besides is stored.
          this.#record(p, p.analyzer.flush());
          this.#storeHeldTicks(p);
        }
      } catch (err) {
        // One camera's analyzer failing here must not keep the store from closing with every other count.
        this.#log.warn(`camera ${cameraId}: its last frames could not be counted at shutdown: ${(err as Error).message}`);
      }
    }
    this.#store.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Each event's line totals as they stood just after it: `after` holds them after the whole batch (one analyzer
 * step can complete several crossings), so the later events of the batch are taken off.
 */
export function runningTotals(events: readonly CrossingEvent[], after: readonly { lineId: string; in: number; out: number }[]): { in: number; out: number }[] {
  const now = new Map(after.map((l) => [l.lineId, { in: l.in, out: l.out }]));
  const out: { in: number; out: number }[] = new Array(events.length);
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i]!;
    const t = now.get(ev.lineId) ?? { in: 0, out: 0 };
    out[i] = { ...t };
    t[ev.direction] = Math.max(0, t[ev.direction] - 1);
    now.set(ev.lineId, t);
  }
  return out;
}
