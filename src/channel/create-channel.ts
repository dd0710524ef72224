// Picks the FrameChannel implementation named by --channel / the config ("ipc", "zeromq" or "shared").

import type { DecoderName } from '../decode/decoder-name.js';
import { ConfigError } from '../errors.js';
import type { Config } from '../config/config-types.js';
import type { FrameChannel } from './frame-channel.js';
import type { JpegFrame } from './messages.js';
import type { DecodeScale } from '../decode/decode-scale.js';
import { IpcChannel } from './ipc-channel.js';
import { SharedMemoryChannel } from './shared-memory-channel.js';
import { ZeromqChannel } from './zeromq-channel.js';

export type ChannelName = 'ipc' | 'zeromq' | 'shared';

export interface CreateChannelOptions {
  /** Frames in flight before one is dropped (see InFlightQueue); at least 2 per decoder are kept. */
  readonly maxInFlight: number;
  /** Decoder processes (ipc, zeromq local) or threads (shared). */
  readonly decoders: number;
  readonly decoder: DecoderName;
  /** Decode at 1/decodeScale (default 1). */
  readonly decodeScale?: DecodeScale;
  /** ipc only: 'advanced' (default) or 'json'. */
  readonly ipcSerialization?: 'advanced' | 'json';
  /** zeromq only: '' = private ipc:// socket; ipc:///path or tcp://HOST:PORT. */
  readonly zeromqEndpoint?: string;
  /** zeromq only: the key file ('' = none; see zeromq-key.ts). */
  readonly zeromqKeyFile?: string;
  /** shared only: largest frame a shared-memory slot holds (default 1920x1080). */
  readonly sharedMaxFrameWidth?: number;
  readonly sharedMaxFrameHeight?: number;
  /** A decoder holding one frame this long is hung and replaced (ms; each channel's default: 10 s). */
  readonly decodeTimeoutMs?: number;
  /** Told of each frame dropped (see FrameChannelOptions.onDropped). */
  readonly onDropped?: (frame: JpegFrame) => void;
  /** zeromq only: told of remote decoders joining and leaving (see ZeromqChannelOptions.onInfo). */
  readonly onInfo?: (message: string) => void;
}

export function createChannel(name: ChannelName, opts: CreateChannelOptions): FrameChannel {
  // At least two frames per local decoder, one at it and one waiting: with fewer, decoders sit idle at times while
  // frames are dropped, and the frame that comes first to an idle decoder gets it, so the cameras polled first
  // take every decode (8 cameras, 4 decoders decoding half of their frames, 6 in flight: 800 800 267 … 266 of
  // 800 rounds; 8 in flight: 396–404 each; see InFlightQueue).
  const maxInFlight = Math.max(opts.maxInFlight, 2 * opts.decoders);
  const base = { maxInFlight, decoders: opts.decoders, decoder: opts.decoder, decodeScale: opts.decodeScale, onDropped: opts.onDropped };
  switch (name) {
    case 'ipc':
      return new IpcChannel({ ...base, serialization: opts.ipcSerialization, decodeTimeoutMs: opts.decodeTimeoutMs });
    case 'zeromq':
      return new ZeromqChannel({ ...base, endpoint: opts.zeromqEndpoint, keyFile: opts.zeromqKeyFile, decodeTimeoutMs: opts.decodeTimeoutMs, onInfo: opts.onInfo });
    case 'shared':
      return new SharedMemoryChannel({ ...base, maxFrameWidth: opts.sharedMaxFrameWidth, maxFrameHeight: opts.sharedMaxFrameHeight, decodeTimeoutMs: opts.decodeTimeoutMs });
    default:
      throw new ConfigError(`channel: must be "ipc", "zeromq" or "shared", got "${String(name)}"`);
  }
}

/** The channel a validated config asks for (the daemon and offline replay use the same one). */
export function createChannelFor(config: Config, onDropped?: (frame: JpegFrame) => void, onInfo?: (message: string) => void): FrameChannel {
  return createChannel(config.channel, {
    onDropped,
    onInfo,
    maxInFlight: config.maxFramesInFlight,
    decoders: config.decoders,
    decoder: config.decoder,
    decodeScale: config.decodeScale,
    ipcSerialization: config.ipcSerialization,
    zeromqEndpoint: config.zeromqEndpoint,
    zeromqKeyFile: config.zeromqKeyFile,
    decodeTimeoutMs: config.decodeTimeoutMs,
  });
}
