// The surface of SQLite the store uses, whichever driver gives it (sqlite-driver.ts): in a module
// of its own so a driver's adapter (node-sqlite.ts) and the driver's choice need not import each other.

/** A statement, as better-sqlite3 has it (kysely's SqliteStatement, and what the store adds). */
export interface SqliteStatement {
  readonly reader: boolean;
  /** Being iterated: another use would restart it. */
  readonly busy: boolean;
  all(params: readonly unknown[]): unknown[];
  run(params: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(params: readonly unknown[]): IterableIterator<unknown>;
}

/** A connection, as better-sqlite3 has it; errors carry SQLite's code by name (SQLITE_BUSY…). */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  /** Runs `PRAGMA <text>` (its answer is not used). */
  pragma(text: string): unknown;
  exec(sql: string): void;
  readonly inTransaction: boolean;
  close(): void;
}
