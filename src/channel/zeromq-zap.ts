// The zeromq channel's ZAP handler (ZeroMQ RFC 27, ZAP 1.0): libzmq asks it about every CURVE client of the sockets
// in its context once the client has proven it holds the secret key of the public key it presents. It accepts only
// the key file's public key (see zeromq-key.ts): without it, any client that knows the server's public key would
// be let in with a key pair of its own.

import { Router, type Context } from 'zeromq';
import { z85DecodeKey } from './zeromq-key.js';

/** Where libzmq sends ZAP requests, in the same context. */
const ZAP_ENDPOINT = 'inproc://zeromq.zap.01';

export class ZapHandler {
  readonly #sock: Router;
  readonly #allowed: Buffer;
  readonly #onRefused: (address: string) => void;
  readonly #loop: Promise<void>;

  private constructor(sock: Router, publicKey: string, onRefused: (address: string) => void) {
    this.#sock = sock;
    this.#allowed = z85DecodeKey(publicKey);
    this.#onRefused = onRefused;
    this.#loop = this.#answer();
  }

  /** Binds the handler in `context` (one per context); `onRefused` is told the address of each client refused. */
  static async start(context: Context, publicKey: string, onRefused: (address: string) => void): Promise<ZapHandler> {
    const sock = new Router({ context, linger: 0 });
    await sock.bind(ZAP_ENDPOINT);
    return new ZapHandler(sock, publicKey, onRefused);
  }

  async #answer(): Promise<void> {
    try {
      for await (const parts of this.#sock) {
        // [routing id, '', version, request id, domain, address, identity, mechanism, credentials...]
        const [id, , version, requestId, , address, , mechanism, credential] = parts;
        if (id === undefined || requestId === undefined) continue;
        const ok = version?.toString() === '1.0' && mechanism?.toString() === 'CURVE' && credential !== undefined && credential.equals(this.#allowed);
        if (!ok) this.#onRefused(address?.toString('latin1') || 'an unknown address');
        // Status 200 lets the client in, 400 refuses it (libzmq then tells it: handshake:error:auth at its end).
        await this.#sock.send([id, '', '1.0', requestId, ok ? '200' : '400', ok ? 'OK' : 'key not accepted', ok ? 'decoder' : '', '']);
      }
    } catch (err) {
      if (!this.#sock.closed) process.emitWarning(`zeromq channel: the key check (ZAP handler) failed: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.#sock.close();
    await this.#loop;
  }
}
