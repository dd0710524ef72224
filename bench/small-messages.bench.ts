// Scenario "small-messages": 8-byte ping-pong round trip and one-way messages/s through each channel's
// mechanism (a 2016 talk measured Python's multiprocessing.Queue at ~80k msg/s, ZeroMQ PUSH/PULL at ~1.7M).

import type { BenchContext } from './bench-util.js';
import { runProbe } from './bench-util.js';
import type { Mechanism, ProbeArgs, SmallResult } from './probes/transport-probe.js';
import type { Reporter } from './reporter.js';

const CASES: { mechanism: Mechanism; label: string; count: number }[] = [
  { mechanism: 'ipc-json', label: 'channel=ipc-json', count: 40_000 },
  { mechanism: 'ipc-advanced', label: 'channel=ipc-advanced', count: 40_000 },
  { mechanism: 'zeromq-ipc', label: 'channel=zeromq ipc://', count: 200_000 },
  { mechanism: 'zeromq-tcp', label: 'channel=zeromq tcp://', count: 200_000 },
  { mechanism: 'shared', label: 'channel=shared (SAB ring + Atomics)', count: 2_000_000 },
];

export async function smallMessages(ctx: BenchContext, report: Reporter): Promise<void> {
  const rows = [];
  for (const c of CASES) {
    const args: ProbeArgs = {
      mechanism: c.mechanism,
      mode: 'small',
      warmup: ctx.quick ? 50 : 500,
      samples: ctx.quick ? 300 : 3_000,
      count: ctx.quick ? c.count / 10 : c.count,
      window: 1,
    };
    ctx.log(`small-messages ${c.mechanism}`);
    const r = await runProbe<SmallResult>('transport-probe.js', args);
    rows.push({
      label: `small-messages ${c.label} size=8B`,
      values: { p50: r.rttP50Us, p99: r.rttP99Us, rate: r.msgsPerSec, cpu: r.cpuUsPerMsg, n: args.count },
    });
  }
  report.add({
    scenario: 'small-messages',
    title: 'Small messages, 8 bytes',
    columns: [
      ['p50', 'RTT p50 µs'],
      ['p99', 'RTT p99 µs'],
      ['rate', 'one-way msg/s'],
      ['cpu', 'CPU µs/msg'],
      ['n', 'messages'],
    ],
    rows,
    method:
      'a fresh process per case with its peer process (ipc, zeromq) or worker thread (shared). Round trip: the analyzer side sends 8 bytes, ' +
      'the peer echoes them, one at a time after warm-up. One-way: the peer sends as fast as its flow control allows (ipc: at most 256 sends ' +
      'not yet written; zeromq: DEALER→ROUTER with libzmq\'s default high-water mark of 1000, as the channel\'s HWM of 2 is sized for 3.6 MB ' +
      'frames; shared: a 4096-entry single-producer ring in a SharedArrayBuffer, the producer blocks with Atomics.wait when it is full, the ' +
      'analyzer waits with Atomics.waitAsync only when it is empty). ipc messages are wrapped as {type, b: Buffer} like the channel\'s.',
  });
}
