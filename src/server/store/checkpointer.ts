// Checkpoints of a SQLite file's WAL (copying its pages into the file, and syncing both) on a
// thread of their own, with a connection of their own. Run by a commit, as SQLite does by default,
// they would hold the service's one thread: for a second or more after a large write (the commit
// that ends a delete of a million messages, most commits of an import), answering nothing
// meanwhile. Here a commit only looks at the WAL's size; the thread, started the first time it is
// large, copies it while the service goes on (a PASSIVE checkpoint waits for no one and blocks
// no one: readers keep their snapshot, the writer appends).
// A second thread, with a connection of its own too, runs the few writes whose single statements
// take longer than a list may wait (`transaction`: emptying the message table for a large
// delete, see messages.ts).
import { statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { sqliteCode } from './node-sqlite.js';
import type { SqliteDriver } from './sqlite-driver.js';

/**
 * The thread's code: one connection; a message is a checkpoint, a transaction (its statements'
 * changes answered, or its error) or the end. Its transactions leave the checkpoints to the
 * checkpointer (no wal_autocheckpoint), run with the foreign keys off (the store keeps what they
 * would, see messages.ts) and wait for the lock as the store's writer does (busy timeout). It
 * uses only what node:sqlite and better-sqlite3 share (sqlite-driver.ts says which one runs).
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
// (node:sqlite on Node 22 warns that it is experimental, on stderr: nothing a user can act on.)
const emitWarning = process.emitWarning;
process.emitWarning = () => undefined;
const driver = require(workerData.driver);
process.emitWarning = emitWarning;
const Database = driver.DatabaseSync ?? driver;
const db = new Database(workerData.path, workerData.options);
db.exec('pragma busy_timeout = ' + workerData.busyTimeoutMs);
db.exec('pragma wal_autocheckpoint = 0');
db.exec('pragma synchronous = NORMAL');
db.exec('pragma foreign_keys = off');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  if (message === 'checkpoint') {
    db.exec('pragma wal_checkpoint(PASSIVE)');
    parentPort.postMessage('done');
    return;
  }
  try {
    db.exec('begin immediate');
    try {
      const changes = message.map((s) => Number(db.prepare(s.sql).run(...s.parameters).changes));
      db.exec('commit');
      parentPort.postMessage({ changes });
    } catch (err) {
      if (db.isTransaction ?? db.inTransaction) db.exec('rollback');
      throw err;
    }
  } catch (err) {
    parentPort.postMessage({ error: { message: err.message, code: err.code, errcode: err.errcode } });
  }
});
`;

/** A statement of a transaction on the thread: its SQL and parameters (kysely's CompiledQuery has both). */
export interface ThreadStatement {
  sql: string;
  parameters: readonly unknown[];
}

export interface Checkpointer {
  /** After a commit: checkpoints on the thread when the WAL holds `bytes` or more. */
  committed(): void;
  /**
   * Runs the statements in one transaction (BEGIN IMMEDIATE) on the thread; answers each one's
   * changes. The caller keeps the store's writer from writing meanwhile (it would wait for the
   * lock on the service's thread).
   */
  transaction(statements: readonly ThreadStatement[]): Promise<number[]>;
  /** Waits for a checkpoint under way and closes the thread's connection. */
  close(): Promise<void>;
}

/** A transaction's answer; a checkpoint's is 'done'. */
type Written = { changes: number[] } | { error: { message: string; code?: string; errcode?: number } };
type Answer = 'done' | Written;

/** A thread running THREAD on the file, unreferenced (an idle one keeps no process alive). */
async function spawn(path: string, open: Open, answered: (answer: Answer) => void, failed: (err: Error) => void) {
  const { Worker } = await import('node:worker_threads');
  const { module, options } = open.thread();
  const worker = new Worker(THREAD, { eval: true, workerData: { path, driver: module, options, busyTimeoutMs: open.busyTimeoutMs } });
  worker.unref();
  worker.on('message', answered);
  worker.once('error', failed);
  return worker;
}

/** Closes a thread's connection once what it was sent before is done (messages are taken in order). */
async function end(worker: Worker): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // Referenced again: unreferenced, a process with nothing else to do would end here, before
  // the thread closed its connection and before the code after close() ran.
  worker.ref();
  worker.postMessage('close');
  await exited;
}

/** How a thread opens its connection: the driver's module and options (SqliteDriver's thread()), the busy timeout. */
interface Open {
  thread: SqliteDriver['thread'];
  busyTimeoutMs: number;
}

export function checkpointer(path: string, bytes: number, open: Open): Checkpointer {
  let thread: Promise<Worker> | undefined;
  let running = false;
  /** A commit came while a checkpoint ran: look again when it is done. */
  let again = false;
  let failed = false;
  let closed = false;
  // Transactions run on a second thread: behind a checkpoint (a WAL of 256 MiB copied into the
  // file, seconds under load) a delete would wait for nothing, SQLite letting a writer write
  // while a checkpoint runs.
  let writes: Promise<Worker> | undefined;
  let writesFailed = false;
  /** Transactions sent, answered in order. */
  const waiting: { resolve: (changes: number[]) => void; reject: (err: Error) => void }[] = [];

  const start = () =>
    spawn(
      path,
      open,
      () => {
        running = false;
        if (again) {
          again = false;
          committed();
        }
      },
      // The writer's own checkpoints (wal_autocheckpoint, sqlite.ts) remain: a thread that
      // cannot run leaves them to it.
      () => {
        failed = true;
        running = false;
      },
    );

  const startWrites = () =>
    spawn(
      path,
      open,
      (answer) => {
        const written = answer as Written;
        const { resolve, reject } = waiting.shift()!;
        if (waiting.length === 0) void writes?.then((worker) => worker.unref());
        if ('changes' in written) resolve(written.changes);
        else reject(Object.assign(new Error(written.error.message), { code: sqliteCode(written.error) }));
        committed();
      },
      (err) => {
        writesFailed = true;
        for (const { reject } of waiting.splice(0)) reject(err);
      },
    );

  function committed(): void {
    if (failed || closed) return;
    if (running) {
      again = true;
      return;
    }
    let size: number;
    try {
      size = statSync(`${path}-wal`).size;
    } catch {
      return;
    }
    // (The file keeps its size after a checkpoint until the writer starts it over, cut back to
    // journal_size_limit: a checkpoint with nothing left to copy is a look at the WAL's header.)
    if (size < bytes) return;
    running = true;
    void (thread ??= start()).then((worker) => worker.postMessage('checkpoint'));
  }

  return {
    committed,
    async transaction(statements) {
      if (writesFailed || closed) throw new Error("the store's thread for long writes is not running");
      const worker = await (writes ??= startWrites());
      return new Promise<number[]>((resolve, reject) => {
        waiting.push({ resolve, reject });
        // (Referenced while it works for us: a process awaiting only this must not end.)
        worker.ref();
        worker.postMessage(statements.map(({ sql, parameters }) => ({ sql, parameters })));
      });
    },
    async close() {
      closed = true;
      // A checkpoint or a transaction under way ends first.
      if (writes && !writesFailed) await end(await writes);
      if (thread && !failed) await end(await thread);
    },
  };
}
