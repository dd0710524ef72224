// `traffic-counter eval`: counts a directory of snapshots and compares with hand-counted truth per line and direction.

import { parseCliArgs, numberFlag, requireFlag, decodeScaleFlag, FPS_RULE } from './parse-cli-args.js';
import { EVERY_RULE, REPLAY_EMPTY_HINTS, REPLAY_FLAGS } from './replay-command.js';
import { inConfigFile, loadConfigFile } from '../config/validate-config.js';
import { applyOverrides } from '../config/apply-overrides.js';
import { replayDirectory } from '../replay/replay-directory.js';
import { checkTruthLines, evaluateCounts, evaluateCrossings, formatCrossingTable, formatEvalTable, readTruthJson, truthEvents, validateTruth } from '../eval/evaluate-counts.js';
import { matchWindowSec } from '../eval/match-crossings.js';
import type { CrossingEvent } from '../analyze/analyzer-types.js';
import { SourceError, UsageError } from '../errors.js';
import { describeFrameSizeOptions } from '../analyze/analyzer-options.js';

const HELP = `Usage: traffic-counter eval --config FILE --frames DIR --truth FILE [--fps N] [--every K] [--json]

Counts the folder like 'replay' and reports, per line and direction, the automatic count, the true count,
the error and the % error, and the overall weighted absolute % error (sum |error| / sum truth). When the
truth file lists its crossings under "events" ([{"t": s from the first frame, "line": id, "direction":
"in"|"out"}, ...]), each counted crossing is also paired with a true one of its line and direction within
1.2 / (fps / every) + 0.5 s: paired, missed and extra per line and direction, precision and recall.

Options:
  --config FILE      camera config (JSON; one camera)
  --frames DIR       folder of .jpg/.jpeg files, in name order
  --truth FILE       {"lines": {"<lineId>": {"in": N, "out": N}}, "events": [...] (optional)} (extra fields allowed)
  --fps N            capture rate of the folder (default 2)
  --every K          use every K-th frame (default 1)
  --channel C        ipc (default), zeromq or shared
  --decoder D        jpeg-js (default), jpeg-turbo or sharp
  --decode-scale N   decode frames at 1/N: 1 (default), 2, 4 or 8; must divide analyzer.downscale where set
                     (unset, it is fitted to the frame size: 4 at 1280x720, a multiple of N)
  --json             print the report as JSON
  -h, --help         this help
`;

export async function evalCommand(argv: string[]): Promise<number> {
  const { values } = parseCliArgs('eval', argv, { ...REPLAY_FLAGS, truth: { type: 'string' } }, { ...REPLAY_EMPTY_HINTS, truth: 'the truth file (JSON, see --help)' });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const fps = numberFlag('fps', values.fps, 2, FPS_RULE);
  const every = numberFlag('every', values.every, 1, EVERY_RULE);
  const config = applyOverrides(loadConfigFile(requireFlag('eval', 'config', values.config), { requireUrl: false }), {
    channel: values.channel,
    decoder: values.decoder,
    decodeScale: decodeScaleFlag(values['decode-scale']),
  });
  if (config.cameras.length !== 1) {
    throw new UsageError(`eval: --config ${values.config} has ${config.cameras.length} cameras; eval compares one camera's lines with the truth file, so give a config with one camera`);
  }
  const truthPath = requireFlag('eval', 'truth', values.truth);
  // Every message about the truth file begins alike, as the config's do.
  const truthSource = `--truth ${truthPath}`;
  const rawTruth = readTruthJson(truthPath, truthSource);
  const truth = validateTruth(rawTruth, truthSource);
  const lineIds = config.cameras[0]!.lines.map((l) => l.id);
  checkTruthLines(truth, lineIds, truthSource, `--config ${values.config}`);
  const events = truthEvents(truth, rawTruth, truthSource, lineIds, (m) => process.stderr.write(`traffic-counter: warning: ${m}\n`));
  const counted: CrossingEvent[] = [];
  const result = await replayDirectory(config, {
    framesDir: requireFlag('eval', 'frames', values.frames),
    fps,
    every,
    onEvent: (e) => counted.push(e),
    onFrameSkipped: (msg) => process.stderr.write(`traffic-counter: ${msg}; frame skipped\n`),
    onNote: (msg) => process.stderr.write(`traffic-counter: note: ${msg}\n`),
  }).catch((err: unknown) => {
    // A camera's ROI past the edge of the frames, say: named with the config file it is to be fixed in.
    throw inConfigFile(err, values.config);
  });
  const skipped = `${result.decodeErrors ? `, ${result.decodeErrors} rejected` : ''}${result.unreadable ? `, ${result.unreadable} unreadable` : ''}`;
  // Every frame refused (too large for maxMegapixels, not JPEGs): a score of counts never made says nothing.
  if (result.frames === 0) {
    throw new SourceError('TC_ERR_SOURCE_DIR', `eval: no frame of --frames ${values.frames} could be analysed (0 frames${skipped}; see the messages above), so there is nothing to score; fix or replace the frames, or the config key those messages name`);
  }
  if (events) {
    // Times in ms or in frame numbers pair with nothing: every crossing missed and every count extra, unexplained.
    const window = matchWindowSec(fps / every);
    const lastSec = ((result.frames + result.decodeErrors + result.unreadable) * every - 1) / fps;
    const outside = events.map((e, i) => [e.t, i] as const).filter(([t]) => t < -window || t > lastSec + window);
    if (outside.length > 0) {
      const [t, i] = outside[0]!;
      process.stderr.write(
        `traffic-counter: warning: ${truthSource}: ${outside.length} of the ${events.length} events are timed outside the frames (0 to ${lastSec.toFixed(1)} s at --fps ${fps}), ` +
          `the first events[${i}] at ${t} s, and can pair with no count; "t" is seconds from the first frame (not milliseconds or a frame number), and --fps the rate the frames were taken at\n`,
      );
    }
  }
  const report = evaluateCounts({ lines: result.cameras[0]!.lines }, truth);
  // Frame k (from 0) is at k / fps s, as the truth's event times are (see DirectorySource).
  const crossings = events
    ? evaluateCrossings(events, counted.map((e) => ({ lineId: e.lineId, direction: e.direction, t: e.timeMs / 1000 })), matchWindowSec(fps / every), lineIds)
    : undefined;
  const cam = result.cameras[0]!;
  for (const w of cam.warnings) process.stderr.write(`traffic-counter: warning: ${w}\n`);
  if (values.json) process.stdout.write(`${JSON.stringify({ frames: result.frames, ...report, ...(crossings ? { crossings } : {}), lineReach: cam.lineReach, scale: cam.scale })}\n`);
  else {
    process.stdout.write(`${formatEvalTable(report)}\n${crossings ? `\n${formatCrossingTable(crossings)}\n` : ''}${result.frames} frames${skipped}, ${describeFrameSizeOptions(cam.scale)}\n`);
  }
  return 0;
}
