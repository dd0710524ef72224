// The better-sqlite3 build to use. better-sqlite3 ≤ 12 (node::ObjectWrap) aborts the process on Node 24
// when a garbage-collected statement is finalized ("Assertion failed: (env) != nullptr" in
// RemoveEnvironmentCleanupHook); 13 (Node-API) fixes that but requires Node 22+. So Node 22+ loads 13
// (installed as the optional alias better-sqlite3-napi) and Node 20 keeps 12.

import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

function load(): typeof BetterSqlite3 {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) {
    try {
      return require('better-sqlite3-napi') as typeof BetterSqlite3;
    } catch {
      // Optional dependency missing: fall back to 12, which works on Node 22 (the crash is Node 24's).
    }
  }
  return require('better-sqlite3') as typeof BetterSqlite3;
}

/** The better-sqlite3 Database constructor for this Node version. */
export const Database: typeof BetterSqlite3 = load();
