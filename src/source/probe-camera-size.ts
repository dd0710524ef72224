// Reads one frame from a camera URL to learn its image size and kind (used when no config gives an ROI).

import { validateConfig } from '../config/validate-config.js';
import { inspectJpeg } from '../decode/jpeg-header.js';
import { SourceError } from '../errors.js';
import { hideUrlPassword } from './camera-url.js';
import { createSource } from './create-source.js';
import { kindToSet } from './request-errors.js';

type Kind = 'snapshot' | 'mjpeg';

/** Answers that waiting will not change (a certificate not accepted, a password refused, a wrong path, a redirect that cannot be followed): told at once. */
function isFinal(err: SourceError): boolean {
  const s = err.status;
  // 3xx: a redirect that could not be followed (none, or a loop); redirects that can be are.
  return err.code === 'TC_ERR_SOURCE_TLS' || s === 401 || s === 403 || s === 404 || (s !== undefined && s >= 300 && s < 400);
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
): Promise<{ width: number; height: number; kind: Kind }> {
  const deadline = Date.now() + timeoutMs;
  let kind: Kind | undefined;
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const camera = validateConfig({
      cameras: [{ id: 'probe', url, ...tls, ...(kind ? { kind } : {}), roi: [[0, 0], [16, 0], [16, 16], [0, 16]], lines: [{ id: 'l', from: [0, 8], to: [16, 8] }] }],
    }).cameras[0]!;
    kind = camera.kind;
    let other: Kind | undefined;
    let final: SourceError | undefined;
    // One controller, aborted by our own timer or a wrong kind: an AbortSignal.timeout inside AbortSignal.any
    // was garbage-collected before it fired, and the probe then waited forever.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), Math.max(1, deadline - Date.now()));
    const source = createSource(camera, {
      onError: (err) => {
        lastError = err;
        const told = kindToSet(err);
        if (told && told !== kind) {
          other = told;
          stop.abort();
        } else if (isFinal(err)) {
          final = err;
          stop.abort();
        }
      },
    });
    try {
      for await (const frame of source.frames(stop.signal)) {
        return { ...inspectJpeg(frame.jpeg, `--camera ${hideUrlPassword(url)}`), kind };
      }
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
  throw new SourceError(code, `--camera ${hideUrlPassword(url)}: no frame within ${timeoutMs / 1000} s${lastError ? ` (${lastError.message})` : ''}; check the URL and that the camera is reachable`);
}
