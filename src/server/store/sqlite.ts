// The SQLite store: one file, WAL so readers never wait for the writer, a busy timeout so that
// several processes can share the file.
import { Kysely, SqliteDialect, sql, type CompiledQuery, type SqliteDatabase } from 'kysely';
import { checkpointer } from './checkpointer.js';
import type { SqliteConnection, SqliteStatement } from './sqlite-connection.js';
import { sqliteDriver } from './sqlite-driver.js';
import type { BulkInsert } from './engine.js';
import { KyselyStore } from './kysely-store.js';
import { isMigrated, migrate } from './migrations.js';
import { checkOneName, prepareFile } from './sqlite-file.js';
import type { Database } from './tables.js';

export interface SqliteOptions {
  /** Milliseconds a writer waits for another process's lock before failing. */
  busyTimeoutMs?: number;
  /**
   * A database with the current schema and no data (the CLI's build makes one): a new file is a
   * copy of it instead of being set up here (WAL, its tables), which spares a first command
   * the file system's syncs of those steps.
   */
  template?: string;
  /** Bytes of WAL after which it is checkpointed on a thread of its own (checkpointer.ts); default 256 MiB. */
  checkpointBytes?: number;
}

/** KiB of page cache for the writer's connection (see openSqliteStore; bench/million.js's floor too). */
export const WRITER_CACHE_KIB = 64 * 1024;

/** Bytes a page of a new database file (see openSqliteStore). */
const PAGE_SIZE = 16_384;

/** WAL bytes after which the checkpointer's thread copies them into the file (see openSqliteStore). */
const CHECKPOINT_BYTES = 256 * 1024 * 1024;
/** WAL pages after which a commit checkpoints on the writer's thread, should the checkpointer lag or fail. */
export const CHECKPOINT_PAGES = 65_536;
/** Rows a bulk insert writes between two turns of the event loop (see `bulk`): a millisecond or two. */
const ROWS_A_TURN = 100;
/** Bytes the WAL file is cut back to once checkpointed. */
const WAL_KEPT_BYTES = 64 * 1024 * 1024;

/**
 * Statements kept prepared: list queries vary with their filters, inserts with their row count.
 * A prepared 500-row INSERT holds about half a megabyte, hence a bound on the SQL kept as well.
 */
const CACHE_STATEMENTS = 100;
const CACHE_SQL_CHARS = 200_000;

/**
 * The database as kysely sees it, preparing each SQL text once: kysely asks for every query
 * afresh, and preparing a 500-row INSERT is a good part of running it. A statement still being
 * iterated is busy: then a fresh one is prepared.
 */
function preparingOnce(
  sqlite: SqliteConnection,
  /** Called after each COMMIT (kysely's, or one of ours), once it has run. */
  committed?: () => void,
): SqliteDatabase & { prepare(text: string): SqliteStatement } {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const cache = new Map<string, SqliteStatement>();
  let chars = 0;
  return {
    close: () => sqlite.close(),
    prepare(text) {
      // kysely opens transactions with a deferred BEGIN: one that reads before it writes then
      // fails at once with SQLITE_BUSY when another process writes meanwhile (the busy timeout
      // cannot help a deferred transaction upgrade). IMMEDIATE takes the write lock up front,
      // waiting up to the busy timeout for it, so transactions from several processes queue.
      const sql = text === 'begin' ? 'begin immediate' : text;
      // SQLite ends a transaction itself on some errors (SQLITE_FULL, an I/O error): kysely's
      // ROLLBACK would then fail with "no transaction is active" and replace the error that
      // matters. With no transaction left, the rollback is a statement that does nothing.
      if (sql === 'rollback' && !sqlite.inTransaction) return sqlite.prepare('select 0 where 0');
      // (Prepared right before it runs, synchronously: an immediate callback comes after it.)
      if (sql === 'commit' && committed) setImmediate(committed);
      const cached = cache.get(sql);
      if (cached) cache.delete(sql);
      else chars += sql.length;
      const stmt = cached && !cached.busy ? cached : sqlite.prepare(sql);
      cache.set(sql, stmt);
      while (cache.size > CACHE_STATEMENTS || (chars > CACHE_SQL_CHARS && cache.size > 1)) {
        const oldest = cache.keys().next().value!;
        cache.delete(oldest);
        chars -= oldest.length;
      }
      return stmt;
    },
  };
}

/**
 * `step` run again while SQLite answers SQLITE_BUSY, until `timeoutMs`. Turning a new file to WAL
 * reads it, then takes its write lock: when another connection holds that lock meanwhile (another
 * process setting up the same new file, as servers started together do), SQLite refuses at once
 * instead of waiting, since waiting could deadlock, and the busy timeout does not apply.
 */
async function untilNotBusy<T>(step: () => T, timeoutMs: number): Promise<T> {
  for (const until = Date.now() + timeoutMs; ; ) {
    try {
      return step();
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= until) throw err;
      // (Apart from the others retrying, so that they do not keep meeting.)
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    }
  }
}

