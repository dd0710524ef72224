// FrameChannel over Node process IPC: JPEGs go to forked decoder children, RGBA frames come back via
// process.send. 'advanced' serialization (V8 structured clone) by default; 'json' is the historical baseline.

import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ChannelError } from '../errors.js';
import type { ChannelStats, FrameAtDecoder, FrameChannel, FrameChannelOptions } from './frame-channel.js';
import { InFlightQueue, decodeRequest, type InFlightEntry } from './in-flight-queue.js';
import { heldFrameNote, Watchdog } from './watchdog.js';
import { killWithParent, restartDelayMs, stopChild } from './decoder-process.js';
import type { ChannelOutput, DecodeLimits, IpcFromChild, IpcToChild, JpegFrame } from './messages.js';
import { asBuffer, toUint8Array } from '../decode/ipc-bytes.js';
import { createDecoder } from '../decode/decode-jpeg.js';
import { DECODER_NICE } from '../decode/decoder-priority.js';

const CHILD_FILE = fileURLToPath(new URL('../decode/ipc-decoder-child.js', import.meta.url));

export interface IpcChannelOptions extends FrameChannelOptions {
  readonly serialization?: 'advanced' | 'json';
  /** How long start() waits for a decoder child to report ready. */
  readonly startTimeoutMs?: number;
  /** Niceness added to decoder processes, so the analyzer wins the CPU (default 10; 0 = same priority). */
  readonly decoderNice?: number;
  /**
   * A job not answered within this time (default 10 s, ~300× a jpeg-js decode of 1280x720) has its decoder killed
   * and restarted as a crashed one is, and its frame dropped.
   */
  readonly decodeTimeoutMs?: number;
}

interface Decoder {
  readonly index: number;
  proc: ChildProcess;
  ready: boolean;
  job: number | null;
  /** When it was sent its job. */
  jobSince: number;
  startedAt: number;
  crashes: number;
  killedHung?: boolean;
}

export class IpcChannel implements FrameChannel {
  readonly name: string;
  readonly #opts: Required<Omit<IpcChannelOptions, 'onDropped'>>;
  readonly #queue: InFlightQueue;
  readonly #decoders: Decoder[] = [];
  #restarts = 0;
  #closing: Promise<void> | undefined;
  /** Set once the drain is over: from then on a dead decoder is not replaced. */
  #stopping = false;
  #started = false;
  #startDone = false;
  #watchdog: Watchdog | undefined;

