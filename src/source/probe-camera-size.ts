// Reads one frame from a camera URL to learn its image size and kind (used when no config gives an ROI).

import { STAND_IN_VIEW, validateConfig } from '../config/validate-config.js';
import { inspectJpeg } from '../decode/jpeg-header.js';
import { DecodeError, SourceError } from '../errors.js';
import { hideUrlPassword } from './camera-url.js';
import { createSource } from './create-source.js';
import { isNotAnImage, kindToSet } from './request-errors.js';

type Kind = 'snapshot' | 'mjpeg';

/**
 * Answers that waiting will not change (a certificate not accepted, a password refused, a wrong path, a redirect
 * that cannot be followed): told at once.
 */
function isFinal(err: SourceError): boolean {
  const s = err.status;
  // 3xx: a redirect that could not be followed (none, or a loop); redirects that can be are.
  return err.code === 'TC_ERR_SOURCE_TLS' || s === 401 || s === 403 || s === 404 || (s !== undefined && s >= 300 && s < 400);
}

/**
 * Answers in a row that are not an image (a 2xx HTML login page, a JSON or XML answer) after which the probe stops,
 * with that answer's message: about 2 s at the default back-off (1 s, then 2 s, with jitter). A URL that serves a
 * web page does so every time, and asking until the probe's 15 s were up only put "check that the camera is
 * reachable" behind this advice. The first answer alone is not final: a camera starting up can serve a 200
 * "starting" page for a second or two before its pictures (helper 48: a camera doing so was refused at once).
 * The daemon, counting a saved config, keeps asking, as after any failed poll.
 */
const NOT_IMAGE_ANSWERS = 3;

/** A stream's frames read to measure its interval (after the first), for at most this long. */
const STREAM_FRAMES = 5;
const STREAM_MEASURE_MS = 3_000;

/** The median interval between frames' arrivals, to 10 ms (at least 10: pollIntervalMs's floor); none from one frame. */
function frameInterval(at: readonly number[]): { frameIntervalMs?: number } {
  const gaps = at.slice(1).map((t, i) => t - at[i]!).sort((a, b) => a - b);
  if (gaps.length === 0) return {};
  return { frameIntervalMs: Math.max(10, Math.round(gaps[gaps.length >> 1]! / 10) * 10) };
}

/**
 * The first frame's size, and the kind of source that gave it: the one guessed from the URL, or the other one
 * when the camera's first answer shows the guess wrong (an MJPEG stream at a snapshot-looking URL, or the
 * reverse; the sources say so, naming the kind to set).
 */
export async function probeCameraSize(
  url: string,
  timeoutMs = 15_000,
  tls: { readonly tlsFingerprint?: string; readonly tlsInsecure?: boolean } = {},
): Promise<{ width: number; height: number; kind: Kind; frameIntervalMs?: number }> {
  const deadline = Date.now() + timeoutMs;
  let kind: Kind | undefined;
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const camera = validateConfig({
      cameras: [{ id: 'probe', url, ...tls, ...(kind ? { kind } : {}), ...STAND_IN_VIEW }],
    }).cameras[0]!;
    kind = camera.kind;
    let other: Kind | undefined;
    let final: Error | undefined;
    let notImage = 0;
    // Answers in a row that are not a JPEG (a login page labelled image/jpeg), and the latest one's error.
    let broken = 0;
    let brokenErr: DecodeError | undefined;
    // One controller, aborted by our own timer or a wrong kind: an AbortSignal.timeout inside AbortSignal.any
    // was garbage-collected before it fired, and the probe then waited forever.
    const stop = new AbortController();
    let timer = setTimeout(() => stop.abort(), Math.max(1, deadline - Date.now()));
    const source = createSource(camera, {
      onError: (err) => {
        lastError = err;
        const told = kindToSet(err);
        if (told && told !== kind) {
          other = told;
          stop.abort();
          return;
        }
        notImage = isNotAnImage(err) ? notImage + 1 : 0;
        if (isFinal(err) || notImage >= NOT_IMAGE_ANSWERS) {
          final = err;
          stop.abort();
        }
      },
      // The same bytes again (a login page labelled image/jpeg is the same page each time) are not handed on as a
      // frame: they are that broken answer again. Before, they went uncounted and the probe waited its 15 s.
      onUnchanged: () => {
        if (brokenErr !== undefined && ++broken >= NOT_IMAGE_ANSWERS) {
          final = brokenErr;
          stop.abort();
        }
      },
    });
    try {
      let size: { width: number; height: number } | undefined;
      const at: number[] = [];
      try {
        for await (const frame of source.frames(stop.signal)) {
          if (!size) {
            try {
              size = inspectJpeg(frame.jpeg, `--camera ${hideUrlPassword(url)}`, url);
            } catch (err) {
              // One frame cut short (a download interrupted) is not the camera: the next is asked for, as the daemon
              // would; NOT_IMAGE_ANSWERS in a row are the camera's. Before, one ended `run --camera` at once.
              if (!(err instanceof DecodeError) || ++broken >= NOT_IMAGE_ANSWERS) throw err;
              lastError = err;
              brokenErr = err;
              continue;
            }
          }
          brokenErr = undefined;
          at.push(Date.now());
          // A stream's frame interval is what its pollIntervalMs must be (the slots its uptime counts): measured
          // over a few more frames, for at most STREAM_MEASURE_MS. The config printed without it counted a 5-fps
          // stream's uptime against the default 500 ms (helper 27).
          if (kind === 'snapshot' || at.length > STREAM_FRAMES) break;
          if (at.length === 1) {
            clearTimeout(timer);
            timer = setTimeout(() => stop.abort(), STREAM_MEASURE_MS);
          }
        }
      } catch (err) {
        // Stopped by the measuring's own time limit: what was measured stands.
        if (!size) throw err;
      }
      if (size) return { ...size, kind, ...(kind === 'mjpeg' ? frameInterval(at) : {}) };
    } finally {
      clearTimeout(timer);
      await source.close();
    }
    if (final) throw final;
    if (!other) break;
    kind = other;
  }
  // The code of the last thing that went wrong (an HTTP status, a refused connection), or a timeout when nothing did.
  const code = lastError instanceof SourceError ? (lastError.code as ConstructorParameters<typeof SourceError>[0]) : 'TC_ERR_SOURCE_TIMEOUT';
  // The last error names its own fix: said once, not followed by a second piece of advice (helper 46).
  const why = lastError ? `, the last attempt: ${lastError.message}` : '; check the URL and that the camera is reachable';
  throw new SourceError(code, `--camera ${hideUrlPassword(url)}: no frame within ${timeoutMs / 1000} s${why}`);
}
