// FrameChannel over ZeroMQ: the analyzer binds one ROUTER (ipc:// by default, or tcp://); local decoder
// children and remote `traffic-counter decoder` processes connect DEALERs, take JPEG jobs, send frames back.
//
// Topology and flow control: a decoder's every message ('ready', a frame, a decode error) means "idle";
// the analyzer sends a job only to an idle decoder, so each holds at most one JPEG and one frame is in
// the pipe per decoder. Frames come back over the same connection as multipart [header, pixels]
// (zero-copy on both ends), so a remote decoder needs one port and no work waits at a slow or dead peer.

import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Context, Router, type EventOfType } from 'zeromq';
import { ChannelError, ConfigError } from '../errors.js';
import { ZMQ_SOCKET_DEFAULTS } from '../decode/zeromq-decoder.js';
import { createDecoder, overMegapixels } from '../decode/decode-jpeg.js';
import { isDecodeScale } from '../decode/decode-scale.js';
import { asBuffer } from '../decode/ipc-bytes.js';
import { DECODER_NICE } from '../decode/decoder-priority.js';
import { stripUndefined, type ChannelStats, type FrameAtDecoder, type FrameChannel, type FrameChannelOptions } from './frame-channel.js';
import { InFlightQueue, decodeRequest, type InFlightEntry } from './in-flight-queue.js';
import { heldFrameNote, Watchdog, WATCHDOG_MS } from './watchdog.js';
import { frameName } from '../decode/decode-to-frame.js';
import { killWithParent, restartDelayMs, stopChild } from './decoder-process.js';
import type { ChannelOutput, DecodeLimits, FrameHeader, JpegFrame, ZmqDecodeJob, ZmqFromDecoder } from './messages.js';
import { readZeromqKeyFile, requireKeyForEndpoint, type ZeromqKey } from './zeromq-key.js';
import { ZapHandler } from './zeromq-zap.js';
import { RefusalLog } from './zeromq-refusals.js';
import { privateIpcFile, refuseTakenIpcPath, removeStaleIpcFiles } from './ipc-socket-file.js';

const CHILD_FILE = fileURLToPath(new URL('../decode/zeromq-decoder-child.js', import.meta.url));
/**
 * Frames in flight grow to two per decoder that has answered a job (remote ones included: a site adds decoder
 * hosts without touching maxFramesInFlight), up to this many; decoded frames waiting for the analyzer are 3.7 MB
 * each at 1280x720 and 8.3 MB at 1920x1080, so 64 hold at most 240 or 530 MB. A maxInFlight set above it is kept.
 * A peer that only says 'ready' and never answers (broken or hostile) does not count.
 */
export const ZEROMQ_MAX_GROWN_IN_FLIGHT = 64;
/** An idle decoder announces 'ready' every second; one silent this long is gone (killed, or its host down). */
const IDLE_PEER_SILENCE_MS = 5_000;
/** Remote decoders remembered as forgotten (for "is back"); past this many the oldest is dropped. */
const MAX_FORGOTTEN_KEYS = 256;
/**
 * A remote decoder that has not returned a frame yet is on trial: its job's frame holds back later frames that are
 * done for this long at most, then is dropped (the decoder still proves itself if it answers in time), and the next
 * trial may start. A peer that never answers (broken or hostile) would otherwise hold back every frame for
 * decodeTimeoutMs; a slow new host loses at most its first frame.
 */
const TRIAL_GRACE_MS = 100;
/** Trial jobs out at once, at most (one of them with its frame still waited for). */
const TRIALS_OUT_MAX = 4;
/**
 * A remote peer that failed (no answer in time, a frame refused, a reply to another job, gone while holding a job) is
 * not tried again for this long, doubling with each failure, while a proven decoder is there to do the work; a
 * failure this long after the last wait ended starts counting again.
 */
const TRIAL_RETRY_MS = 30_000;
const TRIAL_RETRY_MAX_MS = 600_000;
const MESSAGE_TYPES = new Set<unknown>(['ready', 'bye', 'frame', 'decode-error']);
/**
 * A frame at a decoder this many times the time that decoder usually takes for a JPEG of its size (see
 * Peer.msPerKB), and at least HEDGE_MIN_MS, is sent to an idle decoder that has answered before as well, when no frame
 * waits for one; the first answer counts. A decoder stopped, hung or cut off (its connection gone without a word) then
 * holds back the frames behind its own for that long instead of decodeTimeoutMs (10 s), while a decoder that is
 * always slower, or a camera whose frames are always big, is judged by its own usual time and not sent again.
 */
const HEDGE_FACTOR = 5;
const HEDGE_MIN_MS = 300;

/** A frame's JPEG in KB, at least 1: what a decoder's time per KB is measured and judged by (a tiny JPEG costs the fixed part). */
function jpegKB(frame: JpegFrame): number {
  return Math.max(1, frame.jpeg.byteLength / 1024);
}
/** Failed peers remembered, at most (the oldest is forgotten first). */
const FAILURES_KEPT = 1_024;

