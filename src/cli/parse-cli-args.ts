// Thin wrapper over node:util parseArgs that turns its errors into UsageError with the command's name.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCliArgs<O extends Options>(command: string, argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
  } catch (err) {
    throw new UsageError(`${command}: ${(err as Error).message.replace(/\. To specify.*$/s, '')}; see 'traffic-counter ${command} --help'`, { cause: err });
  }
}

/** Parses a positive number flag, e.g. --fps 2.5. */
export function numberFlag(name: string, value: string | undefined, def: number, opts: { min?: number; integer?: boolean } = {}): number {
  if (value === undefined) return def;
  const n = Number(value);
  const min = opts.min ?? 0;
  if (value.trim() === '' || !Number.isFinite(n) || n < min || (opts.integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name}: must be ${opts.integer ? 'an integer' : 'a number'} >= ${min}, got "${value}"`);
  }
  return n;
}

/** Parses --decode-scale; its allowed values (and how they fit analyzer.downscale) are checked with the config. */
export function decodeScaleFlag(value: string | undefined): number | undefined {
  return value === undefined ? undefined : numberFlag('decode-scale', value, 1, { min: 1, integer: true });
}

export function requireFlag(command: string, name: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError(`${command}: --${name} is required; see 'traffic-counter ${command} --help'`);
  return value;
}
