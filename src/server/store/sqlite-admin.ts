// A SQLite database as a whole, for `chatflow db` (the CLI's one way to the file itself, besides the
// service it runs over it): checked, backed up and restored through SQLite, never by copying or
// renaming files, so that every other connection (other commands, `serve`, an outside sqlite3)
// stays consistent meanwhile:
// - a backup is `VACUUM INTO` (one read transaction: a snapshot, whatever others write), into a
//   file made 0600 first, a single file (no journal: VACUUM INTO writes a rollback-journal one);
// - a restore checks a private copy of the file (integrity, foreign keys, its migrations: a version
//   this one can read), brings it to this version's schema, keeps the current data as a backup
//   beside the database, then replaces every table's rows in one write transaction of the live
//   database: another connection sees the old data or the new, never a mix, and SQLite's own
//   journal keeps it whole should the process die halfway.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { migrationNames } from './migrations.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { sqliteDriver } from './sqlite-driver.js';
import { openSqliteStore } from './sqlite.js';

/** Milliseconds a step waits for another connection's lock (a restore's write waits for the writers of the moment). */
const BUSY_TIMEOUT_MS = 30_000;

/** What a database holds and whether it is sound. */
export interface DatabaseReport {
  path: string;
  /** The file's bytes, and its WAL's (commits not yet copied into it). */
  bytes: number;
  walBytes: number;
  /** `ok`, or SQLite's first complaints (integrity_check, then foreign_key_check). */
  integrity: string[];
  /** Migrations applied, of those this version knows; the last one's name. */
  schema: { applied: number; known: number; last: string | null };
  /** Rows per table. */
  rows: Record<string, number>;
}

/** A refusal the user can act on (the file is not a database to restore, or is not there). */
export class DatabaseRefused extends Error {
  override readonly name = 'DatabaseRefused';
}

const quoteId = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteText = (text: string) => `'${text.replace(/'/g, "''")}'`;

