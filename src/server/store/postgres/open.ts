// The PostgreSQL store: the same kysely store as SQLite over a `pg` pool, for several replicas
// sharing one database. `pg` is imported only when this store is opened.
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { Kysely } from 'kysely';
import { KyselyStore } from '../kysely-store.js';
import { migrate } from '../migrations.js';
import type { Database } from '../tables.js';
import { PgDialect, pgDirect } from './driver.js';

export interface PostgresOptions {
  /** Connections per replica (default 10). */
  poolSize?: number;
  /** How long to wait for a connection, new or from the pool, before failing (default 10 s). */
  connectTimeoutMs?: number;
  /** Schema to work in (its tables, its migrations); default: the server's search_path. */
  schema?: string;
  /** Shown in pg_stat_activity (default `chatflow`). */
  applicationName?: string;
  /** Told about connections lost while idle; the pool drops them and opens new ones on demand. */
  onConnectionError?: (err: Error) => void;
}

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The URL with its user and password hidden: `postgres://***@host:5432/db`. */
export function redactUrl(url: string): string {
  // Up to the last @ of the authority: a password may hold an unescaped @.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/** Removes credentials from a message that may quote the URL (or the password alone). */
function redactMessage(message: string, url: string): string {
  let out = message.split(url).join(redactUrl(url)).replace(/(postgres(?:ql)?:\/\/)[^/\s?#]*@/gi, '$1***@');
  const password = passwordOf(url);
  if (password && password.length >= 3) out = out.split(password).join('***');
  return out;
}

function passwordOf(url: string): string | undefined {
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : undefined;
  } catch {
    return undefined;
  }
}

/** Where the URL points, safe to print: host:port/database, no credentials. */
function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || new URLSearchParams(u.search).get('host') || 'localhost';
    return `${host}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return redactUrl(url);
  }
}

/** A start-up failure with a message fit to print; keeps the driver's `code`, drops the rest. */
class PostgresOpenError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'PostgresOpenError';
    this.code = code;
  }
}

function openError(err: unknown, url: string): PostgresOpenError {
  const e = err as { code?: string; message?: string } | null;
  const target = describeTarget(url);
  const raw = redactMessage(e?.message ?? String(err), url);
  let message: string;
  switch (e?.code) {
    case 'ECONNREFUSED':
      message = `cannot connect to PostgreSQL at ${target}: connection refused (is the server running?)`;
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      message = `cannot connect to PostgreSQL at ${target}: unknown host`;
      break;
    case '3D000':
      message = `PostgreSQL at ${target}: ${raw} (create it first: CREATE DATABASE ...)`;
      break;
    default:
      message = `PostgreSQL at ${target}: ${raw}`;
  }
  return new PostgresOpenError(message, e?.code);
}

/**
 * Opens (and migrates) the store. Queries made while the database is unreachable fail with
 * errors `isUnavailable()` recognises (answered 503); the pool reconnects when it is back.
 */
export async function openPostgresStore(url: string, options: PostgresOptions = {}): Promise<KyselyStore> {
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new PostgresOpenError('the database URL must start with postgres:// or postgresql://');
  }
  if (options.schema !== undefined && !IDENTIFIER.test(options.schema)) {
    throw new PostgresOpenError(`schema ${JSON.stringify(options.schema)} is not a plain identifier`);
  }
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new PostgresOpenError('the pool size must be a whole number ≥ 1');

  const { default: pg } = await import('pg');
  const config: PoolConfig = {
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: options.applicationName ?? 'chatflow',
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  };
  let pool: Pool;
  try {
    pool = new pg.Pool(config);
  } catch (err) {
    // The URL parser's errors may quote the URL: say only what is wrong.
    throw new PostgresOpenError(`the database URL ${redactUrl(url)} cannot be parsed: ${redactMessage((err as Error).message, url)}`);
  }
  // A connection lost while idle (server restart, failover, pg_terminate_backend) is reported
  // here; without a listener it would crash the process. The pool has already dropped it.
  pool.on('error', (err) => options.onConnectionError?.(err));
  // A connection lost while checked out, between two queries, is reported on the client itself:
  // the next query on it fails (503) and the pool discards it when it is released.
  pool.on('connect', (client: PoolClient) => {
    client.on('error', () => {});
  });

  const db = new Kysely<Database>({ dialect: new PgDialect(pool) });
  try {
    await migrate(db as Kysely<unknown>, 'postgres');
  } catch (err) {
    await db.destroy().catch(() => {});
    throw openError(err, url);
  }
  return new KyselyStore(db, 'postgres', db, undefined, pgDirect(pool, (text) => pg.escapeLiteral(text), (name) => pg.escapeIdentifier(name)));
}
