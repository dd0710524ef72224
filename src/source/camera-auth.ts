// HTTP authentication with the user and password of a camera URL: Basic (RFC 7617) and Digest (RFC 7616, and
// RFC 2617/2069 for older firmware). Most IP cameras (Hikvision, Dahua, Axis, …) ask for Digest on their snapshot
// and stream URLs; sending Basic there only got "HTTP 401, check the user and password" with the right ones.
// Nothing is sent until the camera asks: the first request goes without credentials, and the 401's challenge says
// which scheme to answer (Digest is preferred to Basic when both are offered, so the password is not sent in clear
// text to a camera that can take a digest). The scheme learned is then sent with every request, its nonce reused
// with a counted nc, until the camera asks again (a stale nonce).

import { createHash, randomBytes } from 'node:crypto';
import { loginExample, queryPasswordParam } from './camera-url.js';

/** One challenge of a WWW-Authenticate header: its scheme and its parameters (names in lower case). */
export interface Challenge {
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * Every challenge in the WWW-Authenticate header(s) of a 401: one header may hold several, separated by commas
 * like the parameters, e.g. `Digest realm="a", nonce="b", algorithm=SHA-256, Digest realm="a", nonce="c", Basic realm="a"`.
 */
export function parseChallenges(header: string | readonly string[] | undefined): Challenge[] {
  const out: { scheme: string; params: Record<string, string> }[] = [];
  for (const text of typeof header === 'string' ? [header] : (header ?? [])) {
    let i = 0;
    const skip = (chars: string): void => {
      while (i < text.length && chars.includes(text[i]!)) i++;
    };
    while (i < text.length) {
      skip(' \t,');
      const start = i;
      while (i < text.length && !' \t,='.includes(text[i]!)) i++;
      const token = text.slice(start, i);
      if (!token) {
        i++; // a stray '=': step over it
        continue;
      }
      skip(' \t');
      if (text[i] !== '=') {
        out.push({ scheme: token, params: {} });
        continue;
      }
      i++;
      skip(' \t');
      let value = '';
      if (text[i] === '"') {
        for (i++; i < text.length && text[i] !== '"'; i++) value += text[i] === '\\' && i + 1 < text.length ? text[++i] : text[i];
        i++;
      } else {
        const v0 = i;
        while (i < text.length && text[i] !== ',' && text[i] !== ' ' && text[i] !== '\t') i++;
        value = text.slice(v0, i);
      }
      // A parameter before any scheme, or a token68 (`Negotiate abc==`), is not one we read.
      const current = out.at(-1);
      if (current) current.params[token.toLowerCase()] = value;
    }
  }
  return out;
}

/** Digest algorithms and the node hash each uses. */
const DIGEST_HASHES: Record<string, string> = { 'MD5': 'md5', 'SHA-256': 'sha256', 'SHA-512-256': 'sha512-256' };
/** Preference when a camera offers several (RFC 7616 §3.7: the client uses the first it supports, in the server's order — but MD5 comes last here, as the weakest). */
const DIGEST_RANK = ['SHA-512-256', 'SHA-256', 'MD5'];

interface DigestState {
  readonly realm: string;
  readonly nonce: string;
  readonly opaque: string | undefined;
  /** As the camera named it (`MD5`, `SHA-256-sess`, …), or undefined when it named none (MD5, and none is sent back). */
  readonly algorithm: string | undefined;
  readonly hash: string;
  readonly sess: boolean;
  readonly qop: 'auth' | 'auth-int' | undefined;
  readonly userhash: boolean;
  /** One per nonce, with nc counting the requests (a -sess session key is made with it once). */
  readonly cnonce: string;
  /** Requests made with this nonce. */
  nc: number;
}

/** The algorithm a Digest challenge names, split into its hash and whether it is a -sess variant; undefined when unsupported. */
function digestAlgorithm(name: string | undefined): { base: string; sess: boolean } | undefined {
  const upper = (name ?? 'MD5').toUpperCase();
  const sess = upper.endsWith('-SESS');
  const base = sess ? upper.slice(0, -5) : upper;
  return DIGEST_HASHES[base] ? { base, sess } : undefined;
}

function quote(s: string): string {
  return `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export type AuthScheme = 'basic' | 'digest';

export class CameraAuth {
  readonly #user: string;
  readonly #password: string;
  readonly #hasCredentials: boolean;
  #scheme: AuthScheme | undefined;
  #digest: DigestState | undefined;
  /** The schemes the camera offered in its latest challenge, as it named them (for the error message). */
  #offered: string[] = [];
  /** For tests: a fixed cnonce. */
  readonly #cnonce: () => string;

  constructor(credentials: { readonly user: string; readonly password: string } | undefined, opts: { readonly cnonce?: () => string } = {}) {
    this.#user = credentials?.user ?? '';
    this.#password = credentials?.password ?? '';
    this.#hasCredentials = credentials !== undefined;
    this.#cnonce = opts.cnonce ?? (() => randomBytes(16).toString('hex'));
  }

  /** The scheme in use (learned from the camera's challenge), or undefined before the camera asked. */
  get scheme(): AuthScheme | undefined {
    return this.#scheme;
  }

  /** The Authorization header for the next request (`uri`: its path and query), or undefined to send none. */
  header(method: string, uri: string): string | undefined {
    if (this.#scheme === 'basic') return `Basic ${Buffer.from(`${this.#user}:${this.#password}`).toString('base64')}`;
    if (this.#scheme === 'digest' && this.#digest) return this.#digestHeader(this.#digest, method, uri);
    return undefined;
  }

  /**
   * A 401 came, to a request made with `used` (what header() gave for it: undefined, or a header of the current
   * scheme). Learns the camera's challenge; true when the same request should be made again at once with the new
   * credentials: a scheme not tried yet, or a stale nonce. False when that would not help: no credentials, or the
   * ones given were refused.
   */
  challenged(wwwAuthenticate: string | readonly string[] | undefined, used: string | undefined): boolean {
    const challenges = parseChallenges(wwwAuthenticate);
    this.#offered = challenges.map((c) => c.scheme);
    if (!this.#hasCredentials) return false;
    const digest = this.#pickDigest(challenges);
    if (digest) {
      const c = digest.challenge;
      const wasDigest = used !== undefined && this.#scheme === 'digest';
      // A camera that takes each nonce once may say so without `stale=true` (some firmware): a refusal of a nonce
      // used more than once, with a new one offered, is tried again with it. A refusal of a first use is not, so a
      // wrong password costs one request per poll.
      const prev = this.#digest;
      const stale = (c.params.stale ?? '').toLowerCase() === 'true' || (prev !== undefined && prev.nc > 1 && c.params.nonce !== prev.nonce);
      const qops = (c.params.qop ?? '').split(',').map((q) => q.trim().toLowerCase());
      this.#digest = {
        realm: c.params.realm ?? '',
        nonce: c.params.nonce ?? '',
        opaque: c.params.opaque,
        algorithm: c.params.algorithm,
        hash: DIGEST_HASHES[digest.base]!,
        sess: digest.sess,
        qop: qops.includes('auth') ? 'auth' : qops.includes('auth-int') ? 'auth-int' : undefined,
        userhash: (c.params.userhash ?? '').toLowerCase() === 'true',
        cnonce: this.#cnonce(),
        nc: 0,
      };
      this.#scheme = 'digest';
      // Refused with a digest of the password: the password is wrong, unless only the nonce had expired.
      return !wasDigest || stale;
    }
    // Basic, or a 401 that names no scheme at all (some firmware): Basic, once. Not after Digest was learnt: a
    // camera that took a digest does not ask for the password in clear text, so something else does.
    if (this.#scheme === 'digest') return false;
    if (challenges.length === 0 || challenges.some((c) => c.scheme.toLowerCase() === 'basic')) {
      const wasBasic = used !== undefined && this.#scheme === 'basic';
      this.#scheme = 'basic';
      this.#digest = undefined;
      return !wasBasic;
    }
    return false;
  }

  /**
   * What to tell the user about a 401 that was not overcome (the fix), from what the camera asked and what was
   * sent; `url`, the camera URL, shows where the user and password go (see loginExample).
   */
  refusalHint(url: string): string {
    const example = loginExample(url);
    const offered = this.#offered.length ? this.#offered.join(', ') : 'no scheme named';
    if (!this.#hasCredentials) {
      const param = queryPasswordParam(url);
      if (param !== undefined) {
        return `the camera asks for a user and password (${offered}) and did not take the ones in the URL's query (${param}=); check them, or give them in the camera URL as ${example}`;
      }
      return `the camera asks for a user and password (${offered}); put them in the camera URL (${example})`;
    }
    if (this.#scheme === undefined) {
      return `the camera asks for authentication traffic-counter does not speak (${offered}; Basic and Digest are supported); allow Basic or Digest for this user in the camera's settings`;
    }
    if (this.#scheme === 'digest' && this.#offered.length === 0) {
      return `the camera refused the Digest answer without a new challenge (some cameras do so for a while after too many failed logins); check the user and password in the camera URL (${example}), and wait for the camera to let this address in again`;
    }
    if (this.#scheme === 'digest' && !this.#offered.some((o) => o.toLowerCase() === 'digest')) {
      return `the camera took Digest authentication before and now asks for ${offered} only, which would send the password in clear text: it was not sent; check what answers at this address`;
    }
    return `the camera refused the user and password in the camera URL (${this.#scheme === 'digest' ? 'Digest' : 'Basic'} authentication); check them (${example}), and that this user may read snapshots or streams`;
  }

  #pickDigest(challenges: readonly Challenge[]): { challenge: Challenge; base: string; sess: boolean } | undefined {
    let best: { challenge: Challenge; base: string; sess: boolean } | undefined;
    for (const c of challenges) {
      if (c.scheme.toLowerCase() !== 'digest' || c.params.nonce === undefined) continue;
      const alg = digestAlgorithm(c.params.algorithm);
      // A -sess key is made with the cnonce, which is sent only with a qop: without one the camera could not check it.
      if (!alg || (alg.sess && !/\bauth(-int)?\b/i.test(c.params.qop ?? ''))) continue;
      if (!best || DIGEST_RANK.indexOf(alg.base) < DIGEST_RANK.indexOf(best.base)) best = { challenge: c, ...alg };
    }
    return best;
  }

  #digestHeader(d: DigestState, method: string, uri: string): string {
    const h = (s: string): string => createHash(d.hash).update(s, 'utf8').digest('hex');
    d.nc++;
    const nc = d.nc.toString(16).padStart(8, '0');
    const cnonce = d.cnonce;
    let ha1 = h(`${this.#user}:${d.realm}:${this.#password}`);
    if (d.sess) ha1 = h(`${ha1}:${d.nonce}:${cnonce}`);
    // A GET has an empty body: auth-int hashes it too.
    const ha2 = d.qop === 'auth-int' ? h(`${method}:${uri}:${h('')}`) : h(`${method}:${uri}`);
    const response = d.qop ? h(`${ha1}:${d.nonce}:${nc}:${cnonce}:${d.qop}:${ha2}`) : h(`${ha1}:${d.nonce}:${ha2}`);
    // A user name outside printable ASCII cannot go in a quoted string (RFC 7616 §3.4.4): it is sent as username*,
    // percent-encoded UTF-8 (the hashes take it as UTF-8 too).
    const name = d.userhash
      ? `username=${quote(h(`${this.#user}:${d.realm}`))}`
      : /^[\x20-\x7e]*$/.test(this.#user)
        ? `username=${quote(this.#user)}`
        : `username*=UTF-8''${encodeURIComponent(this.#user).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
    const parts = [name, `realm=${quote(d.realm)}`, `nonce=${quote(d.nonce)}`, `uri=${quote(uri)}`];
    if (d.algorithm !== undefined) parts.push(`algorithm=${d.algorithm}`);
    parts.push(`response=${quote(response)}`);
    if (d.opaque !== undefined) parts.push(`opaque=${quote(d.opaque)}`);
    if (d.qop) parts.push(`qop=${d.qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`);
    if (d.userhash) parts.push('userhash=true');
    return `Digest ${parts.join(', ')}`;
  }
}
