// A SQLite file looked at directly, through the driver the store runs on this Node
// (src/server/store/sqlite-driver.ts: node:sqlite from Node 22.16, better-sqlite3 before), so that
// the tests see the files as users' machines make them.
import type { SqliteConnection } from '../../src/server/store/sqlite-connection.js';
import { sqliteDriver } from '../../src/server/store/sqlite-driver.js';

export type { SqliteConnection };

export const openSqliteFile = (path: string, options?: { readonly?: boolean }): SqliteConnection => sqliteDriver().open(path, options);

/** A pragma's rows. */
export const pragmaRows = (db: SqliteConnection, pragma: string): unknown[] => db.prepare(`pragma ${pragma}`).all([]);

/** A pragma's first value (better-sqlite3's `pragma(name, { simple: true })`). */
export function pragmaValue(db: SqliteConnection, pragma: string): unknown {
  const [row] = pragmaRows(db, pragma) as Record<string, unknown>[];
  return row && Object.values(row)[0];
}
