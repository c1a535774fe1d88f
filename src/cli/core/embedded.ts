// The embedded service: with no server configured, the CLI runs the service over the local SQLite
// database, and the client talks to it as to any server. The command opens the file, works and
// closes it (the last connection to close checkpoints the WAL and removes it): between commands
// the database is a plain file, and nothing but the command's own connections holds it meanwhile.
// Two ways, the client the same:
// - in this process (server/in-process.ts): no socket, no port, no second thread;
// - a bulk command (import) runs it in a worker thread (embedded-worker.ts) on a loopback port, so
//   that the service's work (parsing, validation, the database) and the CLI's (reading and
//   parsing the file) run side by side on two cores. (An export's CLI side only copies bytes:
//   there a thread cost more than it saved.) The thread's connection is an ordinary one of this
//   process, closed before the command ends.
import type { BatchLimits, RequestFn } from '../../client/index.js';
import { MAX_INGEST_ITEMS } from '../../schema/limits.js';

/** Where the client sends: a loopback URL and its key (a thread), or a function (this process). */
export type EmbeddedService = ({ url: string; apiKey: string } | { request: RequestFn }) & {
  dbPath: string;
  /** Where it answers, for --debug: `in this process` or `on URL`. */
  where: string;
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

/** How a user of the embedded default names another database (no command takes --db but serve). */
export const OTHER_DB = 'CHATFLOW_DB';
/** How a user of the embedded default does without SQLite on this machine. */
export const WITHOUT_SQLITE = 'point at a server with --url';
const BULK_BATCH: BatchLimits = { maxBytes: BULK_BODY_LIMIT - 64 * 1024, maxItems: MAX_INGEST_ITEMS };

export interface EmbeddedOptions {
  /** Run the service in a worker thread (worth it for long bulk work). */
  thread?: boolean;
}

/** What the worker answers once it listens, or why it could not start. */
export type WorkerReply = { url: string } | { error: { message: string; exitCode?: number; code?: string } };

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedService> {
  const { defaultDbPath } = await import('../../server/default-db.js');
  const dbPath = defaultDbPath();
  if (options.thread) {
    // A one-off key: other local users cannot reach this short-lived port without it. (node:crypto
    // is imported here, not at the top: the bundle would load it on every start.)
    const { randomBytes } = await import('node:crypto');
    const apiKey = randomBytes(24).toString('base64url');
    const worker = await startWorker(dbPath, apiKey);
    return { ...worker, apiKey, dbPath, where: `on ${worker.url}`, batch: BULK_BATCH };
  }
  const [{ openInProcess }, { openStore }] = await Promise.all([import('../../server/in-process.js'), import('../../server/open-store.js')]);
  // A new database is a copy of the build's empty one (scripts/bundle.js), beside this bundle.
  const template = process.getBuiltinModule('node:url').fileURLToPath(new URL('./empty.db', import.meta.url));
  const store = await openStore({ dbPath, template, otherFile: OTHER_DB, withoutSqlite: WITHOUT_SQLITE });
  const service = await openInProcess({ store, bodyLimit: BULK_BODY_LIMIT }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  return { request: service.request, dbPath, where: 'in this process', batch: BULK_BATCH, close: service.close };
}

/**
 * A warning when other users may read or write the database's files (made so before they were
 * made 0600, or by hand), naming the fix; undefined when they are the user's alone.
 */
export function exposedDatabase(dbPath: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const { statSync } = process.getBuiltinModule('node:fs');
  const modes = [dbPath, `${dbPath}-wal`, `${dbPath}-shm`].map((file) => ({ file, mode: statSync(file, { throwIfNoEntry: false })?.mode ?? 0 }));
  const open = modes.filter((m) => (m.mode & 0o077) !== 0);
  if (open.length === 0) return undefined;
  return `the database ${dbPath} is open to other users (mode ${(open[0]!.mode & 0o777).toString(8)}); run: chmod 600 ${open.map((m) => m.file).join(' ')}`;
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
    const { message, ...more } = reply.error;
    throw Object.assign(new Error(message), more);
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
