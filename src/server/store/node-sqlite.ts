// Node's own SQLite (`node:sqlite`, DatabaseSync) with the surface the store uses of
// better-sqlite3 (SqliteConnection, sqlite-connection.ts): statements take their parameters as one
// array, tell whether they answer rows (`reader`) and whether they are being iterated (`busy`),
// and errors carry SQLite's code by name (SQLITE_BUSY, SQLITE_CONSTRAINT_UNIQUE…) as
// better-sqlite3's do, which is what the store looks at (failures.ts, engine.ts, open-store.ts).
import type { SqliteConnection, SqliteStatement } from './sqlite-connection.js';

/** What the store uses of node:sqlite (typed here: @types/node 20 has none of it). */
interface NodeStatement {
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: unknown[]): IterableIterator<unknown>;
  columns(): unknown[];
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction: boolean;
}
type DatabaseSync = new (path: string, options?: { readOnly?: boolean }) => NodeDatabase;

/**
 * SQLite's result codes by number, as better-sqlite3 names them: the primary ones, and the
 * extended ones the store (or the operator reading a log) tells apart.
 */
const CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  12: 'SQLITE_NOTFOUND',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  16: 'SQLITE_EMPTY',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  22: 'SQLITE_NOLFS',
  23: 'SQLITE_AUTH',
  24: 'SQLITE_FORMAT',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
  261: 'SQLITE_BUSY_RECOVERY',
  262: 'SQLITE_LOCKED_SHAREDCACHE',
  517: 'SQLITE_BUSY_SNAPSHOT',
  773: 'SQLITE_BUSY_TIMEOUT',
  1032: 'SQLITE_READONLY_DBMOVED',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
  275: 'SQLITE_CONSTRAINT_CHECK',
};

/** SQLite's name for a node:sqlite error's code (ERR_SQLITE_ERROR and a number); others as they are. */
export function sqliteCode(err: { code?: unknown; errcode?: unknown }): unknown {
  if (err.code !== 'ERR_SQLITE_ERROR' || typeof err.errcode !== 'number') return err.code;
  return CODES[err.errcode] ?? CODES[err.errcode & 0xff] ?? `SQLITE_${err.errcode}`;
}

/** `work`, its error (if any) with SQLite's code by name. */
function named<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    const code = sqliteCode(err as { code?: unknown; errcode?: unknown });
    if (code !== (err as { code?: unknown }).code) Object.defineProperty(err, 'code', { value: code, configurable: true, writable: true, enumerable: true });
    throw err;
  }
}

class Statement implements SqliteStatement {
  readonly reader: boolean;
  busy = false;

  constructor(private readonly statement: NodeStatement) {
    this.reader = statement.columns().length > 0;
  }

  all(params: readonly unknown[]): unknown[] {
    return named(() => this.statement.all(...params));
  }

  run(params: readonly unknown[]) {
    return named(() => this.statement.run(...params));
  }

  *iterate(params: readonly unknown[]): IterableIterator<unknown> {
    // (Busy until the loop over it ends: another use of the statement would restart it.)
    this.busy = true;
    try {
      const rows = named(() => this.statement.iterate(...params));
      for (;;) {
        const next = named(() => rows.next());
        if (next.done) return;
        yield next.value;
      }
    } finally {
      this.busy = false;
    }
  }
}

class Connection implements SqliteConnection {
  constructor(private readonly db: NodeDatabase) {}

  prepare(sql: string): SqliteStatement {
    return named(() => new Statement(this.db.prepare(sql)));
  }

  pragma(text: string): void {
    named(() => this.db.exec(`pragma ${text}`));
  }

  exec(sql: string): void {
    named(() => this.db.exec(sql));
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * node:sqlite's DatabaseSync, when this Node has it with all the store uses (unflagged from 22.13;
 * statements' columns() and isTransaction from 22.16) and reads a text whole: Node 22's (22.23
 * still) cuts a text at its first NUL character, which a message may hold (Node 24's does not).
 * Loaded without the ExperimentalWarning Node 22 prints on stderr at its first load (a user has
 * nothing to do about it). Else undefined.
 */
export function loadNodeSqlite(): DatabaseSync | undefined {
  const emitWarning = process.emitWarning;
  let sqlite: { DatabaseSync?: DatabaseSync } | undefined;
  process.emitWarning = () => undefined;
  try {
    sqlite = process.getBuiltinModule('node:sqlite') as typeof sqlite;
  } catch {
    return undefined; // behind --experimental-sqlite (Node 22.5 to 22.12)
  } finally {
    process.emitWarning = emitWarning;
  }
  const DatabaseSync = sqlite?.DatabaseSync;
  if (!DatabaseSync) return undefined;
  const probe = new DatabaseSync(':memory:');
  try {
    if (typeof probe.isTransaction !== 'boolean' || typeof probe.prepare('select 1').columns !== 'function') return undefined;
    const [read] = probe.prepare("select 'a' || char(0) || 'b' as t").all() as { t: string }[];
    return read?.t === 'a\0b' ? DatabaseSync : undefined;
  } finally {
    probe.close();
  }
}

/** A connection over node:sqlite (`readonly` as better-sqlite3's option says it). */
export const nodeSqliteDatabase = (DatabaseSync: DatabaseSync) =>
  function open(path: string, options: { readonly?: boolean } = {}): SqliteConnection {
    return new Connection(named(() => new DatabaseSync(path, { readOnly: options.readonly ?? false })));
  };
