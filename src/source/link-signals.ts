// Makes a controller abort when any of several signals aborts, and returns a function that removes the
// listeners again (AbortSignal.any would keep them on the long-lived close signal until it is collected).

export function linkSignals(controller: AbortController, signals: ReadonlyArray<AbortSignal | undefined>): () => void {
  const attached: AbortSignal[] = [];
  const onAbort = (event: Event): void => {
    controller.abort((event.target as AbortSignal).reason);
  };
  for (const s of signals) {
    if (!s) continue;
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
    attached.push(s);
  }
  return () => {
    for (const s of attached) s.removeEventListener('abort', onAbort);
    attached.length = 0;
  };
}