export interface ZeromqChannelOptions extends FrameChannelOptions {
  /**
   * Where the analyzer binds: '' (default) = a private ipc:// socket in the temp dir; ipc:///path;
   * tcp://HOST:PORT (PORT 0 = any free port; bind 0.0.0.0 to let remote decoders in).
   * `decoders` local children are started; 0 is allowed when every decoder is remote.
   */
  readonly endpoint?: string;
  readonly startTimeoutMs?: number;
  /** A job not answered within this time is dropped and its decoder forgotten (a local one is killed and restarted). */
  readonly decodeTimeoutMs?: number;
  /** Niceness added to local decoder processes, so the analyzer wins the CPU (default 10; 0 = same priority). */
  readonly decoderNice?: number;
  /**
   * A key file (see zeromq-key.ts): the endpoint is CURVE-encrypted and only decoders holding the file get in;
   * '' (default) = none, allowed only for ipc:// and loopback tcp://.
   */
  readonly keyFile?: string;
  /** Told of remote decoders joining and leaving with a goodbye, a line each (the daemon's log; default: not said). */
  readonly onInfo?: (message: string) => void;
}

interface Peer {
  readonly key: string;
  /** Routing id as received (the ROUTER addresses the decoder with these exact bytes). */
  readonly id: Buffer;
  readonly num: number;
  idle: boolean;
  /**
   * The frame it is decoding, as sent (its id is the job's): the answer is checked against it, also after the queue
   * dropped it.
   */
  job: InFlightEntry | null;
  /** When it was last given a job (when it joined, before its first): idle decoders are given jobs least recent first. */
  jobSince: number;
  /** When it last sent anything. */
  heardAt: number;
  /** It has answered a job it was given: it counts toward the frames in flight (#fitInFlight). */
  proven: boolean;
  /** Its usual time per KB of JPEG from a job sent to its frame back, averaged over its answers (late ones too). */
  msPerKB: number | undefined;
  /** Index of the local child, if it is one. */
  local?: number;
}

interface LocalDecoder {
  readonly index: number;
  proc: ChildProcess;
  routingId: string;
  startedAt: number;
  crashes: number;
  killedHung?: boolean;
  ready: boolean;
  onReady?: () => void;
}

/**
 * Messages held per decoder connection before libzmq stops reading it. Not 2, as the decoders' own mark: libzmq 4.3.5
 * stops reading a connection whose messages fill the receive pipe, and if that connection then fails with a heartbeat
 * PING still in its buffer, reading resumed answers the PING on the dead connection and aborts the process
 * (`Assertion failed: !_io_error (stream_engine_base.cpp:310)`): a daemon stopped for 35 s (SIGSTOP, a paused VM)
 * while a remote decoder announced itself died 6 times in 6 once continued, its 'ready' announcements (one a second
 * until the decoder gives up on the connection after its 5-s heartbeat timeout) piled up in the kernel. A decoder
 * keeping to the protocol has a frame and a few announcements on one connection at most; the bound keeps what a
 * misbehaving (keyed, or loopback) peer can queue to 64 messages, 230 MB of 1280x720 frames.
 */
const ROUTER_RECEIVE_HIGH_WATER_MARK = 64;

/** libzmq's ZMQ_ROUTER_NOTIFY (a draft option, in zeromq.js's build) and its ZMQ_NOTIFY_DISCONNECT. */
const ZMQ_ROUTER_NOTIFY = 97;
const ZMQ_NOTIFY_DISCONNECT = 2;

/**
 * A ROUTER that receives an empty message from a decoder whose connection closed (see #disconnected), when libzmq
 * has ZMQ_ROUTER_NOTIFY; without it, a decoder gone is noticed as before (a job that cannot be sent, silence).
 */
class NotifyingRouter extends Router {
  constructor(options: ConstructorParameters<typeof Router>[0]) {
    super(options);
    try {
      this.setInt32Option(ZMQ_ROUTER_NOTIFY, ZMQ_NOTIFY_DISCONNECT);
    } catch {
      // a libzmq built without draft options
    }
  }
}

export class ZeromqChannel implements FrameChannel {
  readonly name: string;
  readonly #opts: Required<Omit<ZeromqChannelOptions, 'onDropped' | 'onInfo'>>;
  readonly #onInfo: ((message: string) => void) | undefined;
  readonly #queue: InFlightQueue;
  readonly #peers = new Map<string, Peer>();
  /** Remote decoders forgotten (silent, or a job past decodeTimeoutMs) and not back yet: see #rememberForgotten. */
  readonly #forgottenKeys = new Set<string>();
  /** Per peer key, its failures and when it may be tried again (TRIAL_RETRY_MS); bounded by FAILURES_KEPT. */
  readonly #failures = new Map<string, { count: number; until: number }>();
  /** maxInFlight as given; the queue's own bound grows from it with the decoders (#fitInFlight). */
  readonly #baseInFlight: number;
  readonly #locals: LocalDecoder[] = [];
  readonly #router: Router;
  #ipcFile: string | undefined;
  /** The ipc file is this daemon's private one (zeromqEndpoint unset), named by privateIpcFile. */
  readonly #privateIpc: boolean = false;
  #bindEndpoint: string;
  #connectEndpoint = '';
  #boundEndpoint: string | undefined;
  #peerNum = 0;
  #restarts = 0;
  /** When a remote decoder was last dropped (see stats). */
  #remoteLostAt: number | null = null;
  #started: Promise<void> | undefined;
  #startDone = false;
  #closing: Promise<void> | undefined;
  /** Set once the drain is over: from then on a dead decoder is not replaced. */
  #stopping = false;
  #watchdog: Watchdog | undefined;
  #receiving: Promise<void> | undefined;
  /** With a key file: the key pair, and the context holding the router and its ZAP handler (one handler per context). */
  readonly #key: ZeromqKey | undefined;
  readonly #keyFile: string;
  readonly #context: Context | undefined;
  #zap: ZapHandler | undefined;
  /** Refused peers, told rate-limited per cause, a hang-up only when no refusal with a cause explains it. */
  readonly #refusals = new RefusalLog((what) => process.emitWarning(`zeromq channel: ${what}`));

