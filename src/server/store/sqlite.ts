// The SQLite store: one file, WAL so readers never wait for the writer, a busy timeout so that
// several processes can share the file.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { KyselyStore } from './kysely-store.js';
import { migrate } from './migrations.js';
import type { Database } from './tables.js';

export interface SqliteOptions {
  /** Milliseconds a writer waits for another process's lock before failing. */
  busyTimeoutMs?: number;
}

export async function openSqliteStore(path: string, options: SqliteOptions = {}): Promise<KyselyStore> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  try {
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    sqlite.pragma('journal_mode = WAL');
    // NORMAL is durable against a process crash in WAL mode; only power loss may drop the last commits.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
  } catch (err) {
    sqlite.close();
    throw err;
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await migrate(db as Kysely<unknown>, 'sqlite');
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return new KyselyStore(db, 'sqlite');
}
