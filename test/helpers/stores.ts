// The stores the server suite runs against. Each test file does `describe.each(storeKinds)`, so a
// store added here (PostgreSQL) runs the whole suite without touching the test files.
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { Store } from '../../src/server/store/types.js';
import { dropTestPgStore, openTestPgStore } from './pg.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';

export const storeKinds = ['sqlite', 'postgres'] as const;
export type StoreKind = (typeof storeKinds)[number];

/**
 * Opens a store of the given kind whose data lives "in" `dir`: opening it again with the same dir
 * finds the same data (the restart test relies on that).
 */
export async function openTestStore(kind: StoreKind, dir: string): Promise<Store> {
  if (kind === 'sqlite') return openSqliteStore(join(dir, 'chatflow.db'));
  // PostgreSQL: a schema of its own, named after the directory (test/helpers/pg.ts).
  if (kind === 'postgres') return openTestPgStore({ key: dir });
  throw new Error(`no test store of kind ${String(kind)}`);
}

/** Removes what openTestStore created for `dir` (for SQLite the file goes with the directory). */
export async function removeTestStore(kind: StoreKind, dir: string): Promise<void> {
  if (kind === 'postgres') await dropTestPgStore({ key: dir });
  rmSync(dir, { recursive: true, force: true });
}

export type StoreServerOptions = Omit<TestServerOptions, 'store'>;

/**
 * The real service over HTTP on a fresh store of this kind. With `dir`, the store of that
 * directory is (re)opened and kept on dispose; without, a temporary one is made and removed.
 */
export async function startStoreServer(kind: StoreKind, options: StoreServerOptions = {}): Promise<TestServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), `chatflow-${kind}-`));
  const store = await openTestStore(kind, dir);
  const server = await startTestServer({ ...options, dir, store });
  return {
    ...server,
    async dispose() {
      await server.dispose();
      if (!options.dir) await removeTestStore(kind, dir);
    },
  };
}

/**
 * The service on a fresh store of this kind for the enclosing describe block: started before its
 * tests, disposed after them. Read `server` and `api` inside tests (they exist only by then).
 */
export function useStoreServer(kind: StoreKind): { readonly server: TestServer; readonly api: string } {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startStoreServer(kind);
  });
  afterAll(() => server?.dispose());
  return {
    get server() {
      if (!server) throw new Error('the test server has not started');
      return server;
    },
    get api() {
      return this.server.api;
    },
  };
}