export async function openSqliteStore(path: string, options: SqliteOptions = {}): Promise<KyselyStore> {
  const driver = sqliteDriver();
  const copied = path !== ':memory:' && path !== '' && prepareFile(path, options.template);
  if (path !== ':memory:' && path !== '') await checkOneName(path);
  const sqlite = driver.open(path);
  try {
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // A new file gets 16 KiB pages (SQLite ignores this for an existing one): a million messages
    // make shallower trees with fewer page splits, which imports and deletes them some 20% faster.
    sqlite.pragma(`page_size = ${PAGE_SIZE}`);
    await untilNotBusy(() => sqlite.pragma('journal_mode = WAL'), busyTimeoutMs);
    // NORMAL is durable against a process crash in WAL mode; only power loss may drop the last commits.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    // The writer's page cache: a transaction's changed pages stay in it until the commit or until
    // it is full. SQLite's 2 MiB default spilled them to the WAL over and over in a long delete of
    // random ids (100,000 messages: 15-25% faster with this); taken only as pages are used.
    sqlite.pragma(`cache_size = -${WRITER_CACHE_KIB}`);
    // Checkpoints (copying the WAL's pages into the file, and syncing both) run on a thread of
    // their own (checkpointer.ts), once the WAL holds 256 MiB. SQLite's default, at a commit every
    // 1,000 pages, checkpointed after nearly every commit of an import, on the service's thread:
    // with random ids each commit rewrites most of the id index, copied into the file again each
    // time (at 256 MiB a page rewritten by several commits is copied once: a million-message
    // insert some 15-30% faster in raw better-sqlite3). The writer checkpoints itself only past
    // 1 GiB (a checkpointer that lags or could not start), and the WAL file is cut back to 64 MiB
    // instead of staying as large as it ever grew.
    sqlite.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
    sqlite.pragma(`journal_size_limit = ${WAL_KEPT_BYTES}`);
  } catch (err) {
    sqlite.close();
    throw err;
  }
  const file = path !== ':memory:' && path !== '';
  const checkpoints = file
    ? checkpointer(path, options.checkpointBytes ?? CHECKPOINT_BYTES, {
        thread: () => driver.thread(),
        busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      })
    : undefined;
  // Closed by the store too: kysely closes only a connection it has run a query on, and a command
  // that only reads a copy of the template never does. Left open to the process's exit, the
  // writer would not checkpoint nor remove the WAL (a -wal and -shm left beside the file).
  let writerOpen = true;
  const closeWriter = () => {
    if (writerOpen) sqlite.close();
    writerOpen = false;
  };
  const writer = { ...preparingOnce(sqlite, checkpoints?.committed), close: closeWriter };
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: writer }) });
  // Bulk inserts run a statement prepared once for each row, its values bound by position from
  // the row's array (see Engine.insertChunks). Bound by name from a row object, the driver looked
  // each of its sixteen values up by name through V8's API: some 2 µs a message more (a third of
  // the binding's cost). Every ROWS_A_TURN rows the event loop turns, the transaction still
  // open: the driver is synchronous, and a batch of a streamed ingest written in one go (some
  // 70 ms) left its parsing thread without the next lines, which only this thread reads off the
  // socket (ndjson-thread.ts); reads are answered meanwhile too.
  const bulk: BulkInsert = async (text, rows) => {
    const statement = writer.prepare(text);
    let inserted = 0;
    let n = 0;
    for (const row of rows) {
      inserted += statement.run(row).changes as number;
      if (++n % ROWS_A_TURN === 0 && n < rows.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return inserted;
  };
  try {
    // kysely takes no lock for SQLite migrations: processes starting together on a new file
    // would each create the tables. Under the write lock they run one after the other. (A
    // database already current is only read: a WAL reader waits for no writer.) A copy of the
    // template is current: the build's migrations made it.
    if (!copied && !(await isMigrated(db as Kysely<unknown>, 'sqlite'))) {
      await sql`begin immediate`.execute(db);
      try {
        await migrate(db as Kysely<unknown>, 'sqlite');
        await sql`commit`.execute(db);
      } catch (err) {
        await sql`rollback`.execute(db).catch(() => undefined);
        throw err;
      }
    }
  } catch (err) {
    await db.destroy();
    closeWriter();
    await checkpoints?.close();
    throw err;
  }
  // Listings read on a connection of their own (see Engine): in WAL mode it reads the last
  // committed state while the writer's connection is inside a transaction.
  if (!checkpoints) return new KyselyStore(db, 'sqlite', db, bulk);
  const reading = driver.open(path, { readonly: true });
  reading.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  // The reader's queries run straight through the driver (Engine's `readRows`): kysely, never
  // asked to run one, would not close a connection it never opened, so the store closes it.
  let readingOpen = true;
  const closeReading = () => {
    if (readingOpen) reading.close();
    readingOpen = false;
  };
  const readingOnce = { ...preparingOnce(reading), close: closeReading };
  const reader = new Kysely<Database>({ dialect: new SqliteDialect({ database: readingOnce }) });
  // (Listings only read, and each read runs synchronously to its end: nothing to lock against.)
  const readRows = (q: CompiledQuery) => readingOnce.prepare(q.sql).all(q.parameters);
  const store = new KyselyStore(db, 'sqlite', reader, bulk, undefined, checkpoints.transaction, readRows);
  // Closed with the store, after its connections: a checkpoint under way finishes first, and the
  // last connection to close checkpoints what is left and removes the WAL.
  const closeConnections = store.close.bind(store);
  // A command may end by process.exit before it closes the store (a reader that stopped early,
  // `| head`; Ctrl-C): closed then, the connections still leave no -wal and -shm beside the file.
  const atExit = () => {
    closeReading();
    closeWriter();
  };
  process.once('exit', atExit);
  store.close = async () => {
    process.off('exit', atExit);
    // The read-only reader first: a read-only connection closing last cannot remove the WAL.
    closeReading();
    await closeConnections();
    closeWriter();
    await checkpoints.close();
  };
  return store;
}
