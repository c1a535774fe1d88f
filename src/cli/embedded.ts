// The embedded service: with no server configured, the CLI runs the service's app over the local
// SQLite database, and the client talks to it as to any server. A command answers in its own
// process (server/in-process.ts): no socket, no port, no second thread to start. Bulk commands
// (export, import) run it in a worker thread instead (embedded-worker.ts) on a loopback port, so
// that the service's work (the database, validation, writing lists) and the CLI's (reading,
// parsing, writing files) run side by side on two cores.
import type { BatchLimits, RequestFn } from '../client/index.js';
import { MAX_INGEST_ITEMS } from '../schema/limits.js';

/** Where the client sends: a loopback URL and its key (a thread), or a function (this process). */
export type EmbeddedService = ({ url: string; apiKey: string } | { request: RequestFn }) & {
  dbPath: string;
  /** What one ingest request may carry: more than to another server (see BULK_BODY_LIMIT). */
  batch: BatchLimits;
  close(): Promise<void>;
};

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
  const { defaultDbPath } = await import('../server/default-db.js');
  const dbPath = defaultDbPath();
  if (options.thread) {
    // A one-off key: other local users cannot reach this short-lived port without it. (node:crypto
    // is imported here, not at the top: the bundle would load it on every start.)
    const { randomBytes } = await import('node:crypto');
    const apiKey = randomBytes(24).toString('base64url');
    return { ...(await startWorker(dbPath, apiKey)), apiKey, dbPath, batch: BULK_BATCH };
  }
  const [{ openInProcess }, { openStore }] = await Promise.all([import('../server/in-process.js'), import('../server/open-store.js')]);
  const store = await openStore({ dbPath });
  const service = await openInProcess({ store, bodyLimit: BULK_BODY_LIMIT }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  return { request: service.request, dbPath, batch: BULK_BATCH, close: service.close };
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
