// The message of the ConfigError a call throws (and that it is one: code TC_ERR_CONFIG).
import { expect } from 'vitest';

export function configErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as { code?: string }).code).toBe('TC_ERR_CONFIG');
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}
