// Entry of a local decoder process for the zeromq channel: argv = [endpoint, decoder, routingId, nice, keyFile]
// (keyFile '' = none: the path only, never the key, which ps would show). The IPC pipe to the parent only ties
// lifetimes together: when the channel goes away, this process stops.

import { runZeromqDecoder } from './zeromq-decoder.js';
import type { DecoderName } from './decode-jpeg.js';
import { lowerDecoderPriority } from './decoder-priority.js';
import { readZeromqKeyFile } from '../channel/zeromq-key.js';

const [connect, decoder, routingId, nice, keyFile] = process.argv.slice(2);
lowerDecoderPriority(Number(nice ?? 0));
const ac = new AbortController();
process.on('disconnect', () => ac.abort());
process.on('SIGTERM', () => ac.abort());
// Ctrl-C signals the whole process group: the channel stops this process itself (see ipc-decoder-child.ts).
process.on('SIGINT', () => {});

Promise.resolve()
  .then(() => {
    const pair = keyFile ? readZeromqKeyFile(keyFile, 'zeromqKeyFile') : undefined;
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
