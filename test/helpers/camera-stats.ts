// A camera's live figures as the daemon reports them (CameraStats), for tests of what the HTTP API makes of them.
import type { CameraStats } from '../../dist/src/daemon.js';

export function cameraStats(over: Partial<CameraStats> & { id: string }): CameraStats {
  return {
    framesAnalysed: 0,
    decodeErrors: 0,
    decodeErrorsByCode: {},
    dropped: 0,
    analyzerErrors: 0,
    lastFrameAt: null,
    lastError: null,
    source: { requests: 0, frames: 0, notModified: 0, identicalSkipped: 0, dropped: 0, errors: 0, errorsByCode: {}, consecutiveFailures: 0, bytes: 0 },
    counts: [],
    lineReach: [],
    status: 'counting',
    warnings: [],
    scale: { downscale: 4, minAreaPx: 80, lineMinMarginPx: 4 },
    view: { roi: [], lines: [] },
    ...over,
  };
}