  constructor(opts: IpcChannelOptions) {
    // `?? default` rather than spread defaults: createChannel passes undefined for unset options.
    this.#opts = {
      ...opts,
      decodeScale: opts.decodeScale ?? 1,
      serialization: opts.serialization ?? 'advanced',
      startTimeoutMs: opts.startTimeoutMs ?? 15_000,
      decoderNice: opts.decoderNice ?? DECODER_NICE,
      decodeTimeoutMs: opts.decodeTimeoutMs ?? 10_000,
    };
    this.name = `ipc-${this.#opts.serialization}`;
    this.#queue = new InFlightQueue(opts.maxInFlight, opts.onDropped);
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    // Fails fast, with a message naming the fix, when an optional decoder is not installed.
    await createDecoder(this.#opts.decoder);
    this.#watchdog = new Watchdog(this.#opts.decodeTimeoutMs, (now, onTime) => this.#checkTimeouts(now, onTime));
    await Promise.all(Array.from({ length: this.#opts.decoders }, (_, i) => this.#spawn(i)));
    this.#startDone = true;
  }

  #spawn(index: number): Promise<void> {
    const proc = fork(CHILD_FILE, [String(this.#opts.decoderNice)], {
      serialization: this.#opts.serialization,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [],
    });
    killWithParent(proc);
    const prev = this.#decoders[index];
    const dec: Decoder = { index, proc, ready: false, job: null, jobSince: 0, startedAt: Date.now(), crashes: prev?.crashes ?? 0 };
    this.#decoders[index] = dec;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new ChannelError('TC_ERR_CHANNEL_START', `ipc channel: decoder ${index} did not start within ${this.#opts.startTimeoutMs} ms`));
        proc.kill('SIGKILL');
      }, this.#opts.startTimeoutMs);
      proc.on('message', (msg: IpcFromChild) => {
        if (msg.type === 'ready') {
          clearTimeout(timer);
          dec.ready = true;
          resolve();
          this.#pump();
        } else {
          this.#onResult(dec, msg);
        }
      });
      proc.on('error', (err) => {
        clearTimeout(timer);
        reject(new ChannelError('TC_ERR_CHANNEL_START', `ipc channel: cannot start decoder ${index}: ${err.message}`, { cause: err }));
      });
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        this.#onExit(dec, code, signal);
        if (!dec.ready) reject(new ChannelError('TC_ERR_CHANNEL_START', `ipc channel: decoder ${index} exited during start-up (code ${code}, signal ${signal})`));
      });
      const init: IpcToChild = { type: 'init', decoder: this.#opts.decoder };
      proc.send(init);
    });
  }

  #onResult(dec: Decoder, msg: Exclude<IpcFromChild, { type: 'ready' }>): void {
    dec.job = null;
    let out: ChannelOutput;
    if (msg.type === 'frame') {
      const h = msg.header;
      const data = toUint8Array(msg.pixels);
      out = {
        kind: 'frame',
        frame: { cameraId: h.cameraId, seq: h.seq, capturedAt: h.capturedAt, width: h.width, height: h.height, scale: h.scale, data, decodeMs: h.decodeMs, release() {} },
      };
    } else {
      out = { kind: 'error', failure: msg.failure };
    }
    this.#queue.complete(msg.job, out);
    this.#pump();
  }

  #onExit(dec: Decoder, code: number | null, signal: NodeJS.Signals | null): void {
    dec.ready = false;
    if (this.#decoders[dec.index] !== dec) return; // an older, already replaced process
    if (dec.job !== null) {
      // The frame it was decoding is lost with it; count it as dropped rather than retrying a
      // frame that may be what crashed the decoder.
      this.#queue.abandon(dec.job);
      dec.job = null;
    }
    // During start() a dead decoder fails start() instead; afterwards it is always replaced.
    if (this.#stopping || !this.#startDone) return;
    this.#restarts++;
    const delay = restartDelayMs(dec);
    // Killed as hung: #checkTimeouts' warning said so, and that it is restarted.
    if (!dec.killedHung) process.emitWarning(`ipc channel: decoder ${dec.index} exited (code ${code}, signal ${signal}); restarting in ${delay} ms`);
    setTimeout(() => {
      if (this.#stopping) return;
      this.#spawn(dec.index).catch((err: unknown) => process.emitWarning(String(err)));
    }, delay).unref();
  }

  #pump(): void {
    for (const dec of this.#decoders) {
      if (!dec || !dec.ready || dec.job !== null) continue;
      const entry = this.#queue.nextPending();
      if (!entry) return;
      this.#dispatch(dec, entry);
    }
  }

  #dispatch(dec: Decoder, entry: InFlightEntry): void {
    const f = entry.frame;
    this.#queue.toDecoder(entry, dec.index);
    dec.job = entry.id;
    dec.jobSince = Date.now();
    const jpeg = asBuffer(f.jpeg);
    const req = decodeRequest(entry, this.#opts.decodeScale);
    const msg: IpcToChild = { type: 'decode', job: entry.id, req, jpeg };
    // One job per child at a time: the next is sent only after this frame comes back, so the IPC pipe
    // never holds more than one JPEG per decoder.
    dec.proc.send(msg, undefined, {}, (err) => {
      if (err && dec.job === entry.id) {
        dec.job = null;
        this.#queue.abandon(entry.id);
      }
    });
  }

  /**
   * A decoder that holds its job past decodeTimeoutMs is hung (stopped, or stuck in a loop): it would hold its frame,
   * and every frame behind it, for good. It is killed, its frame dropped, and it is restarted at once.
   * Before, one SIGSTOPped decoder of one stopped all counting (4 cameras at 500 ms: nothing analysed for 72 s, the
   * log saying only that the daemon could not keep up), where the zeromq channel resumed within 12 s.
   */
  #checkTimeouts(now: number, onTime: boolean): void {
    // A late tick (see Watchdog) runs before the decoders' waiting answers are read: no decoder is judged on it.
    if (!onTime || this.#stopping) return;
    for (const dec of this.#decoders) {
      if (!dec || dec.job === null || now - dec.jobSince < this.#opts.decodeTimeoutMs) continue;
      const held = heldFrameNote(this.#queue.frameOf(dec.job));
      process.emitWarning(
        `ipc channel: decoder ${dec.index} (pid ${dec.proc.pid}) did not answer within ${this.#opts.decodeTimeoutMs} ms${held.on}; ` +
          `it is hung (stopped or stuck), so it is killed and restarted and its frame dropped${held.fix}`,
      );
      // Its frame goes now, so the frames behind it are delivered without waiting for the exit; not ready any more,
      // so no job is sent to it meanwhile, and an answer it still sends is ignored.
      const job = dec.job;
      dec.job = null;
      dec.ready = false;
      this.#queue.hung(job, this.#opts.decodeTimeoutMs);
      dec.killedHung = true;
      dec.proc.kill('SIGKILL'); // restarted on exit (#onExit), at once: no crash
    }
  }

  submit(frame: JpegFrame, limits: DecodeLimits): void {
    this.#queue.submit(frame, limits, () => this.#pump());
  }

  next(): Promise<ChannelOutput | null> {
    return this.#queue.next();
  }

  stats(): ChannelStats {
    return this.#queue.stats(this.name, this.#restarts);
  }

  framesAtDecoders(): FrameAtDecoder[] {
    const now = Date.now();
    return this.#decoders.flatMap((dec) => {
      const frame = dec?.job == null ? undefined : this.#queue.frameOf(dec.job);
      return frame ? [{ decoder: `decoder ${dec.index} (pid ${dec.proc.pid})`, frame, heldMs: now - dec.jobSince }] : [];
    });
  }

  /** Process ids of the decoder children (for tests and stats). */
  decoderPids(): number[] {
    return this.#decoders.filter((d) => d?.proc.pid !== undefined).map((d) => d.proc.pid!);
  }

  close(timeoutMs = 5_000): Promise<void> {
    this.#closing ??= this.#close(timeoutMs);
    return this.#closing;
  }

  async #close(timeoutMs: number): Promise<void> {
    // Decoders that are restarting after a crash are waited for too, within the same time limit.
    await this.#queue.drain(timeoutMs, () => this.#decoders.length > 0);
    this.#stopping = true;
    this.#watchdog?.stop();
    await Promise.all(this.#decoders.map((d) => (d ? stopChild(d.proc) : undefined)));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