function open(path: string): SqliteConnection {
  const db = sqliteDriver().open(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

/** `work` on a connection to `path`, closed after (the last connection's close removes the WAL). */
async function withConnection<T>(path: string, work: (db: SqliteConnection) => T | Promise<T>): Promise<T> {
  const db = open(path);
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

const rowsOf = <T>(db: SqliteConnection, sql: string) => db.prepare(sql).all([]) as T[];

/** The user's tables (kysely's bookkeeping and SQLite's own left out). */
const tablesOf = (db: SqliteConnection) =>
  rowsOf<{ name: string }>(db, "select name from sqlite_schema where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name").map((r) => r.name);

/** SQLite's answer to a damaged file: a check's finding, not a failure of the check. */
const DAMAGED = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

function report(db: SqliteConnection, path: string): DatabaseReport {
  let integrity: string[];
  try {
    integrity = rowsOf<Record<string, string>>(db, 'pragma integrity_check(20)').map((r) => Object.values(r)[0]!);
    if (integrity.length === 1 && integrity[0] === 'ok') {
      const dangling = rowsOf<{ table: string; parent: string }>(db, 'pragma foreign_key_check');
      if (dangling.length) integrity = dangling.slice(0, 20).map((r) => `a row of ${r.table} refers to no row of ${r.parent}`);
    }
  } catch (err) {
    if (!DAMAGED.has((err as { code?: string }).code ?? '')) throw err;
    integrity = [(err as Error).message];
  }
  const tables = tablesOf(db);
  const known = migrationNames('sqlite');
  const applied = tables.includes('kysely_migration') ? rowsOf<{ name: string }>(db, 'select name from kysely_migration order by name').map((r) => r.name) : [];
  const rows: Record<string, number> = {};
  for (const table of tables.filter((t) => !t.startsWith('kysely_'))) {
    try {
      rows[table] = Number(rowsOf<{ n: number }>(db, `select count(*) as n from ${quoteId(table)}`)[0]!.n);
    } catch (err) {
      if (!DAMAGED.has((err as { code?: string }).code ?? '')) throw err;
    }
  }
  const size = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  return { path, bytes: size(path), walBytes: size(`${path}-wal`), integrity, schema: { applied: applied.length, known: known.length, last: applied.at(-1) ?? null }, rows };
}

function mustExist(path: string, what: string): void {
  if (!existsSync(path)) throw new DatabaseRefused(`${what} ${path} does not exist`);
}

/** The database at `path`, checked (only read: another connection may write meanwhile). */
export async function checkDatabase(path: string): Promise<DatabaseReport> {
  mustExist(path, 'the database');
  // Read-write but reading only: a read-only connection closing last would leave its WAL behind.
  return withConnection(path, (db) => {
    db.pragma('query_only = 1');
    return report(db, path);
  });
}

/** An empty file of the user's alone at `path`, for VACUUM INTO to fill (it takes an empty file). */
function privateFile(path: string): void {
  closeSync(openSync(path, 'wx', 0o600));
}

/** A consistent copy of `db` in the new file `to` (0600, one file), synced. */
function vacuumInto(db: SqliteConnection, to: string): void {
  privateFile(to);
  try {
    db.exec(`vacuum into ${quoteText(to)}`);
    const fd = openSync(to, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    rmSync(to, { force: true });
    throw err;
  }
}

/** Copies the database at `path` into the new file `to`, consistent while others write. */
export async function backupDatabase(path: string, to: string): Promise<DatabaseReport> {
  mustExist(path, 'the database');
  if (existsSync(to)) throw new DatabaseRefused(`${to} exists already: name a new file`);
  await withConnection(path, (db) => vacuumInto(db, to));
  return checkDatabase(to);
}

export interface RestoreOptions {
  /** Check the file and say what would be replaced, changing nothing. */
  dryRun?: boolean;
  /** Names the backup of the current data (`<path>.bak-<stamp>`). */
  stamp: string;
}

export interface Restored {
  /** What the file holds (as restored: this version's schema). */
  from: DatabaseReport;
  /** What the database held before. */
  before?: DatabaseReport;
  /** Where the data before the restore are kept (none on a dry run or a new database). */
  kept?: string;
}

/**
 * Replaces the data of the database at `path` (made if there is none) by those of the file `from`,
 * after checking it: see the top of this module.
 */
export async function restoreDatabase(path: string, from: string, options: RestoreOptions): Promise<Restored> {
  mustExist(from, 'the file');
  // The copy is ours, beside the database (the same file system, the same privacy): the file
  // itself is never written, nor its journal touched.
  const copy = join(dirname(path), `.${basename(path)}.restore-${process.pid}`);
  if (!existsSync(dirname(path))) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  removeDeadCopies(path);
  rmSync(copy, { force: true });
  try {
    try {
      const source = sqliteDriver().open(from, { readonly: true });
      try {
        source.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        vacuumInto(source, copy);
      } finally {
        source.close();
      }
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new DatabaseRefused(`${from} is not a sound SQLite database (${(err as Error).message})`);
      throw err;
    }
    const found = await withConnection(copy, (db) => report(db, copy));
    if (found.integrity.join() !== 'ok') throw new DatabaseRefused(`${from} is damaged: ${found.integrity[0]}`);
    const known = migrationNames('sqlite');
    const applied = await withConnection(copy, (db) =>
      tablesOf(db).includes('kysely_migration') ? rowsOf<{ name: string }>(db, 'select name from kysely_migration order by name').map((r) => r.name) : undefined,
    );
    if (!applied || applied.length === 0) throw new DatabaseRefused(`${from} is not a chatflow database (it has no chatflow schema)`);
    const unknown = applied.filter((name) => !known.includes(name));
    if (unknown.length) throw new DatabaseRefused(`${from} was made by a newer chatflow (its schema has ${unknown.join(', ')}): restore it with that version`);
    if (applied.some((name, i) => name !== known[i])) throw new DatabaseRefused(`${from} is not a chatflow database this version can read (its migrations are ${applied.join(', ')})`);
    // An older version's file gets this version's schema (the migrations, as any open does).
    await (await openSqliteStore(copy)).close();
    const restored = await withConnection(copy, (db) => report(db, copy));
    if (restored.integrity.join() !== 'ok') throw new DatabaseRefused(`${from} is damaged: ${restored.integrity[0]}`);
    const before = existsSync(path) ? await checkDatabase(path) : undefined;
    if (options.dryRun) return { from: { ...restored, path: from }, before };
    // The database at this version's schema, as any command opens it (made when there is none).
    await (await openSqliteStore(path)).close();
    const kept = before ? `${path}.bak-${options.stamp}` : undefined;
    await withConnection(path, async (db) => {
      if (kept) vacuumInto(db, kept);
      replaceRows(db, copy);
    });
    return { from: { ...restored, path: from }, before, kept };
  } finally {
    rmSync(copy, { force: true });
  }
}

/**
 * The copies (and their journals) of restores whose process is gone (Ctrl-C, kill): files of ours
 * alone, which no other connection opens. A live process's are left alone.
 */
function removeDeadCopies(path: string): void {
  const own = new RegExp(`^\\.${basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.restore-(\\d+)(?:-wal|-shm)?$`);
  for (const name of readdirSync(dirname(path))) {
    const pid = Number(own.exec(name)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) rmSync(join(dirname(path), name), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** Every table's rows replaced by the copy's, in one write transaction. */
function replaceRows(db: SqliteConnection, copy: string): void {
  // The copy's rows satisfy its keys (foreign_key_check): checked row by row while the tables are
  // emptied and filled, in whatever order, they would be refused halfway.
  db.pragma('foreign_keys = off');
  db.exec(`attach database ${quoteText(copy)} as restored`);
  try {
    db.exec('begin immediate');
    try {
      for (const table of tablesOf(db)) {
        if (table === 'kysely_migration_lock') continue;
        const columns = rowsOf<{ name: string }>(db, `pragma main.table_info(${quoteId(table)})`)
          .map((c) => quoteId(c.name))
          .join(', ');
        db.exec(`delete from main.${quoteId(table)}`);
        db.exec(`insert into main.${quoteId(table)} (${columns}) select ${columns} from restored.${quoteId(table)}`);
      }
      db.exec('commit');
    } catch (err) {
      if (db.inTransaction) db.exec('rollback');
      throw err;
    }
  } finally {
    db.exec('detach database restored');
  }
}
