// Which SQLite this Node runs, behind the surface the store uses (SqliteConnection), the first
// of these that loads:
// - Node's own (`node:sqlite`, node-sqlite.ts), where Node has it with all the store uses and
//   reads a text whole (Node 24; not Node 22, whose cuts a text at a NUL character): nothing to
//   build or fetch at install.
// - better-sqlite3 13.x (installed as `better-sqlite3-13`) from Node 22 on: a Node-API addon whose
//   package holds prebuilt binaries (no install script, no compiler). It needs Node 22 (on 20 it
//   crashes at its first statement).
// - better-sqlite3 12.x (Node 20, or a platform 13.x has no binary for): its addon is built at
//   install (or a prebuilt one fetched), which may fail: then npm leaves it out, and
//   `npm ci --ignore-scripts` leaves it unbuilt. Compiled for the running Node's ABI, 12.x also
//   aborts the process at every exit on Node 24.19 and later (SIGABRT, a native stack on stderr,
//   WiseLibs/better-sqlite3#1515): there Node's own comes first.
// - None: NoSqlite, which the caller words (open-store.ts). Remote commands need none of this.
// All are optional: a machine that can build none of them still installs and builds the CLI.
import { createRequire } from 'node:module';
import { requireV12 } from './driver-v12.js';
import { loadNodeSqlite, nodeSqliteDatabase } from './node-sqlite.js';
import type { SqliteConnection } from './sqlite-connection.js';

export interface SqliteDriver {
  /** What it is, for a log or a report: `node:sqlite` or `better-sqlite3`. */
  name: string;
  open(path: string, options?: { readonly?: boolean }): SqliteConnection;
  /**
   * How a thread opens a connection of its own (store/checkpointer.ts): the module it requires
   * (whose DatabaseSync, or itself, is the class) and the options it adds. Asked only then: a
   * command that starts no thread does not walk node_modules for it.
   */
  thread(): { module: string; options: object };
}

/** No SQLite could be loaded: neither Node's own nor better-sqlite3's addon. */
export class NoSqlite extends Error {
  override readonly name = 'NoSqlite';
  readonly code = 'CHATFLOW_NO_SQLITE';
  constructor(
    message: string,
    /** What the machine's user can do about it, each a clause (`use Node 24 or later`). */
    readonly remedies: string[],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

// (Not named `require`: the bundler would take it for its own.)
const load = createRequire(import.meta.url);

function nodeSqlite(): SqliteDriver | undefined {
  const DatabaseSync = loadNodeSqlite();
  return DatabaseSync && { name: 'node:sqlite', open: nodeSqliteDatabase(DatabaseSync), thread: () => ({ module: 'node:sqlite', options: {} }) };
}

function v13(): SqliteDriver {
  const module = load.resolve('better-sqlite3-13');
  const Database = load(module) as BetterSqlite3Class;
  // (Its addon loads with the first connection: a platform without a prebuilt binary fails here.)
  new Database(':memory:').close();
  return { name: 'better-sqlite3 13', open: (path, { readonly = false } = {}) => new Database(path, { readonly }), thread: () => ({ module, options: {} }) };
}

/** 12.x: the addon by its path when it is where an install puts it (its own search walks the file system). */
function v12(): SqliteDriver {
  let options: { nativeBinding?: string } = {};
  try {
    options = { nativeBinding: load.resolve('better-sqlite3/build/Release/better_sqlite3.node') };
  } catch {
    // a prebuild elsewhere: its own search finds it
  }
  const Database = requireV12() as unknown as BetterSqlite3Class;
  // (Its addon loads with the first connection: one not built fails here, not in a command's midst.)
  new Database(':memory:', options).close();
  return {
    name: 'better-sqlite3 12',
    open: (path, { readonly = false } = {}) => new Database(path, { ...options, readonly }),
    thread: () => ({ module: load.resolve('better-sqlite3'), options }),
  };
}

/** better-sqlite3's class as the store sees it (SqliteConnection is what it uses of its instances). */
type BetterSqlite3Class = new (path: string, options?: { readonly?: boolean; nativeBinding?: string }) => SqliteConnection;

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

let chosen: SqliteDriver | undefined;

/** The driver for this Node (loaded once); NoSqlite when there is none. */
export function sqliteDriver(): SqliteDriver {
  if (chosen) return chosen;
  chosen = nodeSqlite();
  if (chosen) return chosen;
  let failure: unknown;
  for (const driver of NODE_MAJOR >= 22 ? [v13, v12] : [v12]) {
    try {
      return (chosen = driver());
    } catch (err) {
      failure ??= err;
    }
  }
  // (Not installed, or installed without its addon, as `npm ci --ignore-scripts` leaves 12.x.)
  const { code, message } = failure as { code?: unknown; message: string };
  const absent = code === 'MODULE_NOT_FOUND' || /bindings file/.test(message);
  const why = absent ? 'better-sqlite3 is not built' : `better-sqlite3 did not load (${message.split('\n')[0]})`;
  const own = process.getBuiltinModule('node:sqlite') ? `Node ${process.version}'s own SQLite cannot be used (Node 24's can)` : `Node ${process.version} has no SQLite of its own`;
  const remedies = [
    // npm runs node-gyp for 13.x although its package holds binaries, and drops it when that fails.
    ...(NODE_MAJOR >= 22 ? ['run npm ci --ignore-scripts (better-sqlite3 13 comes with binaries)'] : []),
    'install build tools (python3, make, g++) and run npm ci again',
    'use Node 24 or later',
  ];
  throw new NoSqlite(`${why} and ${own}`, remedies, { cause: failure });
}
