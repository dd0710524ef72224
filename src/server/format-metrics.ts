// GET /metrics: the daemon's live figures in the Prometheus text format (version 0.0.4), for Prometheus, Grafana
// Agent, VictoriaMetrics or anything else that scrapes it: crossings per camera, line and direction, each camera's
// status and frames, and the frame channel. Counters count from the daemon's start (a restart resets them, which
// Prometheus' rate() and increase() expect); the stored counts stay the source of truth (/api/counts).

import type { ChannelStats } from '../channel/frame-channel.js';
import type { CameraStats, StoreHealth } from '../daemon.js';

/** What /metrics reads: the daemon's stats(). */
export interface MetricsSource {
  readonly channel?: ChannelStats;
  readonly cameras: readonly CameraStats[];
  readonly store?: StoreHealth;
}

const STATUSES: readonly CameraStats['status'][] = ['counting', 'learning', 'moved', 'failing', 'frozen', 'down'];

/** A label value, escaped as the format asks (backslash, double quote, line feed). */
function label(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(l: Record<string, string>): string {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${label(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

export function formatMetrics(s: MetricsSource): string {
  const out: string[] = [];
  const family = (name: string, type: 'counter' | 'gauge', help: string, samples: readonly [Record<string, string>, number][]): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [l, v] of samples) out.push(`${name}${labels(l)} ${Number.isFinite(v) ? v : 'NaN'}`);
  };
  const perCamera = (f: (c: CameraStats) => number): [Record<string, string>, number][] => s.cameras.map((c) => [{ camera: c.id }, f(c)]);

  family('traffic_counter_crossings_total', 'counter', 'Vehicles counted crossing a line, per direction, since the daemon started.',
    s.cameras.flatMap((c) => c.counts.flatMap((l) => (['in', 'out'] as const).map((d): [Record<string, string>, number] => [{ camera: c.id, line: l.lineId, direction: d }, l[d]]))));
  family('traffic_counter_camera_status', 'gauge', `1 for the camera's status (${STATUSES.join(', ')}; see /api/health for why), 0 for the others.`,
    s.cameras.flatMap((c) => STATUSES.map((st): [Record<string, string>, number] => [{ camera: c.id, status: st }, c.status === st ? 1 : 0])));
  family('traffic_counter_camera_warnings', 'gauge', 'Warnings the camera has now (their text is in /api/health).', perCamera((c) => c.warnings.length));
  family('traffic_counter_frames_analysed_total', 'counter', 'Frames of the camera analysed.', perCamera((c) => c.framesAnalysed));
  family('traffic_counter_frames_dropped_total', 'counter', 'Frames of the camera dropped before analysis (the decoders or the analyzer fell behind).', perCamera((c) => c.dropped));
  family('traffic_counter_decode_errors_total', 'counter', 'Frames of the camera the decoder refused (corrupt, truncated, too large).', perCamera((c) => c.decodeErrors));
  family('traffic_counter_analyzer_errors_total', 'counter', 'Frames of the camera the analyzer refused.', perCamera((c) => c.analyzerErrors));
  family('traffic_counter_last_frame_timestamp_seconds', 'gauge', 'Capture time of the camera\'s latest analysed frame (Unix seconds; NaN before the first: alert on camera_status too).',
    perCamera((c) => (c.lastFrameAt === null ? NaN : c.lastFrameAt / 1000)));
  family('traffic_counter_source_requests_total', 'counter', 'HTTP requests made to the camera (polls, stream connections, redirects followed, second tries answering an authentication challenge).', perCamera((c) => c.source.requests));
  family('traffic_counter_source_errors_total', 'counter', 'Failed attempts to read the camera.', perCamera((c) => c.source.errors));
  family('traffic_counter_source_bytes_total', 'counter', 'JPEG bytes received from the camera.', perCamera((c) => c.source.bytes));
  family('traffic_counter_source_consecutive_failures', 'gauge', 'Failed attempts since the camera\'s latest success (0 while it answers).', perCamera((c) => c.source.consecutiveFailures));
  const ch = s.channel;
  if (ch) {
    const l = { channel: ch.channel };
    family('traffic_counter_channel_frames_submitted_total', 'counter', 'JPEGs handed to the frame channel.', [[l, ch.submitted]]);
    family('traffic_counter_channel_frames_delivered_total', 'counter', 'Decoded frames the channel delivered to the analyzer.', [[l, ch.delivered]]);
    family('traffic_counter_channel_frames_dropped_total', 'counter', 'Frames the channel dropped (its bound of frames in flight was reached).', [[l, ch.dropped]]);
    family('traffic_counter_channel_decoder_restarts_total', 'counter', 'Decoder processes or threads restarted after a crash.', [[l, ch.decoderRestarts]]);
    family('traffic_counter_channel_frames_in_flight', 'gauge', 'Frames in the channel now (waiting for a decoder, decoding, or decoded and waiting).', [[l, ch.inFlight]]);
    family('traffic_counter_channel_frames_in_flight_max', 'gauge', 'The most frames in flight now; beyond it one is dropped (zeromq: two per connected decoder that has answered a job, at least maxFramesInFlight).', [[l, ch.maxInFlight]]);
    // zeromq over tcp:// (remote decoders): alert on remote_decoders == 0 where decoders is 0, no frame is decoded then.
    if (ch.remoteDecoders !== undefined) {
      family('traffic_counter_remote_decoders', 'gauge', 'Remote decoders (traffic-counter decoder --connect) connected now.', [[l, ch.remoteDecoders]]);
      family('traffic_counter_remote_decoder_lost_timestamp_seconds', 'gauge', 'When a remote decoder was last lost: it left, fell silent, did not answer in time or could not be sent to (Unix seconds; NaN before the first).',
        [[l, ch.remoteDecoderLostAt == null ? NaN : ch.remoteDecoderLostAt / 1000]]);
    }
  }
  const st = s.store;
  if (st) {
    // A daemon whose database refuses writes counts into memory only: alert on this, not on the cameras.
    family('traffic_counter_store_failing', 'gauge', 'Whether the count database fails now (1: writes refused, the counts kept in memory and retried; or its file deleted or replaced; see /api/health).', [[{}, st.ok ? 0 : 1]]);
    family('traffic_counter_store_failed_flushes_total', 'counter', 'Writes of pending counts to the database that failed.', [[{}, st.failedFlushes]]);
    family('traffic_counter_store_pending_events', 'gauge', 'Crossings counted and not yet written to the database.', [[{}, st.pendingEvents]]);
    family('traffic_counter_store_event_details_dropped_total', 'counter', 'Crossing details (not counts) dropped while writes kept failing.', [[{}, st.eventDetailsDropped]]);
  }
  return `${out.join('\n')}\n`;
}
