// The embedded service's thread (see embedded.ts): opens the store, listens on a free loopback
// port, answers its URL, and closes everything when told to.
import { parentPort, workerData } from 'node:worker_threads';
import { startServer } from '../../server/app.js';
import { openStore } from '../../server/open-store.js';
import { BULK_BODY_LIMIT, OTHER_DB, WITHOUT_SQLITE, type WorkerReply } from './embedded.js';

const { dbPath, apiKey } = workerData as { dbPath: string; apiKey: string };
const port = parentPort!;

try {
  const store = await openStore({ dbPath, otherFile: OTHER_DB, withoutSqlite: WITHOUT_SQLITE });
  const server = await startServer({ store, host: '127.0.0.1', port: 0, apiKeys: [apiKey], bodyLimit: BULK_BODY_LIMIT }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  port.once('message', () => {
    void server.close().finally(() => port.close());
  });
  port.postMessage({ url: server.url } satisfies WorkerReply);
} catch (err) {
  const { message, exitCode, code } = err as { message?: string; exitCode?: unknown; code?: unknown };
  port.postMessage({
    error: { message: message ?? String(err), ...(typeof exitCode === 'number' ? { exitCode } : {}), ...(typeof code === 'string' ? { code } : {}) },
  } satisfies WorkerReply);
  port.close();
}
