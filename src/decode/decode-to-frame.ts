// One decode job as every decoder process/thread runs it: decode the JPEG at the requested scale and build
// the frame header, or turn the failure into the decode-error report the channels deliver.

import { TrafficCounterError } from '../errors.js';
import type { DecodeFailure, DecodeRequest, FrameHeader } from '../channel/messages.js';
import type { JpegDecoder } from './decode-jpeg.js';

export type DecodeOutcome =
  | { readonly type: 'frame'; readonly header: FrameHeader; readonly pixels: Uint8Array }
  | { readonly type: 'decode-error'; readonly failure: DecodeFailure };

/** How decode messages name the frame they are about; replay swaps it for the frame's file. */
export function frameName(cameraId: string, seq: number): string {
  return `camera ${cameraId} frame ${seq}`;
}

/** Never throws: a decoder's error becomes a DecodeFailure with its code (TC_ERR_DECODE_CORRUPT if it has none). */
export async function decodeToFrame(req: DecodeRequest, jpeg: Uint8Array, decode: JpegDecoder, into?: Uint8Array): Promise<DecodeOutcome> {
  const what = frameName(req.cameraId, req.seq);
  const t0 = performance.now();
  try {
    const img = await decode(jpeg, req.limits, { what, scale: req.scale, into });
    const header: FrameHeader = {
      type: 'frame',
      cameraId: req.cameraId,
      seq: req.seq,
      capturedAt: req.capturedAt,
      width: img.width,
      height: img.height,
      scale: img.scale,
      decodeMs: performance.now() - t0,
    };
    return { type: 'frame', header, pixels: img.data };
  } catch (err) {
    return { type: 'decode-error', failure: decodeFailure(req, err) };
  }
}

/** The report for a job that failed: the error's code if it has one, else TC_ERR_DECODE_CORRUPT. */
export function decodeFailure(req: DecodeRequest, err: unknown): DecodeFailure {
  const code = err instanceof TrafficCounterError ? err.code : 'TC_ERR_DECODE_CORRUPT';
  const message = err instanceof Error ? err.message : String(err);
  return { type: 'decode-error', cameraId: req.cameraId, seq: req.seq, capturedAt: req.capturedAt, code, message };
}
