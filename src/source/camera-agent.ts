// The undici dispatcher for one camera: a keep-alive Agent with one connection per origin (a source makes
// one request at a time) and connect/headers/body timeouts taken from the camera's timeoutMs. For an https://
// camera, its certificate is checked as a browser would, or against the fingerprint the config pins (cameras
// mostly have self-signed certificates, which no CA vouches for), or not at all when the config says so.

import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';

export interface CameraTls {
  /** SHA-256 fingerprint of the camera's certificate, "AB:CD:…" (upper case, 32 bytes): accepted if and only if it matches. */
  readonly fingerprint256?: string;
  /** Accept any certificate. */
  readonly insecure?: boolean;
}

export function createCameraAgent(timeoutMs: number, tls: CameraTls = {}): Agent {
  return new Agent({
    connections: 1,
    pipelining: 1,
    keepAliveTimeout: 4_000, // idle socket reuse window; undici lowers it when the camera's Keep-Alive header says less
    keepAliveMaxTimeout: 60_000,
    connect: tls.fingerprint256 !== undefined ? pinnedConnector(timeoutMs, tls.fingerprint256) : { timeout: timeoutMs, rejectUnauthorized: !tls.insecure },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

/** Raised by the pinned connector: the camera presented another certificate than the one pinned. */
export class FingerprintMismatch extends Error {
  constructor(readonly presented: string, readonly pinned: string) {
    super(`certificate fingerprint ${presented} is not the pinned ${pinned}`);
  }
}

/**
 * Connects without the CA check, then accepts the TLS socket only when the certificate's SHA-256 fingerprint is the
 * pinned one (the name in it is not checked either: a camera's self-signed certificate names whatever its maker
 * chose). No TLS session is reused, so every connection shows its certificate.
 */
function pinnedConnector(timeoutMs: number, pinned: string): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs, rejectUnauthorized: false, maxCachedSessions: 0 });
  return (opts, callback) => {
    base(opts, (err, socket) => {
      if (err !== null) return callback(err, null);
      if (opts.protocol !== 'https:') return callback(null, socket);
      const presented = (socket as TLSSocket).getPeerCertificate().fingerprint256 ?? '(none)';
      if (presented === pinned) return callback(null, socket);
      socket.destroy();
      callback(new FingerprintMismatch(presented, pinned), null);
    });
  };
}
