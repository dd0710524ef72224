// Command-line flags that override keys of a validated config; the result is validated and frozen again.

import type { Config } from './config-types.js';
import { validateConfig } from './validate-config.js';
import { ConfigError, UsageError } from '../errors.js';

const FLAG_NAMES: Record<string, string> = { zeromqEndpoint: 'zeromq-endpoint', zeromqKeyFile: 'zeromq-key-file', httpHost: 'http-host', httpPort: 'http', httpAllowedHosts: 'http-allowed-host', decodeScale: 'decode-scale' };

export interface ConfigOverrides {
  readonly db?: string | undefined;
  readonly channel?: string | undefined;
  readonly decoder?: string | undefined;
  readonly decoders?: number | undefined;
  readonly decodeScale?: number | undefined;
  readonly zeromqEndpoint?: string | undefined;
  readonly zeromqKeyFile?: string | undefined;
  readonly httpHost?: string | undefined;
  readonly httpPort?: number | undefined;
  readonly httpAllowedHosts?: readonly string[] | undefined;
}

export function applyOverrides(config: Config, overrides: ConfigOverrides, requireUrl = false): Config {
  const raw: Record<string, unknown> = JSON.parse(JSON.stringify(config));
  // A validated config holds "" for these when unset, which a config given to validateConfig may not say: leave them out.
  for (const key of ['zeromqEndpoint', 'zeromqKeyFile'] as const) if (raw[key] === '') delete raw[key];
  let changed = false;
  for (const [k, v] of Object.entries(overrides)) {
    if (v !== undefined) {
      raw[k] = v;
      changed = true;
    }
  }
  // Re-validation gives flags the same checks and messages as config keys.
  if (!changed) return config;
  try {
    return validateConfig(raw, { requireUrl });
  } catch (err) {
    const key = Object.keys(overrides).find((k) => err instanceof ConfigError && err.message.startsWith(`${k}:`));
    if (key) throw new UsageError(`--${FLAG_NAMES[key] ?? key}${(err as Error).message.slice(key.length)}`, { cause: err });
    throw err;
  }
}
