// Defaults for every configuration key, with units. Config files only need to say what differs.

import type { DecodeScale } from '../decode/decode-scale.js';
import type { DecoderName } from '../decode/decoder-name.js';

export const CAMERA_DEFAULTS = {
  pollIntervalMs: 500, // snapshot refresh period; also the nominal frame interval used for uptime
  timeoutMs: 5_000, // per HTTP request (headers and body); a stalled camera is abandoned after this
  maxBodyBytes: 8 * 1024 * 1024, // largest JPEG accepted from a camera (bytes)
  backoffInitialMs: 1_000, // first retry delay after a failed request
  backoffMaxMs: 60_000, // cap for the exponential backoff
  maxMegapixels: 4, // decoder refuses images larger than this (a 1280x720 frame is 0.92 MP)
  maxDecodeMemoryMB: 64, // decoder memory limit per frame (jpeg-js maxMemoryUsageInMB); unset, at least enough for maxMegapixels (decodeMemoryFor)
  frozenAfterMs: 30_000, // a camera that answers but sends no new image for this long is reported frozen
} as const;

/**
 * jpeg-js's working memory for a frame of `megapixels`, in MB: 21.2–21.7 MB per megapixel measured from 1280x720 to
 * 3840x2160 (4:4:4, the most it needs), rounded up. The default maxDecodeMemoryMB is at least this for the camera's
 * maxMegapixels, so that a frame the megapixel limit lets in is not refused for memory (at 64 MB, a 2560x1440 frame,
 * 3.7 MP, was: it needs 78 MB).
 */
export function decodeMemoryFor(megapixels: number): number {
  return Math.ceil(22 * megapixels);
}

export const DAEMON_DEFAULTS = {
  db: './data/counts.db', // SQLite file (created with its folder)
  channel: 'ipc' as 'ipc' | 'zeromq' | 'shared', // how decoded frames reach the analyzer
  ipcSerialization: 'advanced' as 'advanced' | 'json', // only for channel "ipc"
  zeromqEndpoint: '', // only for channel "zeromq"; empty = a private ipc:// socket in the temp dir
  zeromqKeyFile: '', // only for channel "zeromq": key file shared with the decoders (CURVE); needed for a non-loopback tcp:// endpoint
  decoder: 'jpeg-js' as DecoderName, // JPEG decoder used by the decoder workers
  decoders: 1, // number of decoder processes/threads
  decodeScale: 1 as DecodeScale, // decode at 1/decodeScale (full-resolution px per decoded px); 1 = full size
  maxFramesInFlight: 4, // frames decoded or decoding but not yet analysed; beyond it one is dropped, fairly across cameras
  decodeTimeoutMs: 10_000, // a decoder holding one frame this long is taken for hung: its frame dropped, the decoder replaced
  flushIntervalMs: 1_000, // store writes are batched and committed at least this often
  httpHost: '127.0.0.1', // HTTP API bind address
  httpPort: 0, // HTTP API port; 0 = do not serve HTTP unless --http is given
  httpAllowedHosts: [] as readonly string[], // host names the HTTP API answers to besides IP addresses, localhost and httpHost
  eventRetentionDays: 0, // crossing details (the events table) older than this many days are deleted; 0 = keep all. Counts are kept
} as const;
