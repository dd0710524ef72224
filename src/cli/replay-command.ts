// `traffic-counter replay`: counts a directory of JPEG snapshots offline through the decode channel.

import { parseCliArgs, numberFlag, requireFlag, decodeScaleFlag, describeRule, CHANNEL_HINTS, FPS_RULE, type EmptyHints, type NumberRule } from './parse-cli-args.js';
import { inConfigFile, loadConfigFile } from '../config/validate-config.js';
import { applyOverrides } from '../config/apply-overrides.js';
import { replayDirectory } from '../replay/replay-directory.js';

const HELP = `Usage: traffic-counter replay --config FILE --frames DIR [--fps N] [--every K] [--json]

Counts a directory of JPEG snapshots (taken in file-name order) with the cameras' ROIs and lines. Prints each
crossing (seconds from the first frame, camera, line, direction, class), then the frames and each line's totals.

Options:
  --config FILE      camera config (JSON; "url" not needed)
  --frames DIR       folder of .jpg/.jpeg files, in name order (frame2 before frame10)
  --fps N            capture rate of the folder, frames per second (default 2); sets the timestamps
  --every K          use every K-th frame (K=2 on a 5 fps folder gives 2.5 fps) (default 1)
  --channel C        ipc (default), zeromq or shared
  --decoder D        jpeg-js (default), jpeg-turbo or sharp
  --decode-scale N   decode frames at 1/N: 1 (default), 2, 4 or 8; must divide analyzer.downscale where set
                     (unset, it is fitted to the frame size: 4 at 1280x720, a multiple of N)
  --json             print {"frames": N, "cameras": [{"id", "lines": [{"id", "in", "out"}]}]} on stdout
  -h, --help         this help
`;

export const REPLAY_FLAGS = {
  config: { type: 'string' },
  frames: { type: 'string' },
  fps: { type: 'string' },
  every: { type: 'string' },
  channel: { type: 'string' },
  decoder: { type: 'string' },
  'decode-scale': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const EVERY_RULE: NumberRule = { min: 1, integer: true };

/** What replay and eval say for an empty flag value (see EmptyHints). */
export const REPLAY_EMPTY_HINTS: EmptyHints<typeof REPLAY_FLAGS> = {
  config: 'the camera config file (JSON)',
  frames: 'the folder of .jpg/.jpeg snapshots',
  fps: `the folder's capture rate, ${describeRule(FPS_RULE)}, or leave --fps out for 2`,
  every: `${describeRule(EVERY_RULE)} (use every K-th frame), or leave --every out for 1`,
  ...CHANNEL_HINTS,
};

export async function replayCommand(argv: string[]): Promise<number> {
  const { values } = parseCliArgs('replay', argv, REPLAY_FLAGS, REPLAY_EMPTY_HINTS);
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const fps = numberFlag('fps', values.fps, 2, FPS_RULE);
  const every = numberFlag('every', values.every, 1, EVERY_RULE);
  const config = applyOverrides(loadConfigFile(requireFlag('replay', 'config', values.config), { requireUrl: false }), {
    channel: values.channel,
    decoder: values.decoder,
    decodeScale: decodeScaleFlag(values['decode-scale']),
  });
  const framesDir = requireFlag('replay', 'frames', values.frames);
  const result = await replayDirectory(config, {
    framesDir,
    fps,
    every,
    onEvent: (ev) => {
      // Seconds from the first file, as the truth's "t" for eval: frames have no clock time, and printed as one
      // (the first file at the epoch) every crossing read "1970-01-01T00:00:13.131Z".
      if (!values.json) process.stdout.write(`${(ev.timeMs / 1000).toFixed(3).padStart(9)} s  ${ev.cameraId}  ${ev.lineId}  ${ev.direction}  ${ev.vehicleClass}\n`);
    },
    onFrameSkipped: (msg) => process.stderr.write(`traffic-counter: ${msg}; frame skipped\n`),
    onNote: (msg) => process.stderr.write(`traffic-counter: note: ${msg}\n`),
  }).catch((err: unknown) => {
    // A camera's ROI past the edge of the frames, say: named with the config file it is to be fixed in.
    throw inConfigFile(err, values.config);
  });
  for (const c of result.cameras) for (const w of c.warnings) process.stderr.write(`traffic-counter: warning: ${w}\n`);
  if (values.json) {
    // Exactly this shape (README): the line reach goes to stderr as warnings, as in the text output.
    process.stdout.write(`${JSON.stringify({ frames: result.frames, cameras: result.cameras.map((c) => ({ id: c.id, lines: c.lines })) })}\n`);
  } else {
    process.stdout.write(`\n${result.frames} frames${result.decodeErrors ? `, ${result.decodeErrors} rejected` : ''}${result.unreadable ? `, ${result.unreadable} unreadable` : ''}\n`);
    for (const c of result.cameras) {
      for (const l of c.lines) process.stdout.write(`${c.id}  ${l.id}  in=${l.in}  out=${l.out}\n`);
    }
  }
  return 0;
}
