// A JPEG decoder for the zeromq channel, local (started by the channel) or remote (`traffic-counter decoder
// --connect tcp://HOST:PORT`): a DEALER that announces itself idle, takes one job at a time, sends frames back.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Dealer } from 'zeromq';
import { createDecoder, type DecoderName } from './decode-jpeg.js';
import { decodeFailure, decodeToFrame } from './decode-to-frame.js';
import { DECODE_SCALES, isDecodeScale } from './decode-scale.js';
import { asBuffer } from './ipc-bytes.js';
import type { ZmqDecodeJob, ZmqFromDecoder } from '../channel/messages.js';

export interface ZeromqDecoderOptions {
  /** The analyzer's endpoint, e.g. tcp://10.0.0.5:5555 or ipc:///tmp/x.sock. */
  readonly connect: string;
  readonly decoder: DecoderName;
  /** Stops the decoder; the promise returned by runZeromqDecoder then resolves. */
  readonly signal?: AbortSignal;
  /** Routing id (unique per decoder, 1–255 bytes); default host/pid/random. */
  readonly routingId?: string;
  /** While idle, the decoder re-announces itself this often, so an analyzer that restarted finds it again. */
  readonly announceIntervalMs?: number;
  /**
   * Told when the connection to the analyzer is made or lost, when none is made within NO_ANALYZER_MS, and when the
   * analyzer refuses this decoder's key (or its lack of one), with when it tries again (see REFUSED_RETRY_MS).
   */
  readonly onStatus?: (message: string) => void;
  /** After a refusal the decoder connects again this much later, doubling per refusal; default REFUSED_RETRY_MS. */
  readonly refusedRetryMs?: number;
  /** ...up to this; default REFUSED_RETRY_MAX_MS. */
  readonly refusedRetryMaxMs?: number;
  /** A decoder that has found no analyzer this long after it started says so; default NO_ANALYZER_MS. */
  readonly noAnalyzerMs?: number;
  /** A connection whose ZMTP handshake is not done this long after it was made is dropped; default libzmq's (30 s). */
  readonly handshakeTimeoutMs?: number;
  /**
   * CURVE: this decoder's key pair and the analyzer's public key (all Z85). From a key file (see zeromq-key.ts), the
   * pair is the file's and serverKey its public key.
   */
  readonly key?: { readonly publicKey: string; readonly secretKey: string; readonly serverKey: string };
}

/**
 * A decoder that has found no analyzer this long after it started says so (onStatus); one that found one and lost it
 * has said that instead.
 */
const NO_ANALYZER_MS = 10_000;
/** A handshake broken off with no reason given is said to be a refusal once no clearer reason came this long after. */
const UNCLEAR_REFUSAL_MS = 500;
/**
 * After a refusal the decoder connects again itself (libzmq does not, see retryLater) this much later, doubling at
 * each refusal in a row up to REFUSED_RETRY_MAX_MS, each delay ±REFUSED_RETRY_JITTER at random (so decoders refused
 * together do not come back together); back to REFUSED_RETRY_MS once a connection is made.
 */
const REFUSED_RETRY_MS = 1_000;
const REFUSED_RETRY_MAX_MS = 30_000;
const REFUSED_RETRY_JITTER = 0.2;

/** A delay as said in a status line: 0.1 s steps under 10 s, whole seconds from there. */
const seconds = (ms: number): string => (ms < 9_950 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);

export const ZMQ_SOCKET_DEFAULTS = {
  sendHighWaterMark: 2, // messages per peer; the credit protocol keeps at most one job/frame in flight anyway
  receiveHighWaterMark: 2, // the daemon's ROUTER sets its own (ROUTER_RECEIVE_HIGH_WATER_MARK in zeromq-channel.ts)
  heartbeatInterval: 1_000, // ms; ZMTP pings so a dead tcp peer is noticed
  heartbeatTimeout: 5_000, // ms without traffic before the connection is dropped
  maxMessageSize: 256 * 1024 * 1024, // bytes per part; refuses absurd messages from a hostile peer
  // Kernel socket buffers, bytes: a 3.6 MB frame then needs a few wake-ups instead of ~18 with the usual
  // 208 KB default (Linux caps this at net.core.wmem_max / rmem_max).
  sendBufferSize: 4 * 1024 * 1024,
  receiveBufferSize: 4 * 1024 * 1024,
};

