// A camera none of whose frames comes out of the channel (here: the daemon leaves decoding to remote decoders, and
// none is connected) must be told the daemon cannot keep up with it, 100% of its frames dropped. Before, drops were
// seen only as gaps in the sequence numbers of the frames that came out, and load windows ended only at an output:
// such a camera was never told, its health said only "no decoder returned its frames". When a decoder connects,
// the log must say the daemon keeps up again.
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { validateConfig } from '../dist/src/config/validate-config.js';
import { Daemon } from '../dist/src/daemon.js';
import { runZeromqDecoder } from '../dist/src/decode/zeromq-decoder.js';
import { scene, serveSceneCamera, until } from './helpers/scene-camera.js';
import { tempDir } from './helpers/temp-dir.js';

/** A loopback port free a moment ago (the zeromq endpoint must be named before the daemon binds it). */
async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}


it('tells a camera whose every frame is dropped that the daemon cannot keep up, and when it keeps up again', { timeout: 60_000 }, async () => {
  const url = await serveSceneCamera();
  const endpoint = `tcp://127.0.0.1:${await freePort()}`;
  // 10 fps, 2 s windows: 20 frames a window, twice the fewest that are judged.
  const config = validateConfig({ db: join(tempDir(), 'counts.db'), channel: 'zeromq', zeromqEndpoint: endpoint, decoders: 0, cameras: [{ ...scene.cameraConfig(), id: 'cam1', url, pollIntervalMs: 100 }] });
  const log: string[] = [];
  const daemon = await Daemon.start(config, { log: { info: (m: string) => log.push(m), warn: (m: string) => log.push(m) }, loadWindowMs: 2_000 });
  onTestFinished(() => daemon.close());

  // The fix names the command to start a remote decoder with, this daemon's endpoint in it (it said `--connect …`),
  // and that there is no decoder at all (it said to "connect more remote decoders", and a larger decodeScale).
  const behind = new RegExp(
    String.raw`^camera cam1: the daemon cannot keep up: (\d+) of its (\d+) frames \((\d+)%\) in the last \d+ s were dropped before analysis, ` +
      String.raw`so it counts from ([\d.]+) frames/s instead of [\d.]+, .*; no decoder is connected to decode them: \x60decoders\x60 is 0 \(no local decoder\) ` +
      `and no remote decoder has connected; start one on a decoder host with \`traffic-counter decoder --connect ${endpoint}\`, or give the daemon local decoders`,
  );
  await until('"cannot keep up" in the log', () => log.some((m) => behind.test(m)));
  const [, dropped, all, percent, rate] = behind.exec(log.find((m) => behind.test(m))!)!;
  expect([dropped, percent, rate], log.join('\n')).toEqual([all, '100', '0.0']);
  expect(daemon.stats().cameras[0]!.warnings.map((w) => w.message)).toContainEqual(expect.stringMatching(behind));
  // The camera's own count of drops (health, /metrics, its stored minutes) says so too, while none comes through
  // (it was booked from gaps in the sequence numbers of frames that came out: 0 here, helper 24).
  const s = daemon.stats();
  expect(s.cameras[0]!.framesAnalysed).toBe(0);
  // Every frame handed in is dropped but those the channel still holds (its bound of frames in flight).
  expect(s.cameras[0]!.dropped).toBeGreaterThan(0);
  expect(s.cameras[0]!.dropped).toBe(s.channel.submitted - s.channel.inFlight);
  expect(s.cameras[0]!.dropped).toBe(s.channel.dropped);

  // Once no frame has come out for 10 s the camera reads failing, its warning naming how to start a decoder and
  // where (it said "check the decoders", naming neither).
  await until('the camera failing', () => daemon.stats().cameras[0]!.status === 'failing');
  expect(daemon.stats().cameras[0]!.warnings.map((w) => w.message)).toContainEqual(
    expect.stringMatching(
      new RegExp(
        `^camera cam1: no frame analysed for \\d+ s although the camera answers: no decoder returned its frames \\(the channel dropped \\d+\\); ` +
          `check the decoders: start one on a decoder host with traffic-counter decoder --connect ${endpoint}, or give the daemon local decoders \\(decoders 1 or more\\)$`,
      ),
    ),
  );

  // A remote decoder connects: every frame comes out again.
  const ac = new AbortController();
  const decoder = runZeromqDecoder({ connect: endpoint, decoder: 'jpeg-js', signal: ac.signal });
  onTestFinished(async () => {
    ac.abort();
    await decoder;
  });
  const keepsUp = /^camera cam1: the daemon keeps up with it again \(\d+% of its frames dropped in the last \d+ s\)$/;
  await until('"keeps up again" in the log', () => log.some((m) => keepsUp.test(m)));
  expect(daemon.stats().cameras[0]!.warnings.map((w) => w.message)).not.toContainEqual(expect.stringMatching(behind));
  // Drops stop once the decoder keeps up: the camera's count still matches the channel's (one camera).
  const after = daemon.stats();
  expect(after.cameras[0]!.dropped).toBe(after.channel.dropped);
  // Each said once.
  expect(log.filter((m) => behind.test(m) || keepsUp.test(m)).length, log.join('\n')).toBe(2);
});
