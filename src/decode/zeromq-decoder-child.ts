// Entry of a local decoder process for the zeromq channel: argv = [endpoint, decoder, routingId, nice, keyFile]
// (keyFile '' = none; the path only names it, never the key, which ps would show). With a key file, the key pair comes
// over the IPC pipe as the parent read it at start ({type: 'key'}), not from the file, which may have been replaced
// since (a new key for the next start): a restarted decoder must keep the key its daemon holds. Otherwise the IPC
// pipe only ties lifetimes together: when the channel goes away, this process stops.

import { runZeromqDecoder } from './zeromq-decoder.js';
import type { DecoderName } from './decode-jpeg.js';
import { lowerDecoderPriority } from './decoder-priority.js';
import type { ZeromqKey } from '../channel/zeromq-key.js';

const [connect, decoder, routingId, nice, keyFile] = process.argv.slice(2);
lowerDecoderPriority(Number(nice ?? 0));
const ac = new AbortController();
process.on('disconnect', () => ac.abort());
process.on('SIGTERM', () => ac.abort());
// Ctrl-C signals the whole process group: the channel stops this process itself (see ipc-decoder-child.ts).
process.on('SIGINT', () => {});

/** The key pair the parent sends first (see ZeromqChannel#spawn). */
function keyFromParent(): Promise<ZeromqKey> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown): void => {
      const k = m as { type?: unknown; publicKey?: unknown; secretKey?: unknown } | null;
      if (k?.type !== 'key' || typeof k.publicKey !== 'string' || typeof k.secretKey !== 'string') return;
      process.off('message', onMessage);
      resolve({ publicKey: k.publicKey, secretKey: k.secretKey });
    };
    process.on('message', onMessage);
  });
}

Promise.resolve()
  .then(async () => {
    const pair = keyFile ? await keyFromParent() : undefined;
    const key = pair && { ...pair, serverKey: pair.publicKey };
    return runZeromqDecoder({ connect: connect!, decoder: decoder as DecoderName, routingId, signal: ac.signal, ...(key ? { key } : {}) });
  })
  .then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`zeromq decoder: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
