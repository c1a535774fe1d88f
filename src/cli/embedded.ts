// The embedded service: with no server configured, the CLI runs the service's app over the local
// SQLite database, and the client talks to it as to any server. Three ways, the client the same:
// - the local service (local-service.ts): a background process of the user's, started by the
//   first command, answering later ones over a Unix socket, so that they do not load the service;
// - in this process (server/in-process.ts): no socket, no port, no second thread. The first
//   command runs so, and any command the local service cannot answer (none yet, not wanted:
//   CHATFLOW_NO_SERVICE or CI, gone meanwhile);
// - a bulk command (import) runs it in a worker thread (embedded-worker.ts) on a loopback port, so
//   that the service's work (parsing, validation, the database) and the CLI's (reading and
//   parsing the file) run side by side on two cores. (An export's CLI side only copies bytes:
//   there a thread cost more than it saved.)
import { CONNECTION_LOST, IDEMPOTENT } from '../client/core.js';
import type { BatchLimits, RequestFn } from '../client/index.js';
import { GONE_HEADER, type Found } from './local-service.js';
import { MAX_INGEST_ITEMS } from '../schema/limits.js';

/** Where the client sends: a loopback URL and its key (a thread), or a function (this process). */
export type EmbeddedService = ({ url: string; apiKey: string } | { request: RequestFn }) & {
  dbPath: string;
  /** Where it answers, for --debug: `in this process`, `on URL`, `over SOCKET`. */
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
  /** Use (or start) the local service; default: unless CHATFLOW_NO_SERVICE or CI. */
  local?: boolean;
}

/** What the worker answers once it listens, or why it could not start. */
export type WorkerReply = { url: string } | { error: { message: string; exitCode?: number; code?: string } };

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedService> {
  const { defaultDbPath } = await import('../server/default-db.js');
  const dbPath = defaultDbPath();
  if (options.thread) {
    // A one-off key: other local users cannot reach this short-lived port without it. (node:crypto
    // is imported here, not at the top: the bundle would load it on every start.)
    const { randomBytes } = await import('node:crypto');
    const apiKey = randomBytes(24).toString('base64url');
    await (await import('./local-service.js')).settleFile(dbPath);
    const worker = await startWorker(dbPath, apiKey);
    return { ...worker, apiKey, dbPath, where: `on ${worker.url}`, batch: BULK_BATCH };
  }
  const local = options.local === false ? undefined : await import('./local-service.js');
  let found: Found | undefined = await local?.findService(dbPath);
  if (found && 'socket' in found) return overSocket(found.socket, dbPath);
  const service = await inProcess(dbPath);
  return {
    request: service.request,
    dbPath,
    where: 'in this process',
    batch: BULK_BATCH,
    async close() {
      await service.close();
      // The database exists now: start the local service for the commands to come. Once this
      // command is done with its answer (and the service itself runs only once this process has
      // exited, local-service.ts): its start-up would otherwise take the processor from the answer.
      found ??= await local?.findService(dbPath);
      if (local && found && 'files' in found) local.startService(found.files, dbPath);
    },
  };
}

async function inProcess(dbPath: string) {
  const [{ openInProcess }, { openStore }, { settleFile }] = await Promise.all([import('../server/in-process.js'), import('../server/open-store.js'), import('./local-service.js')]);
  await settleFile(dbPath);
  // A new database is a copy of the build's empty one (scripts/bundle.js), beside this bundle.
  const template = process.getBuiltinModule('node:url').fileURLToPath(new URL('./empty.db', import.meta.url));
  const store = await openStore({ dbPath, template, otherFile: OTHER_DB, withoutSqlite: WITHOUT_SQLITE });
  return openInProcess({ store, bodyLimit: BULK_BODY_LIMIT }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
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

/** Errors of a request that never reached the service: its socket is gone or nothing listens. */
const UNSENT = new Set(['ECONNREFUSED', 'ENOENT']);

/**
 * Requests over the local service's socket. Should the service be gone (killed, stopped, idled
 * out since it was found), the rest of the command runs in this process: a request that never
 * reached it, or an idempotent one, is sent again there; a change that may have been made is not
 * (the command fails, saying so).
 */
async function overSocket(socket: string, dbPath: string): Promise<EmbeddedService> {
  const { http1Transport } = await import('../client/transports.js');
  const transport = http1Transport({ socketPath: socket });
  let fallback: ReturnType<typeof inProcess> | undefined;
  let gone = false;
  const send: RequestFn = async (url, options) => {
    if (!gone) {
      try {
        const answer = await transport.request(url, options);
        if (answer.headers[GONE_HEADER] === undefined) return answer;
        // Its database file was removed: it did nothing; the file at the path now answers here.
        await answer.body.dump().catch(() => undefined);
        gone = true;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (options.signal?.aborted || typeof code !== 'string' || !(UNSENT.has(code) || CONNECTION_LOST.has(code))) throw err;
        gone = true;
        if (!UNSENT.has(code) && !IDEMPOTENT.has(options.method)) {
          throw new Error(`the local service stopped while answering ${options.method} (the change may or may not have been made): check, then run the command again`);
        }
      }
    }
    return (await (fallback ??= inProcess(dbPath))).request(url, options);
  };
  return {
    request: send,
    dbPath,
    where: `over ${socket}`,
    batch: BULK_BATCH,
    async close() {
      await transport.close();
      await (await fallback)?.close();
    },
  };
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
