// A daemon that leaves decoding to remote decoders (`decoders` 0, `traffic-counter decoder --connect`): /api/health
// must show how many are connected and when one was last lost. Before, a decoder going away was seen in the log
// only (its channel figures in health read as before). /metrics must say the same, for an alert on "no decoder" (it
// had no figure for remote decoders).
import { hostname } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import type { ChannelStats } from '../dist/src/channel/frame-channel.js';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon } from '../dist/src/daemon.js';
import { runZeromqDecoder } from '../dist/src/decode/zeromq-decoder.js';
import { startHttpServer } from '../dist/src/server/http-server.js';
import { scene, serveSceneCamera, until } from './helpers/scene-camera.js';
import { tempDir } from './helpers/temp-dir.js';

it('shows in /api/health and /metrics the remote decoders connected, and when one was last lost, and logs each joining and leaving', { timeout: 60_000 }, async () => {
  const url = await serveSceneCamera();
  const config = validateConfig({ db: join(tempDir(), 'counts.db'), channel: 'zeromq', zeromqEndpoint: 'tcp://127.0.0.1:0', decoders: 0, cameras: [{ ...scene.cameraConfig(), id: 'cam1', url, pollIntervalMs: 200 }] });
  const said: string[] = [];
  const daemon = await Daemon.start(config, { log: { info: (m) => said.push(m), warn: (m) => said.push(`warning: ${m}`) } });
  onTestFinished(() => daemon.close());
  const http = await startHttpServer({ dbPath: config.db, stats: () => daemon.stats(), latestImage: (id) => daemon.latestImage(id) });
  onTestFinished(() => http.close());
  const channel = async (): Promise<ChannelStats> => ((await (await fetch(`${http.url}/api/health`)).json()) as { channel: ChannelStats }).channel;

  /** The remote decoders /metrics says are connected, and when one was last lost (Unix seconds). */
  const metrics = async (): Promise<[number, number]> => {
    const text = await (await fetch(`${http.url}/metrics`)).text();
    const value = (name: string): number => {
      const m = new RegExp(`^${name}\\{channel="zeromq-tcp"\\} (\\S+)$`, 'm').exec(text);
      expect(m, `${name} in\n${text}`).not.toBeNull();
      expect(text).toContain(`# TYPE ${name} gauge`);
      return Number(m![1]);
    };
    return [value('traffic_counter_remote_decoders'), value('traffic_counter_remote_decoder_lost_timestamp_seconds')];
  };

  const first = await channel();
  expect(first).toMatchObject({ channel: 'zeromq-tcp', remoteDecoders: 0, remoteDecoderLostAt: null });
  expect(await metrics()).toEqual([0, NaN]);
  const start = (): { stop: () => Promise<void> } => {
    const ac = new AbortController();
    const running = runZeromqDecoder({ connect: first.endpoint!, decoder: 'jpeg-js', signal: ac.signal });
    const stop = async (): Promise<void> => {
      ac.abort();
      await running;
    };
    onTestFinished(stop);
    return { stop };
  };
  const one = start();
  const two = start();
  await until('two remote decoders in /api/health', async () => (await channel()).remoteDecoders === 2);
  expect((await channel()).remoteDecoderLostAt).toBeNull();
  expect(await metrics()).toEqual([2, NaN]);

  // One decoder stops (it says 'bye'): health says one is left, and when the other was lost.
  const before = Date.now();
  await one.stop();
  await until('one remote decoder in /api/health', async () => (await channel()).remoteDecoders === 1);
  const lost = (await channel()).remoteDecoderLostAt;
  expect(lost).toBeGreaterThanOrEqual(before);
  expect(lost).toBeLessThanOrEqual(Date.now());
  expect(await metrics()).toEqual([1, lost! / 1000]);
  await two.stop();
  await until('no remote decoder in /api/health', async () => (await channel()).remoteDecoders === 0);
  const last = (await channel()).remoteDecoderLostAt!;
  expect(last).toBeGreaterThanOrEqual(lost!);
  expect(await metrics()).toEqual([0, last / 1000]);

  // The log said each one joining and leaving, naming it (HOST/PID/…), not only /api/health.
  const id = `${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/${process.pid}/[0-9a-f]+`;
  const lines = said.filter((m) => m.includes('remote decoder'));
  expect(lines, said.join('\n')).toHaveLength(4);
  expect(lines.slice(0, 2).join('\n')).toMatch(new RegExp(`^zeromq channel: remote decoder ${id} \\(jpeg-js\\) joined; 1 remote decoder\\(s\\) connected now\nzeromq channel: remote decoder ${id} \\(jpeg-js\\) joined; 2 remote decoder\\(s\\) connected now$`));
  // A decoder that leaves while a job for it is on its way, or that it had not answered yet, says so: that frame is dropped.
  const dropped = '(; its camera cam1 frame \\d+ is dropped)?';
  expect(lines.slice(2).join('\n')).toMatch(new RegExp(`^zeromq channel: remote decoder ${id} left \\(it said goodbye\\)${dropped}; 1 remote decoder\\(s\\) connected now\nzeromq channel: remote decoder ${id} left \\(it said goodbye\\)${dropped}; 0 remote decoder\\(s\\) connected now$`));
});

