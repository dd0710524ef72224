// Optional decoder packages (native add-ons) are imported on first use, so that the project builds, installs
// and runs without them, and a missing one fails with a message that names the fix.

import { ConfigError } from '../errors.js';

const loading = new Map<string, Promise<unknown>>();

/**
 * The package's module (its default export for CommonJS packages), loaded once per process; `setup` runs once
 * on it. Throws ConfigError naming `npm install <pkg>` and --decoder jpeg-js when the package is absent or its
 * binary does not load here; a later call tries again (e.g. after the install).
 */
export function importOptional<T>(pkg: string, decoder: string, setup: (mod: T) => void = () => {}): Promise<T> {
  let p = loading.get(pkg) as Promise<T> | undefined;
  if (!p) {
    p = (async () => {
      try {
        const mod = (await import(pkg)) as { default?: T };
        const m = (mod.default ?? mod) as T;
        setup(m);
        return m;
      } catch (err) {
        throw new ConfigError(
          `decoder: "${decoder}" (--decoder ${decoder}) needs the optional package ${pkg}, which is not installed or does not load here (${(err as Error).message.split('\n')[0]}); run \`npm install ${pkg}\`, or use --decoder jpeg-js`,
          { cause: err },
        );
      }
    })();
    loading.set(pkg, p);
    p.catch(() => loading.delete(pkg));
  }
  return p;
}
