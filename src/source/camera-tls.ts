// Telling a user why an https:// camera's certificate was not accepted: which problem it was, and the SHA-256
// fingerprint the camera presented (read over a second connection that accepts any), which tlsFingerprint pins.

import { connect as tlsConnect } from 'node:tls';

import { SourceError } from '../errors.js';
import { FingerprintMismatch } from './camera-agent.js';

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
  'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'ERR_TLS_CERT_SIGNATURE_ALGORITHM_UNSUPPORTED',
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
export function presentedFingerprint(url: URL, timeoutMs: number, signal?: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(undefined);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = tlsConnect({ host, port: Number(url.port || 443), servername: /^[\d.]+$|:/.test(host) ? undefined : host, rejectUnauthorized: false });
    const done = (fp: string | undefined): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(fp);
    };
    const onAbort = (): void => done(undefined);
    const timer = setTimeout(onAbort, timeoutMs);
    timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => done(socket.getPeerCertificate().fingerprint256 || undefined));
    socket.once('error', onAbort);
  });
}

/** The last resort either message offers. */
const INSECURE = 'or "tlsInsecure": true accepts any certificate (--tls-insecure; not recommended)';

/**
 * The TC_ERR_SOURCE_TLS error for a certificate problem, naming the fingerprint the camera presented (read once
 * more if the problem was not a mismatch) so that the user can check it and pin it. `own`: false when the
 * certificate is that of a server the camera redirected to (`href`), which the camera's pin does not cover.
 */
export async function certificateError(
  problem: string | FingerprintMismatch,
  ctx: { cameraId: string; url: string; href: string; own: boolean; timeoutMs: number; cause: unknown; signal?: AbortSignal },
): Promise<SourceError> {
  const where = `camera ${ctx.cameraId}: GET ${ctx.url}`;
  if (problem instanceof FingerprintMismatch) {
    return new SourceError(
      'TC_ERR_SOURCE_TLS',
      `${where}: the camera presented a certificate with SHA-256 fingerprint ${problem.presented}, not the one its tlsFingerprint pins (${problem.pinned}); ` +
        `if the camera's certificate was renewed (its web page or \`openssl s_client\` shows the new one), set tlsFingerprint to it (\`run --camera\`: --tls-fingerprint ${problem.presented}); otherwise something else answers at this address`,
      { cause: ctx.cause },
    );
  }
  // Bounded by the request's own limit and cancelled with it (a closing source does not wait for it).
  const presented = await presentedFingerprint(new URL(ctx.href), Math.min(ctx.timeoutMs, 5_000), ctx.signal);
  const what =
    problem === 'DEPTH_ZERO_SELF_SIGNED_CERT' || problem === 'SELF_SIGNED_CERT_IN_CHAIN'
      ? `a self-signed certificate${ctx.own ? ' (as most cameras do)' : ''}, which no certificate authority vouches for`
      : problem === 'ERR_TLS_CERT_ALTNAME_INVALID'
        ? 'a certificate for another name than the one in the URL'
        : problem === 'CERT_HAS_EXPIRED' || problem === 'CERT_NOT_YET_VALID'
          ? 'a certificate outside its validity dates'
          : 'a certificate no known authority vouches for';
  if (!ctx.own) {
    const origin = new URL(ctx.href).origin;
    return new SourceError(
      'TC_ERR_SOURCE_TLS',
      `${where}: ${origin}, which the camera redirected to, presented ${what} (${problem}${presented ? `; SHA-256 fingerprint ${presented}` : ''}); ` +
        `if you trust ${origin}, make the URL it redirected to the camera URL and pin its certificate there (tlsFingerprint); ` +
        INSECURE,
      { cause: ctx.cause },
    );
  }
  const pin = presented
    ? `if ${presented} is your camera's certificate's SHA-256 fingerprint (its web page or \`openssl s_client\` shows it), set the camera's "tlsFingerprint": "${presented}" (\`run --camera\`: --tls-fingerprint ${presented})`
    : `set the camera's "tlsFingerprint" to its certificate's SHA-256 fingerprint (its web page or \`openssl s_client\` shows it)`;
  return new SourceError('TC_ERR_SOURCE_TLS', `${where}: the camera presented ${what} (${problem}); ${pin}; ${INSECURE}`, { cause: ctx.cause });
}
