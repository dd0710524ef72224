// Parses a camera URL once: checks the scheme, takes user:password out of it (undici does not send URL credentials;
// CameraAuth answers the camera's challenge with them) and keeps a redacted form for error messages.

import { ConfigError } from '../errors.js';
import { hideQuerySecrets, PASSWORD_NAMES } from '../secrets.js';

export interface CameraUrl {
  /** The URL to request, without credentials. */
  readonly href: string;
  /** For messages and logs: the password replaced by "***". */
  readonly display: string;
  /** The user and password the URL carried (percent-decoded), if any. */
  readonly credentials: { readonly user: string; readonly password: string } | undefined;
}

/**
 * A URL as given, for a message: a password in it (`user:PASSWORD@`) shown as ***, and the values of query
 * parameters that carry secrets (see hideQuerySecrets). A URL that parses is read as one; one that does not (or has no
 * host: `admin:pw@192.0.2.1/x`, a forgotten scheme) has everything from the first ":" after its scheme to its last
 * "@" hidden, as its password may hold "/", "?", "#" or "@" (over-hiding a message is harmless).
 */
export function hideUrlPassword(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed && parsed.host !== '') {
    if (parsed.password) parsed.password = '***';
    return hideQuerySecrets(parsed.href);
  }
  const at = url.lastIndexOf('@');
  const slashes = url.indexOf('//');
  const start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
  const colon = url.indexOf(':', start);
  const hidden = at < 0 || colon < 0 || colon > at ? url : `${url.slice(0, colon + 1)}***${url.slice(at)}`;
  return hideQuerySecrets(hidden);
}

/**
 * The camera URL with a user and password in it, for a message saying where they go: the camera's own scheme, host
 * and path (`https://user:password@cam.example:8443/snap.jpg`), its user where it has one, query secrets hidden.
 * `keepPath` false: `/path` in place of the URL's path and query (a URL that answered a web page, not the pictures).
 * A URL that does not parse gets the generic `http://user:password@host/path`.
 */
export function loginExample(url: string, keepPath = true): string {
  let parsed: URL;
  try {
    // A message's URL may go on with " (redirected to …)": the camera URL is what comes before.
    parsed = new URL(url.split(' ', 1)[0]!);
  } catch {
    return 'http://user:password@host/path';
  }
  if (parsed.host === '') return 'http://user:password@host/path';
  if (!parsed.username) parsed.username = 'user';
  parsed.password = 'password';
  if (!keepPath) return `${parsed.protocol}//${parsed.username}:password@${parsed.host}/path`;
  return hideQuerySecrets(parsed.href);
}

/**
 * The fix for a camera URL that answered a web page (its login page, perhaps): `lead`, what to check first, then
 * where the user and password go, or, for a URL giving its password in the query, that the camera did not take it.
 * `url` '' (unknown to the caller) gives the generic example. `give`: the lead's verb is not "give", so say it.
 */
export function webPageFix(lead: string, url: string, give = false): string {
  const param = queryPasswordParam(url);
  return param === undefined
    ? `${lead}, and ${give ? 'give ' : ''}its user and password (${loginExample(url, false)}) if it asks for a login`
    : `${lead}; if this is its login page, it did not take the user and password in the URL's query (${param}=): check them, or give them as ${loginExample(url, false)}`;
}

/** Query parameters that carry a camera's password (`?usr=admin&pwd=…`): PASSWORD_NAMES, some of those hidden in messages. */
const PASSWORD_PARAM = new RegExp(`[?&;](${PASSWORD_NAMES})=`, 'i');

/**
 * The name of the query parameter through which `url` gives the camera a password (`pwd` for
 * `http://cam/snap.cgi?usr=admin&pwd=…`), or undefined: a camera that wants its login there is told to check it, not
 * to put `user:password@` in the URL. A message's " (redirected to …)" is not read.
 */
export function queryPasswordParam(url: string): string | undefined {
  const own = url.split(' ', 1)[0]!.split('#', 1)[0]!;
  return PASSWORD_PARAM.exec(own)?.[1];
}

export function parseCameraUrl(cameraId: string, url: string): CameraUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch (err) {
    throw new ConfigError(`camera ${cameraId}: url "${hideUrlPassword(url)}" is not a valid URL; use e.g. http://192.168.1.20/snapshot.jpg`, { cause: err });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`camera ${cameraId}: url must start with http:// or https://, got "${u.protocol}"`);
  }
  let credentials: CameraUrl['credentials'];
  if (u.username || u.password) {
    try {
      credentials = { user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
    } catch (err) {
      // The password is not echoed: the message goes to logs.
      throw new ConfigError(
        `camera ${cameraId}: the user or password in the url has a "%" that starts no valid escape; write a "%" in them as %25 (and "@" as %40, ":" in the user as %3A)`,
        { cause: err },
      );
    }
  }
  // Read before the credentials are taken out of `u`.
  const display = hideUrlPassword(u.href);
  u.username = '';
  u.password = '';
  return { href: u.href, display, credentials };
}
