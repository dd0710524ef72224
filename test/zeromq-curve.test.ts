// The zeromq channel's key (CURVE): with zeromqKeyFile, only decoders holding a copy of the key file get work; a
// decoder with another key is told that the daemon refused it; a non-loopback tcp:// endpoint needs a key.
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { ZeromqChannel } from '../dist/src/channel/zeromq-channel.js';
import { readZeromqKeyFile, writeZeromqKeyFile, isLoopbackTcp } from '../dist/src/channel/zeromq-key.js';
import { runZeromqDecoder } from '../dist/src/decode/zeromq-decoder.js';
import { ZapHandler } from '../dist/src/channel/zeromq-zap.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { LIMITS, makeJpeg, sha1 } from './helpers/jpeg-fixtures.js';
import { CLI, runCli, startCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';
import { warnings } from './helpers/warnings.js';

async function waitFor(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A channel on tcp://127.0.0.1:0 with a new key file, no local decoder; and the file. */
async function keyedChannel(decoders = 0, endpoint = 'tcp://127.0.0.1:0'): Promise<{ ch: ZeromqChannel; keyFile: string }> {
  const keyFile = join(tempDir(), 'daemon.key');
  await writeZeromqKeyFile(keyFile);
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders, decoder: 'jpeg-js', endpoint, keyFile });
  onTestFinished(() => ch.close());
  await ch.start();
  return { ch, keyFile };
}

const small = makeJpeg(160, 90, 0);
const submit = (ch: ZeromqChannel, seq: number): void => ch.submit({ cameraId: 'cam', seq, capturedAt: seq, jpeg: small.jpeg }, LIMITS);

test('frames are decoded by a remote `decoder --key-file` holding the daemon key file', async () => {
  const { ch, keyFile } = await keyedChannel();
  const dec = startCli(['decoder', '--connect', ch.endpoint, '--key-file', keyFile]);
  await waitFor('the decoder to connect', () => ch.decoderCount === 1);
  for (let seq = 0; seq < 3; seq++) {
    submit(ch, seq);
    const out = await ch.next();
    expect(out?.kind === 'frame' && [out.frame.seq, sha1(out.frame.data)]).toEqual([seq, small.sha1]);
  }
  expect(dec.stderr()).toContain(`connected to the analyzer at ${ch.endpoint}`);
});

test('local decoders of a daemon with a key get the key file path on their command line, never the key', async () => {
  const { ch, keyFile } = await keyedChannel(1);
  submit(ch, 0);
  const out = await ch.next();
  expect(out?.kind === 'frame' && sha1(out.frame.data)).toBe(small.sha1);
  const key = readZeromqKeyFile(keyFile, 'test');
  for (const pid of ch.decoderPids()) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    expect(cmdline).toContain(keyFile);
    for (const text of [cmdline, environ]) {
      expect(text).not.toContain(key.secretKey);
      expect(text).not.toContain(key.publicKey);
    }
  }
});

/** Whether this machine has IPv6 loopback (a container may not). */
async function hasIpv6Loopback(): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(0, '::1', () => srv.close(() => resolve(true)));
  });
}

test('an IPv6 loopback endpoint (tcp://[::1]:0, as the loopback rule allows without a key) delivers frames, keyed too', async (ctx) => {
  if (!(await hasIpv6Loopback())) ctx.skip();
  // Before, libzmq refused to bind it ("No such device"): its sockets leave IPv6 off unless asked.
  const { ch } = await keyedChannel(1, 'tcp://[::1]:0');
  expect(ch.endpoint).toMatch(/^tcp:\/\/\[::1\]:\d+$/);
  submit(ch, 0);
  const out = await ch.next();
  expect(out?.kind === 'frame' && out.frame.seq).toBe(0);
  const open = new ZeromqChannel({ maxInFlight: 4, decoders: 1, decoder: 'jpeg-js', endpoint: 'tcp://[::1]:0' });
  onTestFinished(() => open.close());
  await open.start();
  submit(open, 1);
  const plain = await open.next();
  expect(plain?.kind === 'frame' && plain.frame.seq).toBe(1);
});

