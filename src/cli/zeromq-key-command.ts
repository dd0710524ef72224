// `traffic-counter zeromq-key FILE`: writes a new key file for the zeromq channel (see src/channel/zeromq-key.ts).

import { UsageError } from '../errors.js';
import { parseCliArgs } from './parse-cli-args.js';
import { writeZeromqKeyFile } from '../channel/zeromq-key.js';

const HELP = `Usage: traffic-counter zeromq-key FILE

Writes a new key pair to FILE (mode 0600; an existing FILE is not overwritten) for the zeromq channel over
tcp://: the daemon's frames and jobs are then encrypted (CURVE), and only decoders holding a copy of FILE get in.
Set "zeromqKeyFile": "FILE" in the daemon's config (or run --zeromq-key-file FILE), copy FILE to each decoder
host keeping its mode (scp -p), and start the decoders with --key-file FILE.

Format: {"publicKey": "<40 chars Z85>", "secretKey": "<40 chars Z85>"}; holding the file is being trusted.
`;

export async function zeromqKeyCommand(argv: string[]): Promise<number> {
  // An empty FILE (a shell variable not set) was blamed on its folder: "the directory /tmp does not exist".
  const { values, positionals } = parseCliArgs('zeromq-key', argv, {}, {}, { name: 'FILE', hint: 'the path of the key file to write, e.g. ./zeromq.key' });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const file = positionals[0]!;
  // "-" is standard output to many tools; the secret key is written to a file only (mode 0600), never printed.
  if (file === '-') {
    throw new UsageError("zeromq-key: FILE \"-\": the key pair is written to a file only (mode 0600: it holds the secret key), never to standard output; give a path, e.g. ./zeromq.key");
  }
  await writeZeromqKeyFile(file);
  process.stderr.write(
    `wrote a new zeromq key pair to ${file} (mode 0600)\n` +
      `daemon: "zeromqKeyFile": ${JSON.stringify(file)} in its config, or run --zeromq-key-file ${file}\n` +
      `decoders: copy the file (scp -p) and run traffic-counter decoder --connect tcp://HOST:PORT --key-file ${file}\n`,
  );
  return 0;
}
