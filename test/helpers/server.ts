// Starts the real service over HTTP on a temporary SQLite file (or a PostgreSQL database).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type AppOptions, type RunningServer } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { Store } from '../../src/server/store/types.js';

export interface TestServer extends RunningServer {
  /** The API root: url + /api/v1. */
  api: string;
  dbPath: string;
  dir: string;
  /** Closes the server (and store) and removes the temporary directory. */
  dispose(): Promise<void>;
}

export interface TestServerOptions {
  apiKeys?: string[];
  bodyLimit?: number;
  /** Reuse a directory (to restart on the same database file). */
  dir?: string;
  store?: Store;
  timeouts?: AppOptions['timeouts'];
  log?: AppOptions['log'];
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'chatflow-test-'));
  const dbPath = join(dir, 'chatflow.db');
  const store = options.store ?? (await openSqliteStore(dbPath));
  const { apiKeys, bodyLimit, timeouts, log } = options;
  const server = await startServer({ store, port: 0, apiKeys, bodyLimit, timeouts, log });
  return {
    ...server,
    api: `${server.url}/api/v1`,
    dbPath,
    dir,
    async dispose() {
      await server.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
