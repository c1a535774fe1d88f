// kysely's driver over a `pg` pool, and the store's direct path around kysely (PgDirect: a
// listing's batches and COPY), with the driver errors that are the value's fault translated.
import type { Pool, PoolClient } from 'pg';
import { CompiledQuery, PostgresDialect, sql, type DatabaseConnection, type DatabaseIntrospector, type DatabaseMetadata, type Driver, type Kysely, type QueryResult, type SchemaMetadata, type TableMetadata, type TransactionSettings } from 'kysely';
import type { PgDirect } from '../engine.js';
import { Unstorable } from '../errors.js';
import { isUnavailable } from '../failures.js';
import { CopyIn, copyValue } from './copy-in.js';
import { CopyOutJson } from './copy-out-json.js';
import { CopyOutText } from './copy-out-text.js';

/**
 * Driver errors that are the value's fault rather than the database's: PostgreSQL cannot store a
 * NUL character in text nor a date in year 0 (1 BC), which SQLite accepts.
 */
const NUL = 'text may not contain the NUL character (\\u0000): the PostgreSQL store cannot keep it';

function translate(err: unknown): unknown {
  const e = err as { code?: string; message?: string } | null;
  if (e?.code === '22021' && /0x00/.test(e.message ?? '')) return new Unstorable(NUL);
  if (e?.code === '22008') return new Unstorable('a date is outside the range the PostgreSQL store can keep');
  return err;
}

/** Errors after which a connection is no use: lost, cut by the server, or shutting down. */
function isConnectionFatal(err: unknown): boolean {
  const e = err as { code?: string; severity?: string } | null;
  return isUnavailable(err) || e?.severity === 'FATAL' || e?.severity === 'PANIC' || /^(57P|08)/.test(e?.code ?? '');
}

class PgConnection implements DatabaseConnection {
  /** Set when a query failed in a way that leaves the connection unusable. */
  broken: Error | undefined;
  constructor(readonly client: PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const { command, rowCount, rows } = await this.client.query(query.sql, [...query.parameters]);
      const counted = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
      return { numAffectedRows: counted ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
    } catch (err) {
      if (isConnectionFatal(err)) this.broken = err as Error;
      throw translate(err);
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the PostgreSQL store does not stream with cursors; it pages by key');
  }
}

/** A value of a listing's query as an SQL literal: a statement of several, and COPY, take no parameters. */
function literal(value: unknown, escape: (text: string) => string): string {
  if (typeof value === 'string') {
    // A query string is a C string to the server: a NUL would end it mid-literal (and a bound
    // parameter with one is refused as 22021, translated above).
    if (value.includes('\u0000')) throw new Unstorable(NUL);
    return escape(value);
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return escape(value.toISOString());
  throw new Error(`cannot write ${typeof value} ${String(value)} into a statement`);
}

/**
 * Engine's PgDirect over the pool: `setting; query` as one simple-protocol query string (the
 * query's values written in as literals), one round trip where a transaction of its own took four.
 */
export function pgDirect(pool: Pool, escape: (text: string) => string, ident: (name: string) => string): PgDirect {
  const inline = (query: CompiledQuery) => query.sql.replace(/\$(\d+)/g, (_, n: string) => literal(query.parameters[Number(n) - 1], escape));
  async function run<T>(send: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      return await send(client);
    } catch (err) {
      if (isConnectionFatal(err)) broken = err as Error;
      throw translate(err);
    } finally {
      client.release(broken);
    }
  }
  return {
    copyIn: (table, columns, rows) =>
      run((client) => {
        // A string a row, written into the data as bytes: one string of them all became two bytes
        // a character as soon as one row held a character outside Latin-1, and encoding it took
        // longer than building it.
        const lines = new Array<string>(rows.length);
        let size = 0;
        for (const [r, row] of rows.entries()) {
          let line = copyValue(row[0]);
          for (let i = 1; i < columns.length; i++) line += `\t${copyValue(row[i])}`;
          lines[r] = line += '\n';
          size += Buffer.byteLength(line);
        }
        const data = Buffer.allocUnsafe(size);
        let at = 0;
        for (const line of lines) at += data.write(line, at);
        const copy = new CopyIn(`copy ${ident(table)} (${columns.map(ident).join(', ')}) from stdin`, data);
        client.query(copy as never);
        return copy.done;
      }),
    rows: (query, setting) =>
      run(async (client) => {
        if (!setting) return (await client.query(inline(query))).rows;
        // Two statements: pg answers a result each.
        const results = (await client.query(`${setting}; ${inline(query)}`)) as unknown as { rows: unknown[] }[];
        return results[1]!.rows;
      }),
    bytes: (query, setting, columns) =>
      run((client) => {
        const text = `${setting ? `${setting}; ` : ''}copy (${inline(query)}) to stdout (format binary)`;
        const copy = columns ? new CopyOutJson(text, columns) : new CopyOutText(text);
        client.query(copy as never);
        return copy.done;
      }),
  };
}

/**
 * kysely's driver contract over a `pg` pool. kysely's own PostgresDriver releases a connection
 * without saying it failed, so pg-pool puts a connection the server has just cut back in the pool
 * (its socket is not closed yet) and the next request fails on it too. This one tells the pool to
 * discard it.
 */
class PgDriver implements Driver {
  constructor(private readonly pool: Pool) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new PgConnection(await this.pool.connect());
  }
  async beginTransaction(c: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let statement = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      statement = 'start transaction';
      if (settings.isolationLevel) statement += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) statement += ` ${settings.accessMode}`;
    }
    await c.executeQuery(CompiledQuery.raw(statement));
  }
  async commitTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    try {
      await c.executeQuery(CompiledQuery.raw('rollback'));
    } catch (err) {
      // A failed rollback must not hide the error that caused it: that one goes on to the
      // caller, and the connection, in a state nobody knows, is discarded on release.
      (c as PgConnection).broken ??= err as Error;
    }
  }
  async releaseConnection(c: DatabaseConnection): Promise<void> {
    const connection = c as PgConnection;
    // An error given to release() makes pg-pool close the client instead of keeping it.
    connection.client.release(connection.broken);
  }
  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * What kysely's Migrator asks of the database (whether a schema or a table exists), answered for
 * the store's own schema (`current_schema()`) alone. kysely's introspector read every table of
 * every schema, through functions that look each name up again (pg_get_serial_sequence,
 * has_schema_privilege): a schema another session dropped meanwhile failed the store's start
 * ("schema … does not exist", naming that other schema), and a database of many schemas was read
 * whole at every migration.
 */
class OwnSchemaIntrospector implements DatabaseIntrospector {
  // (kysely's own signature: any database.)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly db: Kysely<any>) {}
  async getSchemas(): Promise<SchemaMetadata[]> {
    return (await sql<SchemaMetadata>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db)).rows;
  }
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, n.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v')`.execute(this.db);
    return rows.map(({ name, schema, kind }) => ({ name, schema, isView: kind === 'v', columns: [] }));
  }
  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

export class PgDialect extends PostgresDialect {
  constructor(private readonly pool: Pool) {
    super({ pool });
  }
  override createDriver(): Driver {
    return new PgDriver(this.pool);
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}
