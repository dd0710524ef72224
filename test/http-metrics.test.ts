// GET /metrics: the daemon's live figures in the Prometheus text format, for a scraper (Prometheus, Grafana Agent)
// to chart crossings per line and direction and to alert on a camera that is down.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { startHttpServer } from '../dist/src/server/index.js';
import { formatMetrics } from '../dist/src/server/format-metrics.js';
import { cameraStats } from './helpers/camera-stats.js';

/** The samples of a metrics text: `name{labels}` to value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-z_]+(?:\{.*\})?) (\S+)$/.exec(line);
    expect(m, `not a sample line: ${line}`).not.toBeNull();
    out.set(m![1]!, Number(m![2]));
  }
  return out;
}

const stats = {
  channel: { channel: 'shared', submitted: 120, delivered: 100, dropped: 15, decodeErrors: 2, decoderRestarts: 1, inFlight: 3, maxInFlight: 8 },
  cameras: [
    cameraStats({ id: 'north', framesAnalysed: 100, dropped: 15, decodeErrors: 2, lastFrameAt: 1_700_000_000_500, counts: [{ lineId: 'main', in: 7, out: 4 }], source: { ...cameraStats({ id: 'x' }).source, requests: 130, bytes: 9_000_000 } }),
    cameraStats({ id: 'south', status: 'down', warnings: [{ message: 'camera south: GET … failed' }], source: { ...cameraStats({ id: 'x' }).source, errors: 6, consecutiveFailures: 6 } }),
  ],
};

test('says each line and direction count, each camera status and frames, and the channel, as Prometheus reads them', () => {
  const text = formatMetrics(stats);
  const s = samples(text);
  expect(s.get('traffic_counter_crossings_total{camera="north",line="main",direction="in"}')).toBe(7);
  expect(s.get('traffic_counter_crossings_total{camera="north",line="main",direction="out"}')).toBe(4);
  expect(s.get('traffic_counter_camera_status{camera="south",status="down"}')).toBe(1);
  expect(s.get('traffic_counter_camera_status{camera="south",status="counting"}')).toBe(0);
  expect(s.get('traffic_counter_camera_status{camera="north",status="counting"}')).toBe(1);
  expect(s.get('traffic_counter_camera_warnings{camera="south"}')).toBe(1);
  expect(s.get('traffic_counter_frames_dropped_total{camera="north"}')).toBe(15);
  expect(s.get('traffic_counter_last_frame_timestamp_seconds{camera="north"}')).toBe(1_700_000_000.5);
  expect(s.get('traffic_counter_last_frame_timestamp_seconds{camera="south"}')).toBeNaN();
  expect(s.get('traffic_counter_source_consecutive_failures{camera="south"}')).toBe(6);
  expect(s.get('traffic_counter_source_bytes_total{camera="north"}')).toBe(9_000_000);
  expect(s.get('traffic_counter_channel_frames_dropped_total{channel="shared"}')).toBe(15);
  expect(s.get('traffic_counter_channel_frames_in_flight{channel="shared"}')).toBe(3);
  expect(s.get('traffic_counter_channel_frames_in_flight_max{channel="shared"}')).toBe(8);
  // Every family is typed once, before its samples, and counters end in _total.
  const types = [...text.matchAll(/^# TYPE (\S+) (counter|gauge)$/gm)];
  expect(new Set(types.map((t) => t[1])).size).toBe(types.length);
  for (const [, name, type] of types) if (type === 'counter') expect(name).toMatch(/_total$/);
  for (const key of s.keys()) expect(types.some((t) => key.startsWith(`${t[1]}{`) || key === t[1])).toBe(true);
});

test('says the remote decoders connected and when one was last lost, only for a channel that has them', () => {
  const remote = (lostAt: number | null): Map<string, number> =>
    samples(formatMetrics({ ...stats, channel: { ...stats.channel, channel: 'zeromq-tcp', endpoint: 'tcp://127.0.0.1:5555', remoteDecoders: 0, remoteDecoderLostAt: lostAt } }));
  expect(remote(1_700_000_000_250).get('traffic_counter_remote_decoders{channel="zeromq-tcp"}')).toBe(0);
  expect(remote(1_700_000_000_250).get('traffic_counter_remote_decoder_lost_timestamp_seconds{channel="zeromq-tcp"}')).toBe(1_700_000_000.25);
  // None lost yet: NaN, as the latest frame's time before the first.
  expect(remote(null).get('traffic_counter_remote_decoder_lost_timestamp_seconds{channel="zeromq-tcp"}')).toBeNaN();
  // Other channels (local decoders only) have neither.
  expect(formatMetrics(stats)).not.toMatch(/remote_decoder/);
});

test('escapes label values', () => {
  const text = formatMetrics({ cameras: [cameraStats({ id: 'c', counts: [{ lineId: 'a"b\\c\nd', in: 1, out: 0 }] })] });
  expect(text).toContain('traffic_counter_crossings_total{camera="c",line="a\\"b\\\\c\\nd",direction="in"} 1');
});

test('GET /metrics answers the text format, and without a daemon, no cameras', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-metrics-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const withDaemon = await startHttpServer({ dbPath: path.join(dir, 'counts.db'), port: 0, stats: () => stats });
  onTestFinished(() => withDaemon.close());
  const res = await fetch(`${withDaemon.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(samples(await res.text()).get('traffic_counter_crossings_total{camera="north",line="main",direction="in"}')).toBe(7);
  const alone = await startHttpServer({ dbPath: path.join(dir, 'counts.db'), port: 0 });
  onTestFinished(() => alone.close());
  const text = await (await fetch(`${alone.url}/metrics`)).text();
  expect(samples(text).size).toBe(0);
  expect(text).toContain('# TYPE traffic_counter_crossings_total counter');
});
