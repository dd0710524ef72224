// Throws away an undici response body we will not read. destroy() alone makes undici emit an AbortError on
// the body, which would be an uncaught exception (a daemon crash) without a listener.

import type { Dispatcher } from 'undici';

export function discardBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}