test('a decoder with another key file gets no job and says that the daemon refused its key', async () => {
  const { ch } = await keyedChannel();
  const seen = warnings();
  const otherKey = join(tempDir(), 'other.key');
  await writeZeromqKeyFile(otherKey);
  const dec = startCli(['decoder', '--connect', ch.endpoint, '--key-file', otherKey]);
  await waitFor('the refusal', () => dec.stderr().includes('refused'));
  expect(dec.stderr()).toContain(`the daemon at ${ch.endpoint} refused this decoder's key: give it the daemon's key file (--key-file)`);
  expect(dec.stderr()).not.toMatch(/connected to the analyzer|lost the analyzer/);
  submit(ch, 0);
  await new Promise((r) => setTimeout(r, 1_000));
  expect(ch.decoderCount).toBe(0);
  expect(ch.stats().delivered).toBe(0);
  expect(seen.join('\n')).toMatch(/refused a peer on tcp:\/\/127\.0\.0\.1:\d+ whose key file is not this daemon's|hung up during the handshake/);
});

test("a decoder that knows the daemon's public key but has a key pair of its own is refused by the key check", async () => {
  // What the ZAP handler is for: without it, libzmq lets in any client key pair once the server's key is right.
  const { ch, keyFile } = await keyedChannel();
  const seen = warnings();
  const daemonKey = readZeromqKeyFile(keyFile, 'test');
  const otherFile = join(tempDir(), 'other.key');
  const own = await writeZeromqKeyFile(otherFile);
  const ac = new AbortController();
  const status: string[] = [];
  const running = runZeromqDecoder({ connect: ch.endpoint, decoder: 'jpeg-js', signal: ac.signal, key: { ...own, serverKey: daemonKey.publicKey }, onStatus: (m) => status.push(m) });
  onTestFinished(async () => {
    ac.abort();
    await running;
  });
  await waitFor('the refusal', () => status.length > 0);
  // With when it tries again: 1 s ±20% after a first refusal.
  expect(status).toEqual([`the daemon at ${ch.endpoint} refused this decoder's key: give it the daemon's key file (--key-file); trying again in ${status[0]!.slice(-5)}`]);
  expect(status[0]!.slice(-5)).toMatch(/^(0\.[89]|1\.[012]) s$/);
  submit(ch, 0);
  await new Promise((r) => setTimeout(r, 1_000));
  expect(ch.decoderCount).toBe(0);
  // The daemon names the refused peer's address.
  expect(seen).toContainEqual(expect.stringMatching(/^zeromq channel: refused a decoder from 127\.0\.0\.1 on tcp:\/\/127\.0\.0\.1:\d+: it presented a key that is not this daemon's/));
});

test('a DEALER without CURVE gets nothing, and `decoder` without --key-file says the daemon wants a key', async () => {
  const { ch } = await keyedChannel();
  const { Dealer } = await import('zeromq');
  const rogue = new Dealer({ linger: 0, receiveTimeout: 1_000 });
  onTestFinished(() => rogue.close());
  rogue.connect(ch.endpoint);
  rogue.send([JSON.stringify({ type: 'ready', decoder: 'jpeg-js', pid: 1, host: 'rogue' })]).catch(() => {});
  submit(ch, 0);
  await expect(rogue.receive()).rejects.toThrow();
  expect(ch.decoderCount).toBe(0);
  const dec = startCli(['decoder', '--connect', ch.endpoint]);
  await waitFor('the refusal', () => dec.stderr().includes('refused'));
  expect(dec.stderr()).toContain(`the daemon at ${ch.endpoint} refused this decoder: it wants a key; give this decoder the daemon's key file (--key-file)`);
  expect(ch.decoderCount).toBe(0);
});

test('a decoder with a key file at a daemon without one is told so, and gets no job', async () => {
  const ch = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  onTestFinished(() => ch.close());
  await ch.start();
  const keyFile = join(tempDir(), 'decoder.key');
  await writeZeromqKeyFile(keyFile);
  const dec = startCli(['decoder', '--connect', ch.endpoint, '--key-file', keyFile]);
  await waitFor('the refusal', () => dec.stderr().includes('refused'));
  // Said as a mismatch when libzmq tells this end so; when the daemon hung up first (a broken pipe only, which a daemon
  // with another key causes too), the advice covers both.
  expect(dec.stderr()).toMatch(
    new RegExp(`the daemon at ${ch.endpoint.replace(/\./g, '\\.')} refused this decoder's key: (it runs without one \\(no zeromqKeyFile\\);|give it the daemon's key file \\(--key-file\\); if the daemon runs without one,) give the daemon`),
  );
  expect(dec.stderr()).toContain('give the daemon this key file (zeromqKeyFile), or drop --key-file');
  expect(ch.decoderCount).toBe(0);
});

test('a decoder refused for its key, again and again, is one warning in the daemon\'s log, naming the fix, not two', async () => {
  // Without the key it was said twice at once, by turns: "refused a peer … that has no key …" when the daemon found
  // it, and "a peer … hung up during the handshake (Broken pipe): …" when the decoder hung up first.
  for (const withKey of [false, true]) {
    const { ch, keyFile } = await keyedChannel();
    const seen = warnings();
    const otherKey = join(tempDir(), `other-${withKey}.key`);
    if (withKey) await writeZeromqKeyFile(otherKey);
    // Two such decoders, each trying again after about 1 s and 2 s: six refused handshakes.
    const decs = [0, 1].map(() => startCli(['decoder', '--connect', ch.endpoint, ...(withKey ? ['--key-file', otherKey] : [])]));
    await waitFor('the decoders to try three times', () => decs.every((d) => d.stderr().includes('(3 attempts)')));
    for (const d of decs) d.proc.kill();
    await new Promise((r) => setTimeout(r, 2_500)); // past the wait for a refusal that explains a hang-up
    const lines = seen.filter((w) => w.includes(ch.endpoint));
    const noKey = [
      `zeromq channel: refused a peer on ${ch.endpoint} that has no key (a decoder without --key-file?): this endpoint needs the key file ${keyFile}; give the decoder a copy of it (--key-file)`,
      `zeromq channel: a peer on ${ch.endpoint} hung up during the handshake (Broken pipe): most likely a decoder without this daemon's key file (${keyFile}) or with another one; give it a copy of that file (--key-file)`,
    ];
    const otherFile = `zeromq channel: refused a peer on ${ch.endpoint} whose key file is not this daemon's (${keyFile}); give it a copy of that file (--key-file)`;
    expect(lines, lines.join('\n')).toHaveLength(1);
    if (withKey) expect(lines[0]).toBe(otherFile);
    else expect(noKey).toContain(lines[0]);
    await ch.close();
  }
});

test('a flood of peers without the key neither stops a decoder with it nor floods the log', async () => {
  const { ch, keyFile } = await keyedChannel();
  const seen = warnings();
  const { Dealer } = await import('zeromq');
  const other = await writeZeromqKeyFile(join(tempDir(), 'other.key'));
  // 20 peers with no key and 20 with another key file, each reconnecting every 0.1 s (libzmq's default).
  for (let i = 0; i < 40; i++) {
    const d = new Dealer({ linger: 0, ...(i % 2 === 0 ? {} : { curvePublicKey: other.publicKey, curveSecretKey: other.secretKey, curveServerKey: other.publicKey }) });
    onTestFinished(() => d.close());
    d.connect(ch.endpoint);
  }
  const dec = startCli(['decoder', '--connect', ch.endpoint, '--key-file', keyFile]);
  onTestFinished(() => void dec.proc.kill());
  await waitFor('the decoder to connect', () => ch.decoderCount === 1);
  for (let seq = 0; seq < 20; seq++) {
    submit(ch, seq);
    const out = await ch.next();
    expect(out?.kind === 'frame' && out.frame.seq).toBe(seq);
  }
  await new Promise((r) => setTimeout(r, 1_000));
  const refusals = seen.filter((w) => /refused a peer|hung up during the handshake/.test(w));
  // Hundreds of refused handshakes by now; each cause is said once, then at every 100th (see RepeatLog).
  expect(refusals.length).toBeGreaterThan(0);
  expect(refusals.length).toBeLessThan(20);
});

test('a tcp:// endpoint other than loopback needs a key file', () => {
  const fix = /zeromqKeyFile is not set; create a key file with `traffic-counter zeromq-key FILE`, set zeromqKeyFile \(--zeromq-key-file\) to it/;
  for (const endpoint of ['tcp://0.0.0.0:5555', 'tcp://*:0', 'tcp://192.0.2.7:5555', 'tcp://eth0:5555', 'tcp://[::]:5555']) {
    expect(isLoopbackTcp(endpoint)).toBe(false);
    expect(() => new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint })).toThrow(fix);
  }
  for (const endpoint of ['tcp://127.0.0.1:0', 'tcp://127.1.2.3:5555', 'tcp://localhost:5555', 'tcp://[::1]:5555']) expect(isLoopbackTcp(endpoint)).toBe(true);
  expect(isLoopbackTcp('tcp://128.0.0.1:5')).toBe(false);
  // The config only names the file: a config file is checked before the flags that may give its key.
  const camera = { id: 'cam', url: 'http://127.0.0.1:1/s.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] };
  expect(validateConfig({ cameras: [camera], channel: 'zeromq', zeromqEndpoint: 'tcp://0.0.0.0:0', zeromqKeyFile: '/etc/tc/zeromq.key' }).zeromqKeyFile).toBe('/etc/tc/zeromq.key');
  expect(() => validateConfig({ cameras: [camera], zeromqKeyFile: 5 })).toThrow('zeromqKeyFile: must be the path of a key file written by `traffic-counter zeromq-key FILE`, got 5');
});

test('`run` refuses a non-loopback tcp:// endpoint without a key, naming the fix, and starts with --zeromq-key-file', async () => {
  const dir = tempDir();
  const config = join(dir, 'config.json');
  const camera = { id: 'cam', url: 'http://127.0.0.1:1/s.jpg', roi: [[0, 0], [100, 0], [100, 100], [0, 100]], lines: [{ id: 'l', from: [0, 50], to: [100, 50] }] };
  writeFileSync(config, JSON.stringify({ cameras: [camera], channel: 'zeromq', zeromqEndpoint: 'tcp://0.0.0.0:0', db: join(dir, 'counts.db') }));
  const r = await runCli(['run', '--config', config, '--duration', '1']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('zeromqEndpoint: "tcp://0.0.0.0:0" lets any machine that reaches it in as a decoder');
  expect(r.stderr).toContain('`traffic-counter zeromq-key FILE`');
  const keyFile = join(dir, 'zeromq.key');
  await writeZeromqKeyFile(keyFile);
  const ok = await runCli(['run', '--config', config, '--zeromq-key-file', keyFile, '--duration', '1']);
  expect(ok.stderr).toMatch(/decoders connect to tcp:\/\/HOST:\d+ with --key-file and a copy of .*; HOST: this machine's name/);
  expect(ok.code).toBe(0);
});

test('`zeromq-key FILE` writes a key file with mode 0600 and refuses to overwrite one', async () => {
  const file = join(tempDir(), 'zeromq.key');
  const a = await runCli(['zeromq-key', file]);
  expect(a.code).toBe(0);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const key = readZeromqKeyFile(file, 'zeromqKeyFile');
  expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object)).toEqual(['publicKey', 'secretKey']);
  const b = await runCli(['zeromq-key', file]);
  expect(b.code).toBe(2);
  expect(b.stderr).toContain(`${file}: exists; not overwritten`);
  expect(readZeromqKeyFile(file, 'zeromqKeyFile')).toEqual(key);
  // 0600 whatever the umask (0277 left 0400 while it said 0600).
  const strict = join(tempDir(), 'strict.key');
  execFileSync('sh', ['-c', 'umask 277; exec "$0" "$1" zeromq-key "$2" 2>/dev/null', process.execPath, CLI, strict]);
  expect(statSync(strict).mode & 0o777).toBe(0o600);
  // A directory that does not exist is named.
  const c = await runCli(['zeromq-key', join(tempDir(), 'no-such-dir', 'k.key')]);
  expect(c.code).toBe(2);
  expect(c.stderr).toMatch(/cannot create the file: the directory \S+no-such-dir does not exist; create it first/);
});

test('a key file that is missing, open to others or malformed is refused, naming the file and the fix', async () => {
  const dir = tempDir();
  const file = join(dir, 'zeromq.key');
  expect(() => readZeromqKeyFile(file, 'zeromqKeyFile')).toThrow(`zeromqKeyFile ${file}: no such file; create it with \`traffic-counter zeromq-key ${file}\``);
  // A decoder told to make a key of its own was then refused by the daemon for it: it is told to copy the daemon's.
  expect(() => readZeromqKeyFile(file, '--key-file')).toThrow(
    `--key-file ${file}: no such file; copy the daemon's key file (its zeromqKeyFile) here, keeping its mode (scp -p); a new one made with \`traffic-counter zeromq-key FILE\` would be refused by the daemon`,
  );
  const key = await writeZeromqKeyFile(file);
  chmodSync(file, 0o644);
  expect(() => readZeromqKeyFile(file, '--key-file')).toThrow(`--key-file ${file}: readable or writable by group or others (mode 0644); it holds a secret key: run \`chmod 600 ${file}\``);
  const bad = (content: string): string => {
    writeFileSync(file, content, { mode: 0o600 });
    chmodSync(file, 0o600);
    try {
      readZeromqKeyFile(file, 'zeromqKeyFile');
    } catch (err) {
      expect((err as { code: string }).code).toBe('TC_ERR_CONFIG');
      return (err as Error).message;
    }
    throw new Error('accepted');
  };
  const other = await writeZeromqKeyFile(join(dir, 'other.key'));
  const cases: [string, string][] = [
    ['not json', 'not valid JSON'],
    ['[]', 'not a JSON object'],
    [JSON.stringify({ publicKey: key.publicKey }), 'secretKey must be 40 characters of Z85'],
    [JSON.stringify({ publicKey: key.publicKey.slice(1), secretKey: key.secretKey }), 'publicKey must be 40 characters of Z85'],
    [JSON.stringify({ ...key, comment: 'x' }), 'unknown key "comment"'],
    [JSON.stringify({ publicKey: other.publicKey, secretKey: key.secretKey }), 'publicKey is not the public key of secretKey'],
  ];
  for (const [content, why] of cases) {
    const msg = bad(content);
    expect(msg).toContain(`zeromqKeyFile ${file}: not a zeromq key file (${why})`);
    expect(msg).toContain('traffic-counter zeromq-key FILE');
    expect(msg).not.toContain(key.secretKey);
  }
  // The CLI: exit 2 before connecting.
  chmodSync(file, 0o640);
  const r = await runCli(['decoder', '--connect', 'tcp://127.0.0.1:1', '--key-file', file]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`run \`chmod 600 ${file}\``);
});

test('with no key check (ZAP handler) bound, a client with a key pair of its own is refused, not let in', async () => {
  // libzmq's CURVE server lets in any client that knows its public key when no ZAP handler is bound in its context,
  // unless zapEnforceDomain is set: the channel must fail closed if its handler is ever missing.
  const start = ZapHandler.start;
  (ZapHandler as unknown as { start: unknown }).start = async () => ({ close: async () => {} });
  onTestFinished(() => void ((ZapHandler as unknown as { start: unknown }).start = start));
  const { ch, keyFile } = await keyedChannel();
  const daemonKey = readZeromqKeyFile(keyFile, 'test');
  const own = await writeZeromqKeyFile(join(tempDir(), 'own.key'));
  const ac = new AbortController();
  const running = runZeromqDecoder({ connect: ch.endpoint, decoder: 'jpeg-js', signal: ac.signal, key: { ...own, serverKey: daemonKey.publicKey } });
  onTestFinished(async () => {
    ac.abort();
    await running;
  });
  await new Promise((r) => setTimeout(r, 1_500));
  expect(ch.decoderCount).toBe(0);
});

test('a decoder refused by a daemon without a key connects once that daemon is restarted with its key file', async () => {
  // libzmq does not retry an endpoint after a mechanism mismatch or a refusal by the key check.
  const keyless = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint: 'tcp://127.0.0.1:0' });
  await keyless.start();
  const endpoint = keyless.endpoint;
  const keyFile = join(tempDir(), 'daemon.key');
  await writeZeromqKeyFile(keyFile);
  const dec = startCli(['decoder', '--connect', endpoint, '--key-file', keyFile]);
  onTestFinished(() => void dec.proc.kill());
  await waitFor('the refusal', () => dec.stderr().includes('refused'));
  await keyless.close();
  // The same port again: libzmq lets go of it in its own thread after close, later on a loaded machine (CI beside
  // other work: "Address already in use"), so the bind is tried again for a few seconds.
  let ch: ZeromqChannel | undefined;
  for (const end = Date.now() + 5_000; !ch; ) {
    const next = new ZeromqChannel({ maxInFlight: 4, decoders: 0, decoder: 'jpeg-js', endpoint, keyFile });
    try {
      await next.start();
      ch = next;
    } catch (err) {
      await next.close().catch(() => {});
      if (!/Address already in use/.test(String(err)) || Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const started = ch;
  onTestFinished(() => started.close());
  await waitFor('the decoder to connect', () => started.decoderCount === 1, 10_000);
  submit(started, 0);
  const out = await started.next();
  expect(out?.kind === 'frame' && sha1(out.frame.data)).toBe(small.sha1);
  expect(dec.stderr()).toContain(`connected to the analyzer at ${endpoint}`);
});

test('thousands of refused handshakes a second make a line per kind of refusal, not one per 100', async () => {
  const { ch } = await keyedChannel();
  const seen = warnings();
  const { Dealer } = await import('zeromq');
  const end = Date.now() + 3_000;
  let made = 0;
  await Promise.all(
    Array.from({ length: 40 }, async () => {
      while (Date.now() < end) {
        const d = new Dealer({ linger: 0 });
        d.connect(ch.endpoint);
        made++;
        await new Promise((r) => setTimeout(r, 20));
        d.close();
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  const refusals = seen.filter((w) => /refused a peer|hung up during the handshake/.test(w));
  expect(made).toBeGreaterThan(1_000);
  expect(refusals.length).toBeGreaterThan(0);
  expect(refusals.length).toBeLessThanOrEqual(4);
});

test('a local decoder restarted after the key file was replaced keeps the key its daemon holds', async () => {
  const { ch, keyFile } = await keyedChannel(1);
  // A new key for the next start, written where the old one was: the running daemon still holds the old one.
  rmSync(keyFile);
  await writeZeromqKeyFile(keyFile);
  const [pid] = ch.decoderPids();
  process.kill(pid!, 'SIGKILL');
  await waitFor('the decoder to be restarted', () => ch.decoderPids()[0] !== pid && ch.decoderCount === 1, 10_000);
  submit(ch, 0);
  const out = await ch.next();
  expect(out?.kind === 'frame' && sha1(out.frame.data)).toBe(small.sha1);
});

test('`zeromq-key ""` (a shell variable not set) asks for a FILE, not blaming a folder that exists', async () => {
  const r = await runCli(['zeromq-key', '']);
  expect(r.code).toBe(2);
  // It said: ": cannot create the file: the directory /tmp does not exist; create it first" (the cwd's parent).
  expect(r.stderr).toBe('traffic-counter: zeromq-key: FILE given empty; give the path of the key file to write, e.g. ./zeromq.key [TC_ERR_USAGE]\n');
});

test('`decoder --key-file ""` (a shell variable not set) names the flag, not an empty file name', async () => {
  const r = await runCli(['decoder', '--connect', 'tcp://127.0.0.1:9', '--key-file', '']);
  // It said: "--key-file : no such file; create it with `traffic-counter zeromq-key ` and give a copy …".
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 2,
    stderr: "traffic-counter: decoder: --key-file given empty; give a copy of the daemon's zeromqKeyFile, or leave --key-file out for a link without a key [TC_ERR_USAGE]\n",
  });
});
