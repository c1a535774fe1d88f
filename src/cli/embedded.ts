// The embedded service: with no server configured, the CLI starts the service's app factory on
// a free loopback port over the local SQLite database and talks HTTP to it like to any server.
// Bulk commands (export, import) run it in a worker thread (embedded-worker.ts), so that the
// service's work (the database, validation, writing lists) and the CLI's (reading, parsing,
// writing files) run side by side on two cores; other commands keep it in their own thread,
// which starts faster.
import type { BatchLimits } from '../client/index.js';
import { MAX_INGEST_ITEMS } from '../schema/limits.js';

export interface EmbeddedService {
  url: string;
  apiKey: string;
  dbPath: string;
  /** What one ingest request may carry: more than to another server (see BULK_BODY_LIMIT). */
  batch: BatchLimits;
  close(): Promise<void>;
}

/**
 * The embedded service takes larger bodies than a server's default of 1 MiB: it is ours and
 * local, and an import into it then commits as many records a transaction as an ingest request
 * may carry. With random (UUIDv4) ids a commit writes out every page of the id index it touched,
 * nearly one a record in a small batch: twice the batch, half those writes.
 */
export const BULK_BODY_LIMIT = 32 * 1024 * 1024;
const BULK_BATCH: BatchLimits = { maxBytes: BULK_BODY_LIMIT - 64 * 1024, maxItems: MAX_INGEST_ITEMS };

export interface EmbeddedOptions {
  /** Run the service in a worker thread (worth it for long bulk work). */
  thread?: boolean;
}

/** What the worker answers once it listens, or why it could not start. */
export type WorkerReply = { url: string } | { error: { message: string; exitCode?: number } };

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedService> {
  // node:crypto is imported here, not at the top: the bundle would load it on every start.
  const [{ defaultDbPath }, { randomBytes }] = await Promise.all([import('../server/default-db.js'), import('node:crypto')]);
  const dbPath = defaultDbPath();
  // A one-off key: other local users cannot reach this short-lived port without it.
  const apiKey = randomBytes(24).toString('base64url');
  if (options.thread) return { ...(await startWorker(dbPath, apiKey)), apiKey, dbPath, batch: BULK_BATCH };
  const [{ startServer }, { openStore }] = await Promise.all([import('../server/app.js'), import('../server/open-store.js')]);
  const store = await openStore({ dbPath });
  const server = await startServer({ store, host: '127.0.0.1', port: 0, apiKeys: [apiKey], bodyLimit: BULK_BODY_LIMIT });
  return { url: server.url, apiKey, dbPath, batch: BULK_BATCH, close: () => server.close() };
}

async function startWorker(dbPath: string, apiKey: string): Promise<{ url: string; close(): Promise<void> }> {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(new URL('./embedded-worker.js', import.meta.url), {
    workerData: { dbPath, apiKey },
    // Streaming a million rows makes short-lived strings fast: a young generation smaller than
    // V8's default keeps some 20 MB off the peak memory, at no measurable cost in time.
    resourceLimits: { maxYoungGenerationSizeMb: 16 },
  });
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
    async close() {
      // The worker finishes in-flight requests, closes the database and exits.
      worker.postMessage('close');
      await exited;
    },
  };
}
