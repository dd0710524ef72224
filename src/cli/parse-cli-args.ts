// Thin wrapper over node:util parseArgs that turns its errors into UsageError with the command's name, and the
// checks of flag values (numbers, required flags, flags that only mean something beside another).

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A value parseArgs would take for an option of its own: `-5` after `--duration` is a negative number. */
const NEGATIVE_NUMBER = /^-\.?\d/;

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** parseArgs' values and positionals for a command's options plus -h/--help (named so that .d.ts can be written). */
export type CliArgs<O extends Options> = Pick<
  ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof HELP; strict: true; allowPositionals: boolean; tokens: true }>>,
  'values' | 'positionals'
>;

/**
 * What to give instead of an empty value, per value option: `--config ""` is refused as "run: --config given empty;
 * give HINT". Default: "a value, or leave --NAME out".
 */
export type EmptyHints<O extends Options> = Partial<Record<Extract<keyof O, string>, string>>;

/**
 * Parses a command's flags (and its one argument, where it takes one: `positional`). A value option, or the argument, given empty (`--camera ""`, `--camera=`: what an unset shell variable
 * gives) is refused, naming the flag, with the command's hint for it: read as the flag left out it counted the
 * simulator as the camera, answered every camera, or left a link unencrypted; read as a value it was blamed on a file
 * or folder that was never named.
 */
export function parseCliArgs<O extends Options>(
  command: string, argv: string[], options: O, emptyHints: EmptyHints<O> = {}, positional?: Positional,
): CliArgs<O> {
  const all = { ...options, ...HELP };
  const usage = (what: string, cause?: unknown): UsageError => new UsageError(`${command}: ${what}; see 'traffic-counter ${command} --help'`, cause === undefined ? undefined : { cause });
  let parsed;
  try {
    parsed = parseArgs({ args: joinNegativeValues(argv, all), options: all, strict: true, allowPositionals: positional !== undefined, tokens: true });
  } catch (err) {
    throw usage(describeParseError(err as Error, argv, all), err);
  }
  const help = (parsed.values as { help?: boolean }).help === true;
  const given = new Map<string, string>();
  for (const t of parsed.tokens) {
    if (t.kind === 'option' && t.value === '' && !help) {
      const hints: Partial<Record<string, string>> = emptyHints;
      throw new UsageError(`${command}: --${t.name} given empty; give ${hints[t.name] ?? `a value, or leave --${t.name} out`}`);
    }
    // The same rule for an argument (`zeromq-key ""`): it was blamed on a folder never named.
    if (t.kind === 'positional' && t.value === '' && positional && !help) throw new UsageError(`${command}: ${positional.name} given empty; give ${positional.hint}`);
    // parseArgs keeps the last of a flag given twice: `--bucket minute --bucket hour` would answer by the hour.
    // A flag that takes several values (`multiple`) is given once per value.
    if (t.kind !== 'option' || t.value === undefined || all[t.name]?.multiple) continue;
    const before = given.get(t.name);
    if (before !== undefined) {
      throw usage(`--${t.name} given twice (${JSON.stringify(before)}, then ${JSON.stringify(t.value)}); give it once`);
    }
    given.set(t.name, t.value);
  }
  if (positional && !help && parsed.positionals.length !== 1) {
    throw usage(`give one ${positional.name}, got ${parsed.positionals.length === 0 ? 'none' : parsed.positionals.map((p) => JSON.stringify(p)).join(' and ')}`);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

/** A command's one required argument (`zeromq-key FILE`): its name in the usage, and what to give (see EmptyHints). */
export interface Positional {
  readonly name: string;
  readonly hint: string;
}

/**
 * parseArgs reads `--duration -5` as a flag missing its value ("ambiguous"), so the value's own check never
 * runs. Given as `--duration=-5` it reaches numberFlag, which says what the flag needs.
 */
function joinNegativeValues(argv: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

function describeParseError(err: Error, argv: readonly string[], options: Options): string {
  const ambiguous = /^Option '(--[^' ]+)' argument is ambiguous/.exec(err.message);
  if (ambiguous) {
    // `--db --bucket hour`: the value was forgotten; `--db -x.db`: the value starts with a dash.
    const flag = ambiguous[1]!;
    const next = argv[argv.indexOf(flag) + 1] ?? '';
    const isFlag = next === '-h' || Object.hasOwn(options, next.replace(/^--/, '').replace(/=.*$/, ''));
    return isFlag ? `${flag} needs a value, got the flag ${next} after it` : `${flag} needs a value; if it is ${JSON.stringify(next)}, write ${flag}=${next}`;
  }
  return err.message.replace(/\. To specify.*$/s, '');
}

/** What a number flag accepts; its error message is built from this. */
export interface NumberRule {
  /** Smallest allowed value (default 0). */
  readonly min?: number;
  readonly max?: number;
  readonly integer?: boolean;
  /** What the number measures, plural: 'seconds'. */
  readonly unit?: string;
  /** What a special value means: '0 = any free port'. */
  readonly note?: string;
}

export const PORT_RULE: NumberRule = { min: 0, max: 65_535, integer: true, note: '0 = any free port' };
/** A folder's capture rate (replay, eval). */
export const FPS_RULE: NumberRule = { min: 0.001, unit: 'frames per second' };

/** What a number flag takes, as said in its errors: 'a whole number, 0 or more'. */
export function describeRule({ min = 0, max, integer, unit, note }: NumberRule): string {
  const range = max === undefined ? `${integer ? ', ' : ''}${min} or more` : ` from ${min} to ${max}`;
  return `${integer ? 'a whole number' : ''}${range}${unit ? ` ${unit}` : ''}${note ? ` (${note})` : ''}`.trim();
}

/** Parses a number flag, e.g. --fps 2.5; refuses, naming the flag and the value given, what the rule does not allow. */
export function numberFlag(name: string, value: string | undefined, def: number, rule: NumberRule = {}): number {
  if (value === undefined) return def;
  const n = Number(value);
  const { min = 0, max = Infinity } = rule;
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max || (rule.integer && !Number.isInteger(n))) {
    throw new UsageError(`${flagText(name, value)}: must be ${describeRule(rule)}`);
  }
  return n;
}

/** A flag as the user gave it, for messages: `--duration -5`, `--db ""`. */
export function flagText(name: string, value: string): string {
  return `--${name} ${/^[\w.:/+@-]+$/.test(value) ? value : JSON.stringify(value)}`;
}

/** The hints (see EmptyHints) of the flags that run, replay and eval share. */
export const CHANNEL_HINTS = {
  channel: "ipc, zeromq or shared, or leave --channel out for the config's (ipc by default)",
  decoder: "jpeg-js, jpeg-turbo or sharp, or leave --decoder out for the config's (jpeg-js by default)",
  'decode-scale': "1, 2, 4 or 8 (decode frames at 1/N), or leave --decode-scale out for the config's",
} as const;

/** Parses --decode-scale; its allowed values (and how they fit analyzer.downscale) are checked with the config. */
export function decodeScaleFlag(value: string | undefined): number | undefined {
  return value === undefined ? undefined : numberFlag('decode-scale', value, 1, { min: 1, integer: true });
}

export function requireFlag(command: string, name: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`${command}: --${name} is required; see 'traffic-counter ${command} --help'`);
  return value;
}
