// A remote decoder refused by the daemon (no key, another key) connects again later at each refusal in a row, up to
// a cap, and says when; once a connection works it is back to the fast retry. It used to connect again every second
// for as long as it ran (and ~7 times a second where the refusal came as a broken pipe).
// The daemons here are plain TCP servers: one that answers every connection with a ZMTP greeting asking for CURVE (as a
// daemon with a key file does: a decoder without a key is refused at once), and one that hangs up at once (a broken
// pipe in the handshake, as a decoder with another key file mostly sees).
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { runZeromqDecoder } from '../dist/src/decode/zeromq-decoder.js';

async function waitFor(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The ZMTP 3.0 greeting of a CURVE server: a NULL client (no key) finds the mechanisms mismatched and gives up. */
const CURVE_GREETING = Buffer.alloc(64);
CURVE_GREETING[0] = 0xff;
CURVE_GREETING[9] = 0x7f;
CURVE_GREETING[10] = 3;
CURVE_GREETING.write('CURVE', 12, 'latin1');
CURVE_GREETING[32] = 1;

/** A refusing "daemon" on 127.0.0.1 (port 0: a free one); `accepts` gets the time of each connection. */
async function refusingDaemon(how: 'curve' | 'hang-up' | 'silent', port = 0): Promise<{ endpoint: string; port: number; accepts: number[]; close: () => Promise<void> }> {
  const accepts: number[] = [];
  const open = new Set<Socket>();
  const server: Server = createServer((c) => {
    accepts.push(Date.now());
    open.add(c);
    c.on('close', () => open.delete(c));
    c.on('error', () => {});
    if (how === 'curve') c.write(CURVE_GREETING);
    else if (how === 'hang-up') c.destroy();
  });
  // A port just given up by a ZeromqChannel is free a moment after its close() resolved (libzmq unbinds on its own thread).
  for (let tries = 0; ; tries++) {
    try {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries === 50) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const bound = (server.address() as AddressInfo).port;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    const done = new Promise<void>((r) => server.close(() => r()));
    for (const c of open) c.destroy();
    await done;
  };
  onTestFinished(close);
  return { endpoint: `tcp://127.0.0.1:${bound}`, port: bound, accepts, close };
}

/** Starts a decoder that pushes its status lines to `status` and their times to `statusAt`. */
function startDecoder(connect: string, status: string[], statusAt: number[] = [], key?: { publicKey: string; secretKey: string; serverKey: string }): void {
  const ac = new AbortController();
  const onStatus = (m: string): void => {
    status.push(m);
    statusAt.push(Date.now());
  };
  // 0.1 s doubling to 0.4 s here (1 s to 30 s by default).
  const running = runZeromqDecoder({ connect, decoder: 'jpeg-js', signal: ac.signal, refusedRetryMs: 100, refusedRetryMaxMs: 400, onStatus, ...(key ? { key } : {}) });
  onTestFinished(async () => {
    ac.abort();
    await running;
  });
}

const gaps = (t: readonly number[]): number[] => t.slice(1).map((x, i) => x - t[i]!);

/** Delays 0.1, 0.2 s, then 0.4 s each, ±20% (and some scheduling slack). */
function expectBackOff(g: readonly number[]): void {
  expect(g.length).toBeGreaterThanOrEqual(5);
  expect(g[0]).toBeGreaterThanOrEqual(75);
  expect(g[0]).toBeLessThan(250);
  expect(g[1]).toBeGreaterThanOrEqual(155);
  expect(g[1]).toBeLessThan(400);
  for (const x of g.slice(2)) {
    expect(x).toBeGreaterThanOrEqual(315);
    expect(x).toBeLessThan(700);
  }
}

test('a decoder refused at once (no key at a daemon with one) backs off: 0.1, 0.2, then every 0.4 s, and says when', async () => {
  const daemon = await refusingDaemon('curve');
  const status: string[] = [];
  startDecoder(daemon.endpoint, status);
  await new Promise((r) => setTimeout(r, 2_700));
  // Was one attempt a second whatever the settings: 3 in 2.7 s, 1 s apart.
  expectBackOff(gaps(daemon.accepts));
  const refused = `the daemon at ${daemon.endpoint} refused this decoder: it wants a key; give this decoder the daemon's key file (--key-file)`;
  // Said in full once, then at each retry while the delay grows, then once that it stays at the cap: not every 0.4 s.
  expect(status).toEqual([
    expect.stringMatching(new RegExp(`^${refused.replace(/[.()]/g, '\\$&')}; trying again in 0\\.1 s$`)),
    expect.stringMatching(new RegExp(`^the daemon at ${daemon.endpoint.replace(/\./g, '\\.')} still refuses this decoder \\(2 attempts\\); trying again in 0\\.2 s$`)),
    `the daemon at ${daemon.endpoint} still refuses this decoder (3 attempts); trying again every 0.4 s or so`,
  ]);
});

test('a decoder whose handshakes end in a broken pipe backs off too, after its first half second', async () => {
  const daemon = await refusingDaemon('hang-up');
  const status: string[] = [];
  const statusAt: number[] = [];
  startDecoder(daemon.endpoint, status, statusAt, { publicKey: 'x'.repeat(40), secretKey: 'y'.repeat(40), serverKey: 'z'.repeat(40) });
  await waitFor('the refusal', () => status.length > 0);
  // libzmq tries again by itself every 0.1-0.2 s until the refusal is said (UNCLEAR_REFUSAL_MS), then the decoder does,
  // from when it said so. Was every 0.1-0.2 s for as long as it ran.
  expect(daemon.accepts.length).toBeLessThanOrEqual(8);
  await new Promise((r) => setTimeout(r, 2_600));
  const said = statusAt[0]!;
  expectBackOff(gaps([said, ...daemon.accepts.filter((t) => t > said + 40)]));
  expect(status[0]).toMatch(/refused this decoder's key: give it the daemon's key file \(--key-file\); if the daemon runs without one, give the daemon this key file \(zeromqKeyFile\), or drop --key-file; trying again in 0\.1 s$/);
});

test('a decoder refused, then let in, is refused again at the fast retry, not at the delay it had reached', async () => {
  const daemon = await refusingDaemon('curve');
  const status: string[] = [];
  startDecoder(daemon.endpoint, status);
  await waitFor('the delay to reach its cap', () => status.some((m) => m.includes('every 0.4 s')));
  // The daemon restarted without a key (a loopback endpoint needs none): the decoder gets in.
  await daemon.close();
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: daemon.endpoint });
  onTestFinished(() => ch.close(100));
  await ch.start();
  await waitFor('the decoder to connect', () => ch.decoderCount === 1);
  // And restarted with one again.
  await ch.close(100);
  const again = await refusingDaemon('curve', daemon.port);
  const connected = status.indexOf(`connected to the analyzer at ${daemon.endpoint}; decoding its frames`);
  expect(connected).toBe(3);
  await waitFor('the refusal', () => status.length >= connected + 3, 5_000);
  expect(status.slice(connected + 1, connected + 3)).toEqual([
    `lost the analyzer at ${daemon.endpoint}; waiting for it to come back`,
    expect.stringMatching(/it wants a key; give this decoder the daemon's key file \(--key-file\); trying again in 0\.1 s$/),
  ]);
  await new Promise((r) => setTimeout(r, 2_000));
  expectBackOff(gaps(again.accepts));
});

