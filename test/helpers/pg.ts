// PostgreSQL stores for tests. Every store works in a schema of its own (`t_<hex>`) inside the
// test database (see pg-global-setup.ts), so test files running in parallel never share tables.
// Its connections carry the application_name `chatflow-<schema>`, so a test can kill exactly
// its own backends (pg_terminate_backend) without disturbing the other files.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { openPostgresStore, type PostgresOptions } from '../../src/server/store/postgres/open.js';
import type { KyselyStore } from '../../src/server/store/kysely-store.js';
import type {} from './pg-global-setup.js';

/** The test database's URL; throws with the reason when there is none. */
export function testDatabaseUrl(): string {
  const fromEnv = process.env.CHATFLOW_TEST_DATABASE_URL;
  if (fromEnv) return fromEnv;
  const provided = inject('chatflowTestDatabase');
  if (provided?.url) return provided.url;
  throw new Error(provided?.error ?? 'no PostgreSQL test database: is test/helpers/pg-global-setup.ts in vitest.config.ts?');
}

let adminPool: pg.Pool | undefined;
/** A small pool on the test database (public schema) for setup, inspection and sabotage. */
export function admin(): pg.Pool {
  if (!adminPool) {
    adminPool = new pg.Pool({ connectionString: testDatabaseUrl(), max: 2, application_name: 'chatflow-test-admin' });
    adminPool.on('error', () => {});
  }
  return adminPool;
}

/** Schemas this file created, dropped when the file ends (if a test did not drop them itself). */
const created = new Set<string>();

afterAll(async () => {
  for (const schema of created) await dropSchema(schema).catch(() => {});
  await adminPool?.end();
  adminPool = undefined;
});

export interface TestPgStoreOptions extends Pick<PostgresOptions, 'poolSize' | 'connectTimeoutMs'> {
  /** Reopen this schema (a second replica, a restart). */
  schema?: string;
  /** Derive the schema from a key (e.g. a test's directory): the same key reopens the same data. */
  key?: string;
}

export type TestPgStore = KyselyStore & {
  schema: string;
  /** application_name of this schema's connections. */
  applicationName: string;
};

export function schemaFor(options: { schema?: string; key?: string } = {}): string {
  if (options.schema) return options.schema;
  if (options.key !== undefined) return `t_${createHash('sha256').update(options.key).digest('hex').slice(0, 20)}`;
  return `t_${randomBytes(10).toString('hex')}`;
}

/** A store in a fresh schema (or the one named): migrated, ready, with its own pool. */
export async function openTestPgStore(options: TestPgStoreOptions = {}): Promise<TestPgStore> {
  const schema = schemaFor(options);
  if (!created.has(schema)) {
    await admin().query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    created.add(schema);
  }
  const applicationName = `chatflow-${schema}`;
  const store = await openPostgresStore(testDatabaseUrl(), {
    schema,
    applicationName,
    poolSize: options.poolSize ?? 4,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
  });
  return Object.assign(store, { schema, applicationName });
}

/** Drops the schema of `openTestPgStore({ schema })` / `({ key })` and everything in it. */
export async function dropTestPgStore(options: { schema?: string; key?: string }): Promise<void> {
  const schema = schemaFor(options);
  await dropSchema(schema);
}

async function dropSchema(schema: string): Promise<void> {
  created.delete(schema);
  await admin().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** Terminates every backend of the schema's stores; answers how many went. */
export async function terminateBackends(applicationName: string): Promise<number> {
  const { rows } = await admin().query<{ n: string }>(
    `SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
    [applicationName],
  );
  return Number(rows[0]?.n ?? 0);
}

/** A database of its own on the test server (for what a schema cannot show); drop() removes it. */
export async function createScratchDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const base = new URL(testDatabaseUrl());
  const name = `${base.pathname.slice(1)}_x${randomBytes(5).toString('hex')}`.slice(0, 63);
  await admin().query(`CREATE DATABASE ${name}`);
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await admin().query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
