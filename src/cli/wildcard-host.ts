// A server bound on every interface (0.0.0.0, ::) has no address of that name to give: "http://0.0.0.0:8080" sends
// a client on another host to itself, and browsers refuse it. Start lines name such an address as HOST, with what
// to put for it: this machine's name and addresses.
import { hostname, networkInterfaces } from 'node:os';

/** Addresses named, at most. */
const ADDRESSES_SHOWN = 4;

/** A URL or endpoint with no path (http://HOST:PORT, tcp://HOST:PORT): [1] its host ([::] bracketed), [2] its port. */
export const URL_HOST_PORT = /^[a-z]+:\/\/(\[[^\]]*\]|[^:/]+):(\d+)$/;

/** Whether a URL or endpoint's host part is a wildcard bind ("0.0.0.0", "*", "[::]" or "::"). */
export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '*' || host === '[::]' || host === '::';
}

/** "HOST: this machine's name (vm) or an address of it (192.0.2.2, …)", for a bind on every interface (v6: IPv6 too). */
export function hostNote(v6: boolean): string {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .flatMap((a) => (a === undefined || a.internal || (a.family === 'IPv6' && (!v6 || a.address.startsWith('fe80:'))) ? [] : [a.family === 'IPv6' ? `[${a.address}]` : a.address]));
  const shown = addresses.length === 0 ? '' : ` or an address of it (${addresses.slice(0, ADDRESSES_SHOWN).join(', ')}${addresses.length > ADDRESSES_SHOWN ? ', …' : ''})`;
  return `HOST: this machine's name (${hostname()})${shown}`;
}
