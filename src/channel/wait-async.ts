// Atomics.waitAsync is in Node 16+, but in TypeScript's lib only from ES2024 (this project targets ES2023).
interface AtomicsWaitAsync {
  waitAsync(ta: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

/**
 * Resolves once ta[index] has been notified or no longer holds `value`, without blocking the thread
 * (Atomics.waitAsync: an event-loop thread, such as the analyzer's, must never Atomics.wait).
 */
export async function waitAsync(ta: Int32Array, index: number, value: number): Promise<void> {
  const r = (Atomics as unknown as AtomicsWaitAsync).waitAsync(ta, index, value);
  if (r.async) await r.value;
}