it('says in the camera\'s warnings since when no remote decoder is connected, once the last one was lost', { timeout: 60_000 }, async () => {
  const url = await serveSceneCamera();
  // 10 fps, 2 s windows: 20 frames a window, twice the fewest that are judged.
  const config = validateConfig({ db: join(tempDir(), 'counts.db'), channel: 'zeromq', zeromqEndpoint: 'tcp://127.0.0.1:0', decoders: 0, cameras: [{ ...scene.cameraConfig(), id: 'cam1', url, pollIntervalMs: 100 }] });
  const daemon = await Daemon.start(config, { log: { info: () => {}, warn: () => {} }, loadWindowMs: 2_000 });
  onTestFinished(() => daemon.close());
  const http = await startHttpServer({ dbPath: config.db, stats: () => daemon.stats(), latestImage: (id) => daemon.latestImage(id) });
  onTestFinished(() => http.close());
  const health = async (): Promise<{ channel: ChannelStats; cameras: { status: string; warnings: { message: string }[]; framesAnalysed: number }[] }> =>
    (await (await fetch(`${http.url}/api/health`)).json()) as never;
  const { endpoint } = (await health()).channel;

  const ac = new AbortController();
  const running = runZeromqDecoder({ connect: endpoint!, decoder: 'jpeg-js', signal: ac.signal });
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  onTestFinished(stop);
  await until('frames analysed', async () => (await health()).cameras[0]!.framesAnalysed > 0);
  await stop();
  await until('no remote decoder', async () => (await health()).channel.remoteDecoders === 0);
  const lostAt = (await health()).channel.remoteDecoderLostAt!;
  const since = `no remote decoder connected since ${new Date(lostAt).toISOString().slice(0, 19)}Z, when the last one was lost`;

  // Frames pile up: the daemon cannot keep up, then the camera reads failing; both warnings say since when.
  // With none connected, no decoder at all: not "connect more remote decoders" or "a larger decodeScale".
  const behind = `no decoder is connected to decode them: \`decoders\` is 0 (no local decoder) and ${since}; start one on a decoder host with \`traffic-counter decoder --connect ${endpoint}\`, or give the daemon local decoders (--decoders N, or \`decoders\` 1 or more in the config)`;
  const failing = `no decoder returned its frames (the channel dropped `;
  await until('the camera failing', async () => (await health()).cameras[0]!.status === 'failing', 30_000);
  await until('"cannot keep up" in its warnings', async () => (await health()).cameras[0]!.warnings.some((w) => w.message.includes('cannot keep up')));
  const warnings = (await health()).cameras[0]!.warnings.map((w) => w.message);
  expect(warnings, warnings.join('\n')).toContainEqual(expect.stringContaining(behind));
  const starved = warnings.find((w) => w.includes(failing));
  expect(starved, warnings.join('\n')).toMatch(
    new RegExp(`\\(the channel dropped \\d+; ${since}\\); check the decoders: start one on a decoder host with traffic-counter decoder --connect ${endpoint}, or give the daemon local decoders \\(decoders 1 or more\\)$`),
  );
});
