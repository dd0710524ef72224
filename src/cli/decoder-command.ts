// `traffic-counter decoder`: a remote JPEG decoder for the zeromq channel (runs on another machine).

import { parseCliArgs, requireFlag } from './parse-cli-args.js';
import { runZeromqDecoder } from '../decode/zeromq-decoder.js';
import { DECODERS, isDecoderName } from '../decode/decoder-name.js';
import { UsageError } from '../errors.js';
import { readZeromqKeyFile } from '../channel/zeromq-key.js';

const HELP = `Usage: traffic-counter decoder --connect tcp://HOST:PORT [--key-file FILE] [--decoder jpeg-js|jpeg-turbo|sharp]

Connects to a daemon running with --channel zeromq --zeromq-endpoint tcp://HOST:PORT, pulls JPEGs,
decodes them and pushes RGBA frames back. Start as many as the daemon needs; stop with Ctrl-C.

Options:
  --connect URL    the daemon's zeromq endpoint (tcp://HOST:PORT; an IPv6 address in brackets, tcp://[::1]:5555)
  --key-file FILE  a copy of the daemon's zeromqKeyFile (mode 0600): the link is then encrypted and the daemon
                   lets this decoder in; needed unless the daemon listens on loopback without a key
  --decoder D      jpeg-js (default), jpeg-turbo or sharp
  -h, --help       this help
`;

export async function decoderCommand(argv: string[]): Promise<number> {
  // An empty --key-file (a shell variable not set) read "--key-file : no such file; create it with `traffic-counter zeromq-key `".
  const { values } = parseCliArgs(
    'decoder',
    argv,
    { connect: { type: 'string' }, decoder: { type: 'string' }, 'key-file': { type: 'string' } },
    {
      connect: "the daemon's zeromq endpoint, tcp://HOST:PORT (its log names it)",
      decoder: `${DECODERS.join(', ')}, or leave --decoder out for jpeg-js`,
      'key-file': "a copy of the daemon's zeromqKeyFile, or leave --key-file out for a link without a key",
    },
  );
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const connect = requireFlag('decoder', 'connect', values.connect);
  // HOST: a name, an IPv4 address or a bracketed IPv6 one (tcp://[::1]:5555, as the daemon's zeromqEndpoint takes).
  const port = /^tcp:\/\/(?:\[[0-9A-Fa-f:.]+\]|[^:/[\]]+):(\d+)$/.exec(connect)?.[1];
  if (port === undefined || Number(port) < 1 || Number(port) > 65_535) {
    throw new UsageError(`--connect: must be tcp://HOST:PORT with PORT 1-65535 (the daemon's zeromqEndpoint, which its log names), got "${connect}"`);
  }
  const decoder = values.decoder ?? 'jpeg-js';
  if (!isDecoderName(decoder)) throw new UsageError(`--decoder: must be one of ${DECODERS.join(', ')}, got "${decoder}"`);
  const keyFile = values['key-file'];
  const pair = keyFile === undefined ? undefined : readZeromqKeyFile(keyFile, '--key-file');
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  process.once('SIGTERM', () => ac.abort());
  process.stderr.write(`${new Date().toISOString()}  decoder (${decoder}) connecting to ${connect}${pair ? ` with the key of ${keyFile}` : ''}; Ctrl-C to stop\n`);
  const key = pair && { ...pair, serverKey: pair.publicKey };
  await runZeromqDecoder({ connect, decoder, signal: ac.signal, onStatus: (m) => process.stderr.write(`${new Date().toISOString()}  ${m}\n`), ...(key ? { key } : {}) });
  return 0;
}