test('a daemon that takes the connection but does not answer the handshake (hung) is not said to refuse the key', async () => {
  // As a daemon stopped with SIGSTOP (or swamped) does: the kernel takes the connection, nothing answers. The handshake
  // times out (0.3 s here, 30 s by default) and libzmq tries again by itself; it was said to be a key refusal ("it
  // wants a key", to a keyless decoder at a keyless daemon that had just been decoding its frames) and backed off.
  const daemon = await refusingDaemon('silent');
  const status: string[] = [];
  const ac = new AbortController();
  const running = runZeromqDecoder({ connect: daemon.endpoint, decoder: 'jpeg-js', signal: ac.signal, refusedRetryMs: 100, refusedRetryMaxMs: 400, handshakeTimeoutMs: 300, onStatus: (m) => status.push(m) });
  onTestFinished(async () => {
    ac.abort();
    await running;
  });
  await new Promise((r) => setTimeout(r, 2_500));
  expect(status).toEqual([
    `the analyzer at ${daemon.endpoint} took the connection but did not answer the handshake in time (a daemon that is hung or overloaded, or something other than a daemon at that port); still trying`,
  ]);
  // One attempt per handshake timeout (0.3 s, then libzmq's 0.1 s reconnect interval), none cut short.
  expect(daemon.accepts.length).toBeGreaterThanOrEqual(4);
});
