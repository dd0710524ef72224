// The zeromq channel's key file (CURVE): one key pair shared by the daemon and its decoders. Holding the file is
// being trusted: the daemon's ROUTER is the CURVE server with that pair, each decoder uses it as its client pair and
// its public key as the server's, and the daemon accepts only clients that present that public key (see ZapHandler).
//
// Format: a JSON object {"publicKey": Z85, "secretKey": Z85} (40 characters each, as zeromq's curveKeyPair() gives
// them), written by `traffic-counter zeromq-key FILE` with mode 0600 and refused when group or others may read it.

import { closeSync, fchmodSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { ConfigError } from '../errors.js';

export interface ZeromqKey {
  /** Z85, 40 characters. */
  readonly publicKey: string;
  /** Z85, 40 characters. */
  readonly secretKey: string;
}

const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
const Z85_KEY_RE = /^[0-9a-zA-Z.\-:+=^!/*?&<>()[\]{}@%$#]{40}$/;

/** The 32 raw bytes of a 40-character Z85 key (as a ZAP request carries a CURVE client's public key). */
export function z85DecodeKey(text: string): Buffer {
  if (!Z85_KEY_RE.test(text)) throw new RangeError('not a 40-character Z85 key');
  const out = Buffer.alloc(32);
  for (let i = 0; i < 8; i++) {
    let v = 0;
    for (let j = 0; j < 5; j++) v = v * 85 + Z85.indexOf(text[i * 5 + j]!);
    if (v > 0xffff_ffff) throw new RangeError('not a 40-character Z85 key');
    out.writeUInt32BE(v, i * 4);
  }
  return out;
}

/** Whether `publicKey` is the Curve25519 public key of `secretKey` (raw 32 bytes each). */
function belongsTo(publicKey: Buffer, secretKey: Buffer): boolean {
  // PKCS#8 wrapping of a raw X25519 private key (RFC 8410).
  const der = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), secretKey]);
  const jwk = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
  return typeof jwk.x === 'string' && Buffer.from(jwk.x, 'base64url').equals(publicKey);
}

/** How to make a key file, for error messages. */
export const KEY_FIX = 'traffic-counter zeromq-key FILE';

/**
 * Reads and checks a key file. `label` names where it was given (`zeromqKeyFile`, `--key-file`); every error is a
 * ConfigError naming the file and the fix.
 */
export function readZeromqKeyFile(file: string, label: string): ZeromqKey {
  const where = `${label} ${file}`;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // A decoder needs the daemon's own pair: a new one made here would be refused by the daemon.
      const fix =
        label === '--key-file'
          ? `copy the daemon's key file (its zeromqKeyFile) here, keeping its mode (scp -p); a new one made with \`${KEY_FIX}\` would be refused by the daemon`
          : `create it with \`traffic-counter zeromq-key ${file}\` and give a copy to each decoder (--key-file)`;
      throw new ConfigError(`${where}: no such file; ${fix}`, { cause: err });
    }
    throw new ConfigError(`${where}: cannot read the file (${code ?? String(err)}); run as the user that owns it, or check the path`, { cause: err });
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ConfigError(`${where}: not a file; give the key file that \`${KEY_FIX}\` wrote`);
    // Like ssh with a private key: a secret others can read is no secret.
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      throw new ConfigError(`${where}: readable or writable by group or others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); it holds a secret key: run \`chmod 600 ${file}\``);
    }
    text = readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`${where}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)}); check the path`, { cause: err });
  } finally {
    closeSync(fd);
  }
  const malformed = (why: string): ConfigError =>
    new ConfigError(`${where}: not a zeromq key file (${why}); expected {"publicKey": "...", "secretKey": "..."} as \`${KEY_FIX}\` writes it: write a new one to a new path and give it to the daemon (zeromqKeyFile) and its decoders (--key-file)`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // The message is left out: it may quote the secret.
    throw malformed('not valid JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw malformed('not a JSON object');
  const { publicKey, secretKey, ...rest } = raw as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw malformed(`unknown key ${JSON.stringify(extra[0])}`);
  for (const [name, v] of [['publicKey', publicKey], ['secretKey', secretKey]] as const) {
    if (typeof v !== 'string' || !Z85_KEY_RE.test(v)) throw malformed(`${name} must be 40 characters of Z85`);
  }
  let pub: Buffer;
  let sec: Buffer;
  try {
    pub = z85DecodeKey(publicKey as string);
    sec = z85DecodeKey(secretKey as string);
  } catch {
    throw malformed('a key is not valid Z85');
  }
  if (!belongsTo(pub, sec)) throw malformed('publicKey is not the public key of secretKey');
  return Object.freeze({ publicKey: publicKey as string, secretKey: secretKey as string });
}

/** Writes a new key pair to `file` (mode 0600); refuses a file that exists. */
export async function writeZeromqKeyFile(file: string): Promise<ZeromqKey> {
  const { curveKeyPair } = await import('zeromq');
  const key = curveKeyPair();
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new ConfigError(`${file}: exists; not overwritten (the daemon and its decoders may use it): give another path, or remove it first`, { cause: err });
    if (code === 'ENOENT') throw new ConfigError(`${file}: cannot create the file: the directory ${dirname(resolve(file))} does not exist; create it first, or give another path`, { cause: err });
    throw new ConfigError(`${file}: cannot create the file (${code ?? String(err)}); check the path`, { cause: err });
  }
  try {
    // Whatever the umask (0277 would leave 0400, which reads as well, but not what is said).
    fchmodSync(fd, 0o600);
    writeSync(fd, `${JSON.stringify({ publicKey: key.publicKey, secretKey: key.secretKey })}\n`);
  } finally {
    closeSync(fd);
  }
  return key;
}

/** tcp://127.x.x.x, tcp://localhost, tcp://[::1] and tcp://::1 (any port): reachable from this machine only. */
export function isLoopbackTcp(endpoint: string): boolean {
  const host = /^tcp:\/\/(.+):[^:]*$/.exec(endpoint)?.[1];
  if (host === undefined) return false;
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Secure by default: a tcp:// endpoint other machines can reach needs a key file ('' = none). */
export function requireKeyForEndpoint(endpoint: string, keyFile: string): void {
  if (!endpoint.startsWith('tcp://') || isLoopbackTcp(endpoint) || keyFile !== '') return;
  throw new ConfigError(
    `zeromqEndpoint: ${JSON.stringify(endpoint)} lets any machine that reaches it in as a decoder, to send forged frames or read camera pictures, and zeromqKeyFile is not set; create a key file with \`traffic-counter zeromq-key FILE\`, set zeromqKeyFile (--zeromq-key-file) to it and give a copy to each decoder (--key-file FILE), or bind a loopback address (tcp://127.0.0.1:PORT)`,
  );
}

/**
 * The zeromq channel's key checks (an open endpoint without a key, a key file that cannot be read or is not one),
 * made before anything starts: by `run` before the simulator or the probe, by Daemon.start before the store creates
 * the database. The channel makes them again where it binds.
 */
export function checkZeromqKey(endpoint: string, keyFile: string): void {
  requireKeyForEndpoint(endpoint, keyFile);
  if (keyFile !== '') readZeromqKeyFile(keyFile, 'zeromqKeyFile');
}
