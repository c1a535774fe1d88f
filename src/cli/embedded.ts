// The embedded service: with no server configured, the CLI starts the service's app factory on
// a free loopback port over the local SQLite database and talks HTTP to it like to any server.
// The service runs in a worker thread (embedded-worker.ts), so that its work (the database,
// validation, serialising lists) and the CLI's (parsing, formatting, writing) run side by side:
// an export or import of a million records uses two cores instead of one.
import { randomBytes } from 'node:crypto';

export interface EmbeddedService {
  url: string;
  apiKey: string;
  dbPath: string;
  close(): Promise<void>;
}

/** What the worker answers once it listens, or why it could not start. */
export type WorkerReply = { url: string } | { error: { message: string; exitCode?: number } };

export async function startEmbedded(): Promise<EmbeddedService> {
  const [{ Worker }, { defaultDbPath }] = await Promise.all([import('node:worker_threads'), import('../server/default-db.js')]);
  const dbPath = defaultDbPath();
  // A one-off key: other local users cannot reach this short-lived port without it.
  const apiKey = randomBytes(24).toString('base64url');
  const worker = new Worker(new URL('./embedded-worker.js', import.meta.url), { workerData: { dbPath, apiKey } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const reply = await new Promise<WorkerReply>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    void exited.then(() => reject(new Error('the embedded service stopped while starting')));
  });
  if ('error' in reply) {
    await exited;
    throw Object.assign(new Error(reply.error.message), reply.error.exitCode === undefined ? {} : { exitCode: reply.error.exitCode });
  }
  return {
    url: reply.url,
    apiKey,
    dbPath,
    async close() {
      // The worker finishes in-flight requests, closes the database and exits.
      worker.postMessage('close');
      await exited;
    },
  };
}
