// The embedded service: with no server configured, the CLI runs the service over the local SQLite
// database, and the client talks to it as to any server. The command opens the file, works and
// closes it (the last connection to close checkpoints the WAL and removes it): between commands
// the database is a plain file, and nothing but the command's own connections holds it meanwhile.
// It answers in this process (server/in-process.ts): no socket, no port, no second thread. An
// import streams its records to it (client IngestStream), which parses, validates and writes them
// batch by batch as they come.
import type { BatchLimits, RequestFn } from '../../client/index.js';
import { MAX_INGEST_ITEMS } from '../../schema/limits.js';

/** The service the client sends to: a function of this process. */
export interface EmbeddedService {
  request: RequestFn;
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

/** How a user of the embedded default names another database (no command takes --db but serve). */
export const OTHER_DB = 'CHATFLOW_DB';
/** How a user of the embedded default does without SQLite on this machine. */
export const WITHOUT_SQLITE = 'point at a server with --url';
const BULK_BATCH: BatchLimits = { maxBytes: BULK_BODY_LIMIT - 64 * 1024, maxItems: MAX_INGEST_ITEMS };

export async function startEmbedded(): Promise<EmbeddedService> {
  const { defaultDbPath } = await import('../../server/default-db.js');
  const dbPath = defaultDbPath();
  const [{ openInProcess }, { openStore }] = await Promise.all([import('../../server/in-process.js'), import('../../server/open-store.js')]);
  // A new database is a copy of the build's empty one (scripts/bundle.js), beside this bundle.
  const template = process.getBuiltinModule('node:url').fileURLToPath(new URL('./empty.db', import.meta.url));
  const store = await openStore({ dbPath, template, otherFile: OTHER_DB, withoutSqlite: WITHOUT_SQLITE });
  const service = await openInProcess({ store, bodyLimit: BULK_BODY_LIMIT }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  return { request: service.request, dbPath, batch: BULK_BATCH, close: service.close };
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
