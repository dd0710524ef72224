// The warnings (process.emitWarning) the process emits from a call until the test that made it ends.
import { onTestFinished } from 'vitest';

export function warnings(): string[] {
  const seen: string[] = [];
  const listen = (w: Error): void => void seen.push(w.message);
  process.on('warning', listen);
  onTestFinished(() => void process.off('warning', listen));
  return seen;
}
