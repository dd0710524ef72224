// The undici dispatcher for one camera: a keep-alive Agent with one connection per origin (a source makes
// one request at a time) and connect/headers/body timeouts taken from the camera's timeoutMs. For an https://
// camera, its certificate is checked as a browser would, or against the fingerprint the config pins (cameras
// mostly have self-signed certificates, which no CA vouches for), or not at all when the config says so. A
// server a pinned camera redirects to (a public camera's CDN) may also present a certificate a browser accepts.

import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';

export interface CameraTls {
  /** SHA-256 fingerprint of the camera's certificate, "AB:CD:…" (upper case, 32 bytes): accepted if and only if it matches. */
  readonly fingerprint256?: string;
  /** Accept any certificate. */
  readonly insecure?: boolean;
}

/** `cameraHref`: the camera URL, whose origin (scheme, host and port) a pinned fingerprint applies to. */
export function createCameraAgent(timeoutMs: number, cameraHref: string, tls: CameraTls = {}): Agent {
  return new Agent({
    connections: 1,
    pipelining: 1,
    keepAliveTimeout: 4_000, // idle socket reuse window; undici lowers it when the camera's Keep-Alive header says less
    keepAliveMaxTimeout: 60_000,
    connect: tls.fingerprint256 !== undefined ? pinnedConnector(timeoutMs, tls.fingerprint256, cameraHref) : { timeout: timeoutMs, rejectUnauthorized: !tls.insecure },
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

/** "https:|host|port" with the default port filled in and an IPv6 host without brackets, as undici's connector gets it. */
function originKey(protocol: string, hostname: string, port: string | number | null | undefined): string {
  return `${protocol}|${hostname.replace(/^\[|\]$/g, '').toLowerCase()}|${port || (protocol === 'https:' ? 443 : 80)}`;
}

/**
 * Connects without refusing the certificate, then accepts the TLS socket when its SHA-256 fingerprint is the pinned
 * one, whatever else it says (the name in it is not checked either: a camera's self-signed certificate names
 * whatever its maker chose). A server the camera redirects to (another origin) is also accepted when its
 * certificate passes the check a browser makes (a public camera's CDN). No TLS session is reused, so every
 * connection shows its certificate.
 */
function pinnedConnector(timeoutMs: number, pinned: string, cameraHref: string): buildConnector.connector {
  const camera = new URL(cameraHref);
  const own = originKey(camera.protocol, camera.hostname, camera.port);
  const base = buildConnector({ timeout: timeoutMs, rejectUnauthorized: false, maxCachedSessions: 0 });
  return (opts, callback) => {
    base(opts, (err, socket) => {
      if (err !== null) return callback(err, null);
      if (opts.protocol !== 'https:') return callback(null, socket);
      const tls = socket as TLSSocket;
      const presented = tls.getPeerCertificate().fingerprint256 ?? '(none)';
      if (presented === pinned) return callback(null, socket);
      const ownOrigin = originKey(opts.protocol, opts.hostname, opts.port) === own;
      if (!ownOrigin && tls.authorized) return callback(null, socket);
      socket.destroy();
      // Elsewhere the pin is not what was asked for: the refusal is the browser check's (its code, e.g.
      // DEPTH_ZERO_SELF_SIGNED_CERT, which certificateProblem reads).
      const code = String(tls.authorizationError ?? 'CERT_UNTRUSTED');
      callback(ownOrigin ? new FingerprintMismatch(presented, pinned) : Object.assign(new Error(`certificate not accepted: ${code}`), { code }), null);
    });
  };
}