  constructor(opts: ZeromqChannelOptions) {
    this.#opts = { endpoint: '', startTimeoutMs: 15_000, decodeTimeoutMs: 10_000, decoderNice: DECODER_NICE, decodeScale: 1, keyFile: '', ...stripUndefined(opts) } as Required<Omit<ZeromqChannelOptions, 'onDropped' | 'onInfo'>>;
    this.#onInfo = opts.onInfo;
    if (!Number.isInteger(opts.decoders) || opts.decoders < 0) throw new RangeError(`zeromq channel: decoders must be an integer >= 0, got ${opts.decoders}`);
    let ep = this.#opts.endpoint;
    if (ep === '') {
      this.#ipcFile = privateIpcFile();
      this.#privateIpc = true;
      ep = `ipc://${this.#ipcFile}`;
    } else if (ep.startsWith('ipc://')) {
      this.#ipcFile = ep.slice('ipc://'.length);
    } else if (!/^tcp:\/\/[^/]+:\d+$/.test(ep)) {
      throw new ConfigError(`zeromqEndpoint: expected ipc:///path/to.sock or tcp://HOST:PORT, got "${ep}"`);
    }
    requireKeyForEndpoint(ep, this.#opts.keyFile);
    // Local children are given the file's path to name it, and the key over their IPC pipe (see #spawn).
    this.#keyFile = this.#opts.keyFile === '' ? '' : resolve(this.#opts.keyFile);
    this.#key = this.#keyFile === '' ? undefined : readZeromqKeyFile(this.#opts.keyFile, 'zeromqKeyFile');
    // Its own context: the ZAP handler answers for every socket in its context, and two channels may run in one process.
    this.#context = this.#key === undefined ? undefined : new Context();
    // ZeroMQ spells "any free port" as '*'.
    this.#bindEndpoint = ep.replace(/:0$/, ':*');
    this.name = `zeromq-${ep.startsWith('tcp://') ? 'tcp' : 'ipc'}`;
    this.#queue = new InFlightQueue(opts.maxInFlight, opts.onDropped);
    this.#baseInFlight = opts.maxInFlight;
    this.#router = new NotifyingRouter({
      ...ZMQ_SOCKET_DEFAULTS,
      mandatory: true, // a job for a vanished decoder fails at once (EHOSTUNREACH) instead of vanishing
      // A decoder that reconnects (it gave up on a stopped daemon, or its link broke) keeps its routing id: its new
      // connection replaces the old one. Without this libzmq ignores a new connection while the old one with that id
      // is not yet torn down, and holds back its messages for good: a decoder that reconnected as the daemon was
      // continued after a 35-s SIGSTOP said "connected" but was never given a job again.
      handover: true,
      receiveHighWaterMark: ROUTER_RECEIVE_HIGH_WATER_MARK,
      // Never wait in send(): each decoder has credit for exactly the job we send it, and a zeromq.js socket
      // that waits to send while its receive loop waits too can miss the wake-up.
      sendTimeout: 0,
      linger: 0,
      // An IPv6 address (tcp://[::1]:P, tcp://[::]:P) needs the option, which libzmq leaves off ("No such device").
      ...(ep.startsWith('tcp://[') ? { ipv6: true } : {}),
      // zapEnforceDomain: with no ZAP handler bound in its context, libzmq would let in any client that knows the
      // public key (the "Stonehouse" pattern); enforced, it refuses every client instead: fail closed.
      ...(this.#key === undefined
        ? {}
        : { context: this.#context!, curveServer: true, curvePublicKey: this.#key.publicKey, curveSecretKey: this.#key.secretKey, zapDomain: 'traffic-counter', zapEnforceDomain: true }),
    });
  }

  /** With a key: the ZAP handler, and the refusals libzmq makes before asking it (no key, another server key). */
  async #startKeyCheck(): Promise<void> {
    if (this.#key === undefined) return;
    this.#zap = await ZapHandler.start(this.#context!, this.#key.publicKey, (address) =>
      this.#refusals.refused('key', `refused a decoder from ${address} on ${this.endpoint}: it presented a key that is not this daemon's (zeromqKeyFile ${this.#keyFile}); give it a copy of that file (--key-file)`),
    );
    // libzmq names only the endpoint here, not the peer's address: the handshake failed before the ZAP request.
    this.#router.events.on('handshake:error:protocol', (ev: EventOfType<'handshake:error:protocol'>) => {
      const code = ev.error.code;
      const refused = (what: string): void => this.#refusals.refused(String(code), `refused a peer on ${this.endpoint}${what}`);
      if (code === 'ERR_ZMTP_MECHANISM_MISMATCH') refused(` that has no key (a decoder without --key-file?): this endpoint needs the key file ${this.#keyFile}; give the decoder a copy of it (--key-file)`);
      else if (code === 'ERR_ZMTP_CRYPTOGRAPHIC') refused(` whose key file is not this daemon's (${this.#keyFile}); give it a copy of that file (--key-file)`);
      else refused(`: handshake failed (${ev.error.message}${code ? `, ${code}` : ''})`);
    });
    // Whichever end finds the mismatch first hangs up: the other sees a broken pipe.
    this.#router.events.on('handshake:error:other', (ev: EventOfType<'handshake:error:other'>) => {
      this.#refusals.hungUp(
        `a peer on ${this.endpoint} hung up during the handshake (${ev.error.message}): most likely a decoder without this daemon's key file ` +
          `(${this.#keyFile}) or with another one; give it a copy of that file (--key-file)`,
      );
    });
  }

  /** The endpoint the analyzer is bound to (after start), e.g. tcp://0.0.0.0:40123; remote decoders connect here. */
  get endpoint(): string {
    // As bound, kept: a closed socket's lastEndpoint throws (ENOTSOCK), and stats() are read after close() too.
    return this.#boundEndpoint ?? this.#router.lastEndpoint ?? this.#bindEndpoint;
  }

  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<void> {
    // Fails fast, with a message naming the fix, when an optional decoder is not installed.
    if (this.#opts.decoders > 0) await createDecoder(this.#opts.decoder);
    await this.#startKeyCheck();
    // The private sockets of daemons that were killed (kill -9) and could not remove theirs.
    if (this.#privateIpc) await removeStaleIpcFiles(dirname(this.#ipcFile!));
    else if (this.#ipcFile !== undefined) {
      try {
        await refuseTakenIpcPath(this.#ipcFile);
      } catch (err) {
        this.#ipcFile = undefined; // not ours: close() leaves it
        throw err;
      }
    }
    try {
      await this.#router.bind(this.#bindEndpoint);
    } catch (err) {
      throw new ChannelError('TC_ERR_CHANNEL_START', `zeromq channel: cannot bind ${this.#bindEndpoint}: ${(err as Error).message}; pick another zeromqEndpoint`, { cause: err });
    }
    this.#boundEndpoint = this.#router.lastEndpoint ?? this.#bindEndpoint;
    // Local children connect to loopback when the analyzer binds every interface.
    this.#connectEndpoint = this.endpoint.replace(/^tcp:\/\/(0\.0\.0\.0|\*)/, 'tcp://127.0.0.1').replace(/^tcp:\/\/\[::\]/, 'tcp://[::1]');
    this.#receiving = this.#receive();
    this.#watchdog = new Watchdog(this.#opts.decodeTimeoutMs, (now, onTime) => this.#checkTimeouts(now, onTime), 2 * WATCHDOG_MS);
    await Promise.all(Array.from({ length: this.#opts.decoders }, (_, i) => this.#spawn(i)));
    this.#startDone = true;
  }

  #spawn(index: number): Promise<void> {
    const prev = this.#locals[index];
    const routingId = `local/${process.pid}/${index}/${randomBytes(4).toString('hex')}`;
    // The IPC pipe carries nothing; it makes the child exit when this process goes away.
    const proc = fork(CHILD_FILE, [this.#connectEndpoint, this.#opts.decoder, routingId, String(this.#opts.decoderNice), this.#keyFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    killWithParent(proc);
    // The key as read at start, over the pipe (not in argv, which ps shows; nor from the file, which may have been
    // replaced since: a decoder restarted with another key would be refused by this very channel).
    if (this.#key !== undefined) proc.send({ type: 'key', publicKey: this.#key.publicKey, secretKey: this.#key.secretKey }, () => {});
    const dec: LocalDecoder = { index, proc, routingId, startedAt: Date.now(), crashes: prev?.crashes ?? 0, ready: false };
    this.#locals[index] = dec;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new ChannelError('TC_ERR_CHANNEL_START', `zeromq channel: decoder ${index} did not connect within ${this.#opts.startTimeoutMs} ms`));
        proc.kill('SIGKILL');
      }, this.#opts.startTimeoutMs);
      dec.onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      proc.on('error', (err) => {
        clearTimeout(timer);
        reject(new ChannelError('TC_ERR_CHANNEL_START', `zeromq channel: cannot start decoder ${index}: ${err.message}`, { cause: err }));
      });
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (!dec.ready) reject(new ChannelError('TC_ERR_CHANNEL_START', `zeromq channel: decoder ${index} exited during start-up (code ${code}, signal ${signal})`));
        this.#onExit(dec, code, signal);
      });
    });
  }

  #onExit(dec: LocalDecoder, code: number | null, signal: NodeJS.Signals | null): void {
    this.#forget(dec.routingId);
    // During start() a dead decoder fails start() instead; afterwards it is always replaced.
    if (this.#locals[dec.index] !== dec || this.#stopping || !this.#startDone) return;
    this.#restarts++;
    const delay = restartDelayMs(dec);
    // Killed as hung: #checkTimeouts' warning said so, and that it is restarted.
    if (!dec.killedHung) process.emitWarning(`zeromq channel: decoder ${dec.index} exited (code ${code}, signal ${signal}); restarting in ${delay} ms`);
    setTimeout(() => {
      if (this.#stopping) return;
      this.#spawn(dec.index).catch((err: unknown) => process.emitWarning(String(err)));
    }, delay).unref();
  }

  /**
   * A decoder's connection closed without a 'bye': the process was stopped or killed, or its host or link went down
   * (after the 5-s heartbeat timeout). Before, a remote decoder killed with -9 was told only when the next job to it
   * failed, as "cannot send to decoder … (Host unreachable)", which blamed the network; one killed holding a job held
   * back the frames behind it for decodeTimeoutMs, then was told as a camera's frames too slow to decode. A local
   * decoder's exit is said by #onExit.
   */
  #disconnected(key: string): void {
    const peer = this.#peers.get(key);
    if (!peer) return;
    const dropped = this.#droppedWith(peer);
    this.#forget(key);
    if (peer.local === undefined && !this.#closing) {
      process.emitWarning(`zeromq channel: remote decoder ${key} went away: its connection closed without a goodbye (the decoder was stopped or killed, or its host or link went down)${dropped}${this.#remoteNow()}`);
    }
  }

  /** What a message about `peer` leaving says of the frame it held, dropped with it (not when another decoder has it too). */
  #droppedWith(peer: Peer): string {
    const frame = peer.job === null ? undefined : this.#queue.frameOf(peer.job.id);
    return frame === undefined || this.#holders(peer.job!.id) > 1 ? '' : `; its ${frameName(frame.cameraId, frame.seq)} is dropped`;
  }

  /** How many remote decoders are connected now, for the lines that say one joined or left. */
  /** A remote decoder forgotten for silence or a job past decodeTimeoutMs: its return is said as such (bounded, oldest out). */
  #rememberForgotten(key: string): void {
    this.#forgottenKeys.delete(key);
    this.#forgottenKeys.add(key);
    if (this.#forgottenKeys.size > MAX_FORGOTTEN_KEYS) this.#forgottenKeys.delete(this.#forgottenKeys.values().next().value!);
  }

  #remoteNow(): string {
    let n = 0;
    for (const p of this.#peers.values()) if (p.local === undefined) n++;
    return `; ${n} remote decoder(s) connected now`;
  }

  /**
   * Drops a decoder: the job it held is lost (counted as dropped, not retried: it may be what killed it); `hungMs`:
   * it held that job past decodeTimeoutMs (see InFlightQueue.hung).
   */
  #forget(key: string, hungMs?: number): void {
    const peer = this.#peers.get(key);
    if (!peer) return;
    this.#drop(peer);
    // A remote decoder leaving with a job (timed out, or 'bye' while holding one) has failed it.
    if (peer.job !== null && peer.local === undefined) this.#failed(key);
    this.#fitInFlight();
    if (peer.job !== null) this.#giveUp(peer.job.id, hungMs);
    this.#pump();
  }

  /** Removes a decoder from those connected; a remote one's loss is noted for stats (not while closing). */
  #drop(peer: Peer): void {
    this.#peers.delete(peer.key);
    if (peer.local === undefined && !this.#closing) this.#remoteLostAt = Date.now();
  }

  /** How many connected decoders hold job `id` (two when it was sent again, see HEDGE_FACTOR). */
  #holders(id: number): number {
    let n = 0;
    for (const p of this.#peers.values()) if (p.job?.id === id) n++;
    return n;
  }

  /** A job a decoder will not answer: its frame is dropped, unless another decoder has it too or it is done; `hungMs`: see #forget. */
  #giveUp(job: number, hungMs?: number): void {
    if (this.#holders(job) > 0) return;
    if (this.#queue.get(job)?.state !== 'decoding') return;
    if (hungMs === undefined) this.#queue.abandon(job);
    else this.#queue.hung(job, hungMs);
  }

  async #receive(): Promise<void> {
    try {
      for await (const parts of this.#router) {
        // Whatever a peer sends, the loop that reads every decoder's messages goes on.
        try {
          this.#onMessage(parts);
        } catch (err) {
          process.emitWarning(`zeromq channel: ignoring a message from decoder ${parts[0]?.toString('latin1')} that could not be handled: ${(err as Error).message}`);
        }
      }
    } catch (err) {
      if (!this.#router.closed) process.emitWarning(`zeromq channel: receive failed: ${(err as Error).message}`);
    }
  }

  #onMessage(parts: Buffer[]): void {
    const key = parts[0]!.toString('latin1');
    // A connection closed (ZMQ_ROUTER_NOTIFY): libzmq's empty message for it, with the decoder's routing id.
    if (parts.length === 2 && parts[1]!.length === 0) {
      this.#disconnected(key);
      return;
    }
    let msg: ZmqFromDecoder | undefined;
    try {
      msg = JSON.parse(parts[1]!.toString('utf8')) as ZmqFromDecoder;
    } catch {
      msg = undefined;
    }
    if (typeof msg !== 'object' || msg === null || !MESSAGE_TYPES.has(msg.type)) {
      process.emitWarning(`zeromq channel: ignoring a malformed message from decoder ${key}`);
      return;
    }
    if (msg.type === 'bye') {
      const peer = this.#peers.get(key);
      const dropped = peer ? this.#droppedWith(peer) : '';
      this.#forget(key);
      // Said, as its joining is: before, only /api/health showed remote decoders come and go.
      if (peer && peer.local === undefined && !this.#closing) this.#onInfo?.(`zeromq channel: remote decoder ${key} left (it said goodbye)${dropped}${this.#remoteNow()}`);
      return;
    }
    let peer = this.#peers.get(key);
    if (!peer) {
      const local = this.#locals.find((d) => d.routingId === key);
      const now = Date.now();
      peer = { key, id: parts[0]!, num: ++this.#peerNum, idle: false, job: null, jobSince: now, heardAt: now, proven: false, msPerKB: undefined, local: local?.index };
      this.#peers.set(key, peer);
      if (!local && !this.#closing) {
        const what = msg.type === 'ready' && typeof msg.decoder === 'string' ? ` (${msg.decoder})` : '';
        const back = this.#forgottenKeys.delete(key);
        this.#onInfo?.(`zeromq channel: remote decoder ${key}${what} ${back ? 'is back (it had been forgotten)' : 'joined'}${this.#remoteNow()}`);
      }
      if (local && !local.ready) {
        local.ready = true;
        local.onReady?.();
      }
    }
    peer.heardAt = Date.now();
    if (msg.type === 'ready') {
      // A periodic re-announce can cross a job on the wire: only an idle or new decoder becomes idle.
      if (peer.job === null) peer.idle = true;
    } else if (peer.job !== null && typeof msg.job === 'number' && msg.job < peer.job.id) {
      // An answer to an older job, sent before this one reached it (a decoder stopped past decodeTimeoutMs, forgotten,
      // and back): stale, and not a sign of idleness; the job it holds is still coming.
    } else {
      const sent = peer.job;
      peer.job = null;
      peer.idle = true;
      if (sent !== null && msg.job === sent.id) {
        // Only a frame accepted here makes a decoder one that counts: not one refused (wrong size, over the limit),
        // nor a decode error, which any peer can send at once.
        const result = this.#onResult(peer, sent, msg, parts[2]);
        if (result === 'frame') {
          const perKB = (Date.now() - peer.jobSince) / jpegKB(sent.frame);
          peer.msPerKB = peer.msPerKB === undefined ? perKB : 0.8 * peer.msPerKB + 0.2 * perKB;
        }
        if (result === 'frame' && !peer.proven) {
          peer.proven = true;
          this.#fitInFlight();
        } else if (result === 'refused' && peer.local === undefined) {
          this.#failed(key);
        }
      } else if (sent !== null) {
        // A reply to some other job (a confused or foreign decoder): the job it held will never come back,
        // and left in the queue it would hold back delivery of every later frame.
        process.emitWarning(`zeromq channel: decoder ${key} answered job ${String(msg.job)} while holding job ${sent.id}; dropping job ${sent.id}`);
        this.#giveUp(sent.id);
        if (peer.local === undefined) this.#failed(key);
      }
    }
    this.#pump();
  }

  /**
   * Completes the job with the decoder's answer (ignored by the queue if it dropped the frame meanwhile): 'frame' for
   * a frame accepted, 'error' for a decode error, 'refused' for a frame refused here.
   */
  #onResult(peer: Peer, sent: InFlightEntry, msg: Exclude<ZmqFromDecoder, { type: 'ready' | 'bye' }>, pixels: Buffer | undefined): 'frame' | 'error' | 'refused' {
    const job = sent.id;
    const f = sent.frame;
    if (msg.type === 'decode-error') {
      // The failure is the frame's as sent: only its code and message come from the decoder.
      const { code, message } = (typeof msg.failure === 'object' && msg.failure !== null ? msg.failure : {}) as { code?: unknown; message?: unknown };
      const failure = {
        type: 'decode-error' as const,
        cameraId: f.cameraId,
        seq: f.seq,
        capturedAt: f.capturedAt,
        code: typeof code === 'string' && /^TC_ERR_[A-Z_]{1,40}$/.test(code) ? code : 'TC_ERR_DECODE_CORRUPT',
        message: typeof message === 'string' ? message.slice(0, 500) : `decoder ${peer.key} sent a decode error without a message`,
      };
      this.#queue.complete(job, { kind: 'error', failure });
      return 'error';
    }
    const h = (typeof msg.header === 'object' && msg.header !== null ? msg.header : {}) as Partial<FrameHeader>;
    // A decoder from before decodeScale sends no scale: its frames are full size.
    const scale = h.scale ?? 1;
    // The job fails as the frame asked for.
    const refuse = (code: string, message: string): 'refused' => {
      const failure = { type: 'decode-error' as const, cameraId: f.cameraId, seq: f.seq, capturedAt: f.capturedAt, code, message };
      this.#queue.complete(job, { kind: 'error', failure });
      return 'refused';
    };
    // A remote decoder is not trusted blindly: the frame must be the one asked for, with matching size.
    const okSize = Number.isInteger(h.width) && Number.isInteger(h.height) && pixels !== undefined && pixels.length === h.width! * h.height! * 4;
    // Nor larger than the frame's limit allows: what a decoder here would have refused.
    const over = okSize ? overMegapixels(h.width!, h.height!, sent.limits) : undefined;
    if (over !== undefined) return refuse('TC_ERR_DECODE_TOO_LARGE', `decoder ${peer.key} returned a frame for camera ${f.cameraId} seq ${f.seq} of ${over}`);
    if (!okSize || !isDecodeScale(scale) || h.cameraId !== f.cameraId || h.seq !== f.seq) {
      return refuse(
        'TC_ERR_DECODE_SIZE_MISMATCH',
        `decoder ${peer.key} returned ${pixels?.length ?? 0} bytes for a ${h.width}x${h.height} frame at scale ${JSON.stringify(scale)} of camera ${h.cameraId} seq ${h.seq}; check that it runs the same traffic-counter version`,
      );
    }
    // Zero-copy: the Buffer wraps ZeroMQ's received message; it is freed when the frame is garbage.
    const data = new Uint8Array(pixels!.buffer, pixels!.byteOffset, pixels!.byteLength);
    const decodeMs = typeof h.decodeMs === 'number' && Number.isFinite(h.decodeMs) ? h.decodeMs : 0;
    this.#queue.complete(job, {
      kind: 'frame',
      frame: { cameraId: f.cameraId, seq: f.seq, capturedAt: f.capturedAt, width: h.width!, height: h.height!, scale, data, decodeMs, release() {} },
    });
    return 'frame';
  }

  /**
   * Two frames per connected decoder that has answered a job (one at it, one waiting: see createChannel), never
   * below maxInFlight as given. When a decoder leaves, the frames beyond the new bound drain through delivery (see
   * InFlightQueue.max).
   */
  #fitInFlight(): void {
    let proven = 0;
    for (const peer of this.#peers.values()) if (peer.proven) proven++;
    this.#queue.max = Math.max(this.#baseInFlight, Math.min(ZEROMQ_MAX_GROWN_IN_FLIGHT, 2 * proven));
  }

  #pump(): void {
    if (this.#router.closed) return;
    // Decoders that have answered first, least recently given a job first among them; one that has not answered yet
    // gets work when those are busy, and so proves itself (and raises the bound) when it is needed. A remote one is
    // on trial: one such job at a time, and its frame can be overtaken (TRIAL_GRACE_MS), so that peers that never
    // answer (broken or hostile) cost one frame at a time instead of holding back the frames behind theirs.
    const peers = [...this.#peers.values()];
    const now = Date.now();
    // While a proven decoder can do the work, one trial frame at a time is waited for, and a failed peer waits
    // (TRIAL_RETRY_MS); with none, every peer is tried (up to TRIALS_OUT_MAX at once), failed or not.
    const anyProven = peers.some((p) => p.proven);
    const out = peers.filter((p) => this.#onTrial(p) && p.job !== null);
    let trials = out.length;
    let waitedFor = out.some((p) => this.#queue.get(p.job!.id) !== undefined);
    const idle = peers.filter((p) => p.idle).sort((a, b) => Number(b.proven) - Number(a.proven) || a.jobSince - b.jobSince);
    for (const peer of idle) {
      const trial = this.#onTrial(peer);
      if (trial && (trials >= TRIALS_OUT_MAX || (anyProven && (waitedFor || (this.#failures.get(peer.key)?.until ?? 0) > now)))) continue;
      const entry = this.#queue.nextPending();
      if (!entry) break;
      this.#dispatch(peer, entry);
      if (trial) {
        entry.overtakeAfter = now + TRIAL_GRACE_MS;
        trials++;
        waitedFor = true;
      }
    }
    if (this.#queue.nextPending() === undefined) this.#hedge(peers, now);
  }

  /**
   * With no frame waiting for a decoder, a frame late at its decoder (see HEDGE_FACTOR) goes to an idle decoder that
   * has answered before as well, oldest first: each holds back every frame behind it.
   */
  #hedge(peers: readonly Peer[], now: number): void {
    const late = (job: InFlightEntry, p: Peer): boolean =>
      p.msPerKB !== undefined && now - p.jobSince > Math.max(HEDGE_MIN_MS, HEDGE_FACTOR * p.msPerKB * jpegKB(job.frame));
    const overdue = peers
      .flatMap((p) => (p.job !== null && p.proven && late(p.job, p) && this.#holders(p.job.id) === 1 && this.#queue.get(p.job.id)?.state === 'decoding' ? [p.job] : []))
      .sort((a, b) => a.id - b.id);
    for (const job of overdue) {
      const helper = peers.find((p) => p.idle && p.proven);
      if (!helper) return;
      this.#dispatch(helper, job, true);
    }
  }

  /** A remote decoder that has not returned a frame yet (local children are ours, and their exit is watched). */
  #onTrial(peer: Peer): boolean {
    return !peer.proven && peer.local === undefined;
  }

  /** A remote peer failed a job (see TRIAL_RETRY_MS). */
  #failed(key: string): void {
    const now = Date.now();
    const last = this.#failures.get(key);
    const count = last !== undefined && now - last.until < TRIAL_RETRY_MAX_MS ? last.count + 1 : 1;
    this.#failures.delete(key); // re-inserted last: the map's order is the order of the latest failures
    this.#failures.set(key, { count, until: now + Math.min(TRIAL_RETRY_MAX_MS, TRIAL_RETRY_MS * 2 ** (count - 1)) });
    if (this.#failures.size > FAILURES_KEPT) this.#failures.delete(this.#failures.keys().next().value!);
  }

  /** Sends `entry` to `peer`; `again`: a second decoder for a frame late at its first (see HEDGE_FACTOR). */
  #dispatch(peer: Peer, entry: InFlightEntry, again = false): void {
    const f = entry.frame;
    const req = decodeRequest(entry, this.#opts.decodeScale);
    const job: ZmqDecodeJob = { type: 'decode', job: entry.id, req };
    if (!again) this.#queue.toDecoder(entry, peer.num);
    peer.idle = false;
    peer.job = entry;
    peer.jobSince = Date.now();
    const jpeg = asBuffer(f.jpeg);
    this.#router.send([peer.id, JSON.stringify(job), jpeg]).catch((err: unknown) => {
      // The decoder went away (EHOSTUNREACH) or its pipe is full: the job never left, so it can go
      // to another decoder.
      if (peer.job !== entry) return;
      this.#drop(peer);
      peer.job = null;
      this.#fitInFlight();
      if (this.#holders(entry.id) === 0 && this.#queue.get(entry.id)?.state === 'decoding') entry.state = 'pending';
      // EHOSTUNREACH (libzmq's "Host unreachable") says only that no connection has this routing id any more.
      const why = (err as NodeJS.ErrnoException).code === 'EHOSTUNREACH' ? 'it is no longer connected: it was stopped or killed, or its host or link went down' : (err as Error).message;
      if (!this.#closing) process.emitWarning(`zeromq channel: cannot send to ${peer.local === undefined ? 'remote ' : ''}decoder ${peer.key} (${why}); forgetting it`);
      this.#pump();
    });
  }

  #checkTimeouts(now: number, onTime: boolean): void {
    // A late tick (see Watchdog; late here: over 2 × WATCHDOG_MS) runs before the decoders' waiting messages are
    // read: silence is not judged on it.
    this.#queue.overtakeStalled();
    this.#pump(); // a trial frame overtaken frees the trial for another peer
    for (const peer of [...this.#peers.values()]) {
      if (peer.job === null) {
        // A remote decoder gone without 'bye' (killed, host down) would never be sent a job to fail on under light
        // load. Local children are not judged so: their exit says when they die.
        if (onTime && peer.local === undefined && now - peer.heardAt > IDLE_PEER_SILENCE_MS) {
          this.#forget(peer.key);
          this.#rememberForgotten(peer.key);
          process.emitWarning(
            `zeromq channel: remote decoder ${peer.key} fell silent (no word from it for ${IDLE_PEER_SILENCE_MS / 1000} s: stopped, or its host or link ` +
              `down); forgotten until it says it is ready again${this.#remoteNow()}`,
          );
        }
        continue;
      }
      if (now - peer.jobSince < this.#opts.decodeTimeoutMs) continue;
      const held = heldFrameNote(this.#queue.frameOf(peer.job.id));
      const local = peer.local === undefined ? undefined : this.#locals[peer.local];
      this.#forget(peer.key, this.#opts.decodeTimeoutMs);
      // A remote one is forgotten until it answers again: said with the count, as a leaving one is, and its return
      // is said as such (it was logged "joined" again, nameless: its first word back is seldom 'ready').
      if (!local) this.#rememberForgotten(peer.key);
      const done = local
        ? 'it is hung (stopped or stuck), so it is killed and restarted and its frame dropped'
        : `dropping its frame; forgotten until it answers again${this.#remoteNow()}`;
      process.emitWarning(`zeromq channel: decoder ${peer.key} did not answer within ${this.#opts.decodeTimeoutMs} ms${held.on}; ${done}${held.fix}`);
      if (local) {
        local.killedHung = true;
        local.proc.kill('SIGKILL'); // restarted on exit, at once: no crash
      }
    }
  }

  submit(frame: JpegFrame, limits: DecodeLimits): void {
    this.#queue.submit(frame, limits, () => this.#pump());
  }

  next(): Promise<ChannelOutput | null> {
    return this.#queue.next();
  }

  stats(): ChannelStats {
    const stats = this.#queue.stats(this.name, this.#restarts);
    if (!this.endpoint.startsWith('tcp://')) return stats;
    let remote = 0;
    for (const p of this.#peers.values()) if (p.local === undefined) remote++;
    return { ...stats, endpoint: this.endpoint, remoteDecoders: remote, remoteDecoderLostAt: this.#remoteLostAt };
  }

  framesAtDecoders(): FrameAtDecoder[] {
    const now = Date.now();
    return [...this.#peers.values()].flatMap((peer) => {
      if (peer.job === null || this.#queue.frameOf(peer.job.id) === undefined) return [];
      const local = peer.local === undefined ? undefined : this.#locals[peer.local];
      const decoder = local ? `decoder ${local.index} (pid ${local.proc.pid})` : `remote decoder ${peer.key}`;
      return [{ decoder, frame: peer.job.frame, heldMs: now - peer.jobSince }];
    });
  }

  /** Connected decoders (local and remote). */
  get decoderCount(): number {
    return this.#peers.size;
  }

  /** Process ids of the local decoder children (for tests and stats). */
  decoderPids(): number[] {
    return this.#locals.filter((d) => d?.proc.pid !== undefined).map((d) => d.proc.pid!);
  }

  close(timeoutMs = 5_000): Promise<void> {
    this.#closing ??= this.#close(timeoutMs);
    return this.#closing;
  }

  async #close(timeoutMs: number): Promise<void> {
    // Local decoders restarting after a crash are waited for too, within the same time limit; with only
    // remote decoders and none connected, nothing can finish.
    await this.#queue.drain(timeoutMs, () => this.#peers.size > 0 || this.#locals.length > 0);
    this.#stopping = true;
    this.#watchdog?.stop();
    await Promise.all(this.#locals.map((d) => (d ? stopChild(d.proc) : undefined)));
    this.#router.close();
    await this.#receiving;
    // Only once the router is closed: a CURVE server with no ZAP handler lets in any client that knows its public key.
    this.#refusals.close();
    await this.#zap?.close();
    if (this.#ipcFile) rmSync(this.#ipcFile, { force: true });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