/** On Ctrl-C, how long a send under way may take before the decoder stops without its goodbye, ms. */
const BYE_WAIT_MS = 1_000;
/** After the goodbye, how long the connection stays open (jobs ignored) for the daemon to read it, ms; within BYE_WAIT_MS. */
const BYE_GRACE_MS = 250;

/** A name lookup that takes longer than this is not waited for (the decoder's usual message is said). */
const LOOKUP_TIMEOUT_MS = 3_000;

/** Why the host of `connect` (tcp://HOST:PORT) cannot be resolved, or undefined: it can, it is an address, or DNS is slow. */
async function unresolvedHost(connect: string): Promise<string | undefined> {
  const host = /^tcp:\/\/(?:\[([^\]]+)\]|([^:/]+)):\d+$/.exec(connect);
  const name = host?.[1] ?? host?.[2];
  if (name === undefined || isIP(name) !== 0 || name === '*') return undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), LOOKUP_TIMEOUT_MS);
  });
  const lookedUp = lookup(name).then(
    () => undefined,
    (err: NodeJS.ErrnoException) =>
      err.code === 'ENOTFOUND' || err.code === 'EAI_NONAME' || err.code === 'ENODATA'
        ? `the host name ${name} does not resolve (${err.code})`
        : err.code === 'EAI_AGAIN'
          ? `the host name ${name} could not be resolved (EAI_AGAIN: DNS did not answer)`
          : undefined,
  );
  try {
    return await Promise.race([lookedUp, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs until the signal aborts (or the decoder cannot be loaded). */
export async function runZeromqDecoder(opts: ZeromqDecoderOptions): Promise<void> {
  const decode = await createDecoder(opts.decoder);
  if (opts.signal?.aborted) return;
  const sock = new Dealer({
    ...ZMQ_SOCKET_DEFAULTS,
    routingId: opts.routingId ?? `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`,
    linger: 1_000, // ms to deliver a last frame or 'bye' after close, while an analyzer is connected (see close)
    ...(opts.connect.startsWith('tcp://[') ? { ipv6: true } : {}),
    ...(opts.handshakeTimeoutMs === undefined ? {} : { handshakeInterval: opts.handshakeTimeoutMs }),
    ...(opts.key === undefined ? {} : { curvePublicKey: opts.key.publicKey, curveSecretKey: opts.key.secretKey, curveServerKey: opts.key.serverKey }),
  });
  // Whether an analyzer is at the other end: the ZMTP handshake is done and the connection has not dropped since.
  let connected = false;
  // Whether one ever was (then losing it is said, not that none was found at start-up).
  let found = false;
  // Nothing to say once stopping (the connection closes then by our own hand).
  const status = (message: string): void => {
    if (!opts.signal?.aborted) opts.onStatus?.(message);
  };
  // What the analyzer's refusal was last said as, in full: once until a connection is made (or the reason changes),
  // then only when the decoder tries again, while the delay still grows.
  let refusal: string | undefined;
  // Refusals in a row since the last connection made (or the start): the next retry waits REFUSED_RETRY_MS × 2^(n-1).
  let refusals = 0;
  // Whether the capped delay was said: said once, not every REFUSED_RETRY_MAX_MS for as long as the decoder runs.
  let saidCapped = false;
  // A broken pipe is also what this end sees when the daemon found a mismatch first: the next attempt (0.1 s later)
  // may say more, so it is said only if nothing clearer comes within UNCLEAR_REFUSAL_MS.
  let unclear: NodeJS.Timeout | undefined;
  // Whether a handshake that got no answer in time was said (once until a connection is made).
  let saidNoAnswer = false;
  sock.events.on('handshake', () => {
    connected = true;
    found = true;
    refusal = undefined;
    saidNoAnswer = false;
    refusals = 0;
    saidCapped = false;
    clearTimeout(unclear);
    unclear = undefined;
    status(`connected to the analyzer at ${opts.connect}; decoding its frames`);
  });
  // libzmq gives up on an endpoint for good after a protocol error or a refusal by the daemon's key check (it does
  // not reconnect as after a broken connection), so the decoder would stay cut off after the daemon is given the
  // right key and restarted; after a broken pipe in the handshake it reconnects every 0.1 s or so, for ever (about 7
  // handshakes a second at a daemon with another key). So after a refusal the decoder drops the endpoint and connects
  // again itself, later at each refusal in a row (see REFUSED_RETRY_MS): a misconfigured decoder host does not keep
  // the daemon busy. Returns the delay, or undefined when a retry is already waiting (one refusal, told twice).
  const retryMs = opts.refusedRetryMs ?? REFUSED_RETRY_MS;
  const retryMaxMs = Math.max(retryMs, opts.refusedRetryMaxMs ?? REFUSED_RETRY_MAX_MS);
  let retry: NodeJS.Timeout | undefined;
  const retryLater = (): { ms: number; capped: boolean } | undefined => {
    if (retry !== undefined || sock.closed || opts.signal?.aborted) return undefined;
    refusals++;
    const nominal = Math.min(retryMaxMs, retryMs * 2 ** Math.min(refusals - 1, 30));
    const ms = Math.round(nominal * (1 + REFUSED_RETRY_JITTER * (2 * Math.random() - 1)));
    // With linger, libzmq's session for the endpoint outlives the disconnect by that long, still reconnecting every
    // 0.1 s or so to deliver the queued 'ready' (worthless: no analyzer took it).
    const linger = sock.linger;
    sock.linger = 0;
    try {
      sock.disconnect(opts.connect);
    } catch {
      // libzmq has already dropped the endpoint
    }
    sock.linger = linger;
    retry = setTimeout(() => {
      retry = undefined;
      if (sock.closed || opts.signal?.aborted) return;
      sock.connect(opts.connect);
    }, ms);
    return { ms, capped: nominal >= retryMaxMs };
  };
  // A handshake that fails is a key problem: libzmq says 'auth' when the daemon's key check refused ours, 'protocol'
  // for one side with a key and the other without, and 'other' (a broken pipe) when we used another server key, or
  // when the daemon hung up first on finding one of those.
  // 'unclear': a broken pipe only, which a daemon with another key and one with none both cause (whichever end finds
  // the mismatch first hangs up), so its advice covers both.
  const refused = (why: 'auth' | 'mismatch' | 'unclear'): void => {
    clearTimeout(unclear);
    unclear = undefined;
    const noKeyThere = 'give the daemon this key file (zeromqKeyFile), or drop --key-file';
    const message =
      opts.key === undefined
        ? `the daemon at ${opts.connect} refused this decoder: it wants a key; give this decoder the daemon's key file (--key-file)`
        : why === 'mismatch'
          ? `the daemon at ${opts.connect} refused this decoder's key: it runs without one (no zeromqKeyFile); ${noKeyThere}`
          : why === 'auth'
            ? `the daemon at ${opts.connect} refused this decoder's key: give it the daemon's key file (--key-file)`
            : `the daemon at ${opts.connect} refused this decoder's key: give it the daemon's key file (--key-file); if the daemon runs without one, ${noKeyThere}`;
    // A broken pipe says less than what was said before (the reason is the same as at the last attempt).
    refusedAgain(why === 'unclear' && refusal !== undefined ? refusal : message);
  };
  const refusedAgain = (message: string): void => {
    const next = retryLater();
    if (next === undefined) return;
    const when = next.capped ? `trying again every ${seconds(retryMaxMs)} or so` : `trying again in ${seconds(next.ms)}`;
    if (message !== refusal) {
      refusal = message;
      saidCapped = next.capped;
      status(`${message}; ${when}`);
    } else if (!saidCapped) {
      saidCapped = next.capped;
      status(`the daemon at ${opts.connect} still refuses this decoder (${refusals} attempts); ${when}`);
    }
  };
  sock.events.on('handshake:error:auth', () => refused('auth'));
  sock.events.on('handshake:error:protocol', (ev) => refused(ev.error.code === 'ERR_ZMTP_MECHANISM_MISMATCH' ? 'mismatch' : 'auth'));
  sock.events.on('handshake:error:other', (ev) => {
    // A handshake that got no answer within the handshake interval (libzmq gives EAGAIN) is a daemon that is hung,
    // stopped or swamped, or something other than a daemon at that port: not a refusal (a daemon that refuses
    // answers or hangs up at once). libzmq tries again by itself, each attempt taking that long.
    if (ev.error.code === 'EAGAIN' || ev.error.code === 'ETIMEDOUT') {
      if (!saidNoAnswer) {
        saidNoAnswer = true;
        status(`the analyzer at ${opts.connect} took the connection but did not answer the handshake in time (a daemon that is hung or overloaded, or something other than a daemon at that port); still trying`);
      }
      return;
    }
    // Once refused, a broken pipe is the retry refused again: libzmq would try again in 0.1 s, the decoder later.
    if (refusal !== undefined) refused('unclear');
    else if (unclear === undefined) {
      unclear = setTimeout(() => refused('unclear'), UNCLEAR_REFUSAL_MS);
      unclear.unref();
    }
  });
  sock.events.on('disconnect', () => {
    // A connection refused during its handshake was never the analyzer's (its refusal is said above).
    if (!connected) return;
    connected = false;
    status(`lost the analyzer at ${opts.connect}; waiting for it to come back`);
  });
  const noAnalyzerMs = opts.noAnalyzerMs ?? NO_ANALYZER_MS;
  const lonely = setTimeout(() => {
    // A refusal already said why; an analyzer found and lost since was said to be lost (see 'disconnect').
    if (found || refusal !== undefined) return;
    void unresolvedHost(opts.connect).then((why) => {
      if (found || refusal !== undefined) return;
      const what = `no analyzer at ${opts.connect} after ${noAnalyzerMs / 1000} s`;
      // libzmq retries a name that does not resolve without a word: said as such, not as a daemon or port missing.
      if (why !== undefined) status(`${what}: ${why}; check the daemon's host name (as this machine resolves it), or give its address; still trying`);
      else status(`${what}; check that a daemon runs there with "channel": "zeromq" and that endpoint (its log names it), and that the port is open`);
    });
  }, noAnalyzerMs);
  lonely.unref();
  const close = (): void => {
    // With no analyzer connected, what is queued ('ready', 'bye', a frame) is worthless: the analyzer it was for
    // lost the connection (it can no longer route a job here, and drops a job it held after decodeTimeoutMs), and
    // one that comes back hands work to the decoders that announce themselves then. Lingering for it would only
    // hold up the exit, with zeromq printing "Waiting for queued ZeroMQ messages to be delivered" after 500 ms.
    if (!connected) sock.linger = 0;
    sock.close();
  };
  let sending = false;
  // The send under way, if any: a socket takes one at a time.
  let inFlight: Promise<void> | undefined;
  // Set at Ctrl-C: from then on only the goodbye goes out. A frame or 'ready' sent after it reached the daemon as
  // a decoder joining again (and the daemon had already dropped that frame at the goodbye).
  let stopping = false;
  const send = async (msg: ZmqFromDecoder, pixels?: Uint8Array): Promise<void> => {
    if (stopping && msg.type !== 'bye') return;
    sending = true;
    const sent = sock.send(pixels ? [JSON.stringify(msg), pixels] : [JSON.stringify(msg)]);
    inFlight = sent.catch(() => {});
    try {
      await sent;
    } finally {
      sending = false;
    }
  };
  const ready: ZmqFromDecoder = { type: 'ready', decoder: opts.decoder, pid: process.pid, host: hostname() };
  const onAbort = (): void => {
    // Tell the analyzer not to wait for us, then stop; close() ends the loop below. Sends held up (a frame on its
    // way, the 'ready's announced behind it) are let go first, and the goodbye waits for room, all for up to
    // BYE_WAIT_MS: skipping it then (as before) had the daemon log "went away: its connection closed without a
    // goodbye" for a plain Ctrl-C. With no analyzer connected there is no one to tell: stopped at once.
    stopping = true;
    if (!connected) return close();
    let waited: NodeJS.Timeout | undefined;
    const goodbye = (async (): Promise<void> => {
      while (sending && inFlight !== undefined) await inFlight;
      if (sock.closed) return;
      await send({ type: 'bye' });
      // Connected a moment longer, jobs ignored, so that the daemon reads the goodbye before the connection closes:
      // a job it sent meanwhile to a closed connection failed ("cannot send to remote decoder …: it is no longer
      // connected … forgetting it", a warning for a plain Ctrl-C) and the goodbye then went unheard.
      await new Promise((r) => setTimeout(r, BYE_GRACE_MS));
    })();
    void Promise.race([goodbye, new Promise<void>((r) => (waited = setTimeout(r, BYE_WAIT_MS)))])
      .catch(() => {})
      .finally(() => {
        clearTimeout(waited);
        close();
      });
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let busy = false;
  const announce = setInterval(() => {
    // Only a send that cannot wait: a receive is pending now, and a zeromq.js socket that waits to send
    // while it also waits to receive can miss its wake-up (seen in the benchmark's stress runs).
    if (!busy && !sending && !sock.closed && sock.writable) send(ready).catch(() => {});
  }, opts.announceIntervalMs ?? 1_000);
  try {
    sock.connect(opts.connect);
    await send(ready);
    for await (const parts of sock) {
      busy = true;
      await handle(parts);
      busy = false;
    }
  } catch (err) {
    if (!sock.closed) throw err;
  } finally {
    clearInterval(announce);
    clearTimeout(lonely);
    clearTimeout(unclear);
    clearTimeout(retry);
    opts.signal?.removeEventListener('abort', onAbort);
    if (!sock.closed) close();
  }

  async function handle(parts: Buffer[]): Promise<void> {
    if (stopping) return; // a job sent before the daemon read the goodbye: it has dropped that frame already
    let job: ZmqDecodeJob;
    try {
      const raw = JSON.parse(parts[0]!.toString('utf8')) as ZmqDecodeJob;
      if (raw.type !== 'decode' || typeof raw.job !== 'number' || parts.length !== 2) throw new Error('not a decode job');
      // An analyzer from before decodeScale sends no scale: it expects full frames.
      const scale = raw.req.scale ?? 1;
      if (!isDecodeScale(scale)) throw new Error(`decode scale ${JSON.stringify(scale)} is not one of ${DECODE_SCALES.join(', ')}`);
      job = { ...raw, req: { ...raw.req, scale } };
    } catch (err) {
      process.emitWarning(`zeromq decoder: ignoring a malformed message from the analyzer (${(err as Error).message})`);
      await send(ready);
      return;
    }
    const out = await decodeToFrame(job.req, parts[1]!, decode);
    try {
      if (out.type === 'frame') {
        // Zero-copy send: zeromq keeps a reference to the pixels until they are on the wire. Both decoders
        // return a fresh buffer per frame and nothing here writes it again.
        const pixels = asBuffer(out.pixels);
        await send({ type: 'frame', job: job.job, header: out.header }, pixels);
      } else {
        await send({ type: 'decode-error', job: job.job, failure: out.failure });
      }
    } catch (err) {
      // The frame did not go out: the analyzer still gets an answer for the job, unless we are stopping.
      if (sock.closed) return;
      await send({ type: 'decode-error', job: job.job, failure: decodeFailure(job.req, err) });
    }
  }
}
