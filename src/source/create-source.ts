// Builds the live frame source a camera's configuration asks for: snapshot polling or an MJPEG stream.

import type { CameraConfig } from '../config/config-types.js';
import { ConfigError } from '../errors.js';
import type { FrameSource, SlotEvents, SourceEvents } from './frame-source.js';
import { HttpSnapshotSource } from './http-snapshot-source.js';
import { MjpegStreamSource } from './mjpeg-stream-source.js';

/**
 * `startDelayMs`: a snapshot camera's first poll is due this long after it starts (the daemon spreads its cameras'
 * polls over the poll interval with it); an MJPEG stream is connected at once (the camera sets its pace).
 */
export function createSource(camera: CameraConfig, events: SourceEvents & SlotEvents = {}, opts: { readonly startDelayMs?: number } = {}): FrameSource {
  if (!camera.url) {
    throw new ConfigError(`camera ${camera.id}: url is required to capture live frames; set cameras[].url to the snapshot or MJPEG URL`);
  }
  const common = {
    cameraId: camera.id,
    url: camera.url,
    pollIntervalMs: camera.pollIntervalMs,
    timeoutMs: camera.timeoutMs,
    maxBodyBytes: camera.maxBodyBytes,
    backoffInitialMs: camera.backoffInitialMs,
    backoffMaxMs: camera.backoffMaxMs,
    onError: events.onError,
    onRecover: events.onRecover,
    onSlot: events.onSlot,
    onSlotCancelled: events.onSlotCancelled,
    onUnchanged: events.onUnchanged,
    tls: { fingerprint256: camera.tlsFingerprint, insecure: camera.tlsInsecure },
  };
  switch (camera.kind) {
    case 'snapshot':
      return new HttpSnapshotSource({ ...common, startDelayMs: opts.startDelayMs });
    case 'mjpeg':
      return new MjpegStreamSource(common);
    default:
      throw new ConfigError(`camera ${camera.id}: kind must be "snapshot" or "mjpeg", got ${JSON.stringify(camera.kind)}`);
  }
}
