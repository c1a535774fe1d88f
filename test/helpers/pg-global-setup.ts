// Vitest global setup: the PostgreSQL database the PostgreSQL tests use.
// CI (.ci/run) creates one per run and exports CHATFLOW_TEST_DATABASE_URL; on a developer's
// machine this creates `chatflow_test_<pid>` on the local server and drops it at the end.
// Each test file then works in schemas of its own inside that database (test/helpers/pg.ts).
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Database for the PostgreSQL tests; absent when none could be had (see the error). */
    chatflowTestDatabase: { url?: string; error?: string };
  }
}

const ADMIN_URL = process.env.CHATFLOW_TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const redact = (url: string) => url.replace(/^(postgres(?:ql)?:\/\/)[^@/]*@/i, '$1***@');

/**
 * A run killed before its teardown leaves its database behind: drop those whose vitest process
 * is gone. Only for a server on this machine, where the pid in the name means something.
 */
async function dropOrphans(admin: pg.Client): Promise<void> {
  if (!/^(localhost|127\.0\.0\.1|\[::1\])$/.test(new URL(ADMIN_URL).hostname)) return;
  const { rows } = await admin.query<{ datname: string }>(
    String.raw`SELECT datname FROM pg_database WHERE datname ~ '^chatflow_test_\d+$'`,
  );
  for (const { datname } of rows) {
    const pid = Number(datname.slice('chatflow_test_'.length));
    if (pid === process.pid || isAlive(pid)) continue;
    await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.CHATFLOW_TEST_DATABASE_URL;
  if (given) {
    project.provide('chatflowTestDatabase', { url: given });
    return undefined;
  }
  const name = `chatflow_test_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await dropOrphans(admin);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    await admin.end().catch(() => {});
    // Not fatal here: tests that need no PostgreSQL still run; the PostgreSQL ones fail with this.
    project.provide('chatflowTestDatabase', {
      error:
        `no PostgreSQL for the tests: set CHATFLOW_TEST_DATABASE_URL, or run PostgreSQL at ${redact(ADMIN_URL)} ` +
        `(CHATFLOW_TEST_PG_ADMIN_URL) so that a database can be created (${(err as Error).message})`,
    });
    return undefined;
  }
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  project.provide('chatflowTestDatabase', { url: url.toString() });

  return async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end().catch(() => {});
    }
  };
}
