// Every error code the service can report is documented in docs/errors.md, and every documented code exists.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ConfigError, TrafficCounterError } from '../dist/src/errors.js';

const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');

describe('error codes', () => {
  it('are all documented', () => {
    const missing = ERROR_CODES.filter((c: string) => !doc.includes(`\`${c}\``));
    expect(missing).toEqual([]);
  });

  it('documents no code that does not exist', () => {
    const documented = [...doc.matchAll(/`(TC_ERR_[A-Z_]+)`/g)].map((m) => m[1]);
    expect(documented.filter((c) => !(ERROR_CODES as readonly string[]).includes(c!))).toEqual([]);
  });

  it('carry a stable code and a cause', () => {
    const cause = new Error('root');
    const err = new ConfigError('cameras[0].roi: bad', { cause });
    expect(err).toBeInstanceOf(TrafficCounterError);
    expect(err.code).toBe('TC_ERR_CONFIG');
    expect(err.cause).toBe(cause);
    expect(err.name).toBe('ConfigError');
  });
});
