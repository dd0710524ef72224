// Parses a camera URL once: checks the scheme, moves user:password into a Basic Authorization header
// (undici does not send URL credentials) and keeps a redacted form for error messages.

import { ConfigError } from '../errors.js';

export interface CameraUrl {
  /** The URL to request, without credentials. */
  readonly href: string;
  /** For messages and logs: the password replaced by "***". */
  readonly display: string;
  /** Extra request headers (authorization when the URL carried credentials). */
  readonly headers: Readonly<Record<string, string>>;
}

export function parseCameraUrl(cameraId: string, url: string): CameraUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch (err) {
    throw new ConfigError(`camera ${cameraId}: url "${url}" is not a valid URL; use e.g. http://192.168.1.20/snapshot.jpg`, { cause: err });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`camera ${cameraId}: url must start with http:// or https://, got "${u.protocol}"`);
  }
  const headers: Record<string, string> = {};
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  const display = new URL(u.href);
  if (display.password) display.password = '***';
  u.username = '';
  u.password = '';
  return { href: u.href, display: display.href, headers };
}
