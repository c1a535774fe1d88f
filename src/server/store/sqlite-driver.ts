// Which better-sqlite3 this Node runs: two major versions are installed, each working where the
// other does not.
// - 12.x, compiled for the running Node's ABI, aborts the process on Node 24.19 and later
//   (SIGABRT, exit 134, a native stack on stderr) whenever one of its statements is finalised
//   outside a JavaScript context, which is at every exit: that Node's ObjectWrap removes a cleanup
//   hook in its destructor and asserts an environment (WiseLibs/better-sqlite3#1515, closed
//   without a fix in 12.x).
// - 13.x is a Node-API addon with prebuilt binaries and no install script; it needs Node 22 (on 20
//   it crashes at its first statement).
// So 13.x (installed as `better-sqlite3-13`) from Node 22 on, and 12.x (`better-sqlite3`) before,
// or where 13.x has no binary for the platform. Both are optional dependencies: a machine that
// cannot compile 12.x still installs, and so does Node 20 with engine-strict (13.x asks for 22).
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { requireV12 } from './driver-v12.js';

export interface SqliteDriver {
  Database: typeof BetterSqlite3;
  /**
   * The module's path, for a thread that opens its own connection (store/checkpointer.ts); asked
   * only then: a command that starts no thread does not walk node_modules for it.
   */
  module(): string;
  /** Options every connection is opened with (where the addon is). */
  options: { nativeBinding?: string };
}

// (Not named `require`: the bundler would take these for its own.)
const load = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** 12.x: the addon by its path when it is where an install puts it (its own search walks the file system). */
function v12(): SqliteDriver {
  let options: SqliteDriver['options'] = {};
  try {
    options = { nativeBinding: load.resolve('better-sqlite3/build/Release/better_sqlite3.node') };
  } catch {
    // a prebuild elsewhere: its own search finds it
  }
  return { Database: requireV12(), module: () => load.resolve('better-sqlite3'), options };
}

function v13(): SqliteDriver {
  const module = load.resolve('better-sqlite3-13');
  const Database = load(module) as typeof BetterSqlite3;
  // (Its addon loads with the first connection: a platform without a prebuilt binary fails here.)
  new Database(':memory:').close();
  return { Database, module: () => module, options: {} };
}

let chosen: SqliteDriver | undefined;

/** The driver for this Node (loaded once). */
export function sqliteDriver(): SqliteDriver {
  if (chosen) return chosen;
  if (NODE_MAJOR < 22) return (chosen = v12());
  try {
    return (chosen = v13());
  } catch (err) {
    try {
      return (chosen = v12());
    } catch {
      throw new Error(`better-sqlite3 could not be loaded for Node ${process.version}: ${(err as Error).message}`, { cause: err });
    }
  }
}
