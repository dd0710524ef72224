// The undici dispatcher for one camera: a keep-alive Agent with one connection per origin (a source makes
// one request at a time) and connect/headers/body timeouts taken from the camera's timeoutMs. For an https://
// camera, its certificate is checked as a browser would, or against the fingerprint the config pins (cameras
// mostly have self-signed certificates, which no CA vouches for), or not at all when the config says so.

import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';

import { SourceError } from '../errors.js';

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

/** Node's codes for a certificate that was not accepted. */
const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
]);

/** The certificate problem behind a failed request (its code, or the mismatch), if that is what it was. */
export function certificateProblem(err: unknown, depth = 0): string | FingerprintMismatch | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  if (err instanceof FingerprintMismatch) return err;
  const e = err as { code?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && CERT_CODES.has(e.code)) return e.code;
  return certificateProblem(e.cause, depth + 1);
}

/**
 * The SHA-256 fingerprint of the certificate a server presents, read over a connection that accepts any (nothing
 * is sent over it), or undefined if it cannot be read within timeoutMs.
 */
export function presentedFingerprint(url: URL, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = tlsConnect({ host, port: Number(url.port || 443), servername: /^[\d.]+$|:/.test(host) ? undefined : host, rejectUnauthorized: false });
    const done = (fp: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(fp);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('secureConnect', () => done(socket.getPeerCertificate().fingerprint256 || undefined));
    socket.once('error', () => done(undefined));
  });
}

/**
 * The TC_ERR_SOURCE_TLS error for a certificate problem, naming the fingerprint the camera presented (read once
 * more if the problem was not a mismatch) so that the user can check it and pin it.
 */
export async function certificateError(problem: string | FingerprintMismatch, ctx: { cameraId: string; url: string; href: string; timeoutMs: number; cause: unknown }): Promise<SourceError> {
  const where = `camera ${ctx.cameraId}: GET ${ctx.url}`;
  if (problem instanceof FingerprintMismatch) {
    return new SourceError(
      'TC_ERR_SOURCE_TLS',
      `${where}: the camera presented a certificate with SHA-256 fingerprint ${problem.presented}, not the one its tlsFingerprint pins (${problem.pinned}); ` +
        `if the camera's certificate was renewed (its web page or \`openssl s_client\` shows the new one), set tlsFingerprint to it; otherwise something else answers at this address`,
      { cause: ctx.cause },
    );
  }
  const presented = await presentedFingerprint(new URL(ctx.href), Math.min(ctx.timeoutMs, 5_000));
  const what =
    problem === 'DEPTH_ZERO_SELF_SIGNED_CERT' || problem === 'SELF_SIGNED_CERT_IN_CHAIN'
      ? 'a self-signed certificate (as most cameras do), which no certificate authority vouches for'
      : problem === 'ERR_TLS_CERT_ALTNAME_INVALID'
        ? 'a certificate for another name than the one in the URL'
        : problem === 'CERT_HAS_EXPIRED' || problem === 'CERT_NOT_YET_VALID'
          ? 'a certificate outside its validity dates'
          : 'a certificate no known authority vouches for';
  const pin = presented
    ? `if ${presented} is your camera's certificate's SHA-256 fingerprint (its web page or \`openssl s_client\` shows it), set the camera's "tlsFingerprint": "${presented}"`
    : `set the camera's "tlsFingerprint" to its certificate's SHA-256 fingerprint (its web page or \`openssl s_client\` shows it)`;
  return new SourceError('TC_ERR_SOURCE_TLS', `${where}: the camera presented ${what} (${problem}); ${pin}; or "tlsInsecure": true accepts any certificate (not recommended)`, { cause: ctx.cause });
}
