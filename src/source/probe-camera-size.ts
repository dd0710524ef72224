// Reads one frame from a camera URL to learn its image size (used when no config gives an ROI).

import { validateConfig } from '../config/validate-config.js';
import { inspectJpeg } from '../decode/jpeg-header.js';
import { SourceError } from '../errors.js';
import { createSource } from './create-source.js';

export async function probeCameraSize(url: string, timeoutMs = 15_000): Promise<{ width: number; height: number }> {
  const camera = validateConfig({ cameras: [{ id: 'probe', url, roi: [[0, 0], [16, 0], [16, 16], [0, 16]], lines: [{ id: 'l', from: [0, 8], to: [16, 8] }] }] }).cameras[0]!;
  let lastError: Error | undefined;
  const source = createSource(camera, { onError: (err) => (lastError = err) });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    for await (const frame of source.frames(signal)) {
      return inspectJpeg(frame.jpeg, `--camera ${url}`);
    }
  } finally {
    await source.close();
  }
  throw new SourceError('TC_ERR_SOURCE_NETWORK', `--camera ${url}: no frame within ${timeoutMs / 1000} s${lastError ? ` (${lastError.message})` : ''}; check the URL and that the camera is reachable`);
}
