// The embedded service: with no server configured, the CLI starts the service's app factory on
// a free loopback port over the local SQLite database and talks HTTP to it like to any server.
import { randomBytes } from 'node:crypto';

export interface EmbeddedService {
  url: string;
  apiKey: string;
  dbPath: string;
  close(): Promise<void>;
}

export async function startEmbedded(): Promise<EmbeddedService> {
  const [{ startServer }, { openStore }, { defaultDbPath }] = await Promise.all([
    import('../server/app.js'),
    import('../server/open-store.js'),
    import('../server/default-db.js'),
  ]);
  const dbPath = defaultDbPath();
  const store = await openStore({ dbPath });
  // A one-off key: other local users cannot reach this short-lived port without it.
  const apiKey = randomBytes(24).toString('base64url');
  const server = await startServer({ store, host: '127.0.0.1', port: 0, apiKeys: [apiKey] });
  return { url: server.url, apiKey, dbPath, close: () => server.close() };
}
