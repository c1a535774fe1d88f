// Checkpoints of a SQLite file's WAL (copying its pages into the file, and syncing both) on a
// thread of their own, with a connection of their own. Run by a commit, as SQLite does by default,
// they would hold the service's one thread: for a second or more after a large write (the commit
// that ends a delete of a million messages, most commits of an import), answering nothing
// meanwhile. Here a commit only looks at the WAL's size; the thread, started the first time it is
// large, copies it while the service goes on (a PASSIVE checkpoint waits for no one and blocks
// no one: readers keep their snapshot, the writer appends).
import { statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';

/** The thread's code: one connection, one checkpoint a message, closed when told. */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, workerData.addon);
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage('done');
});
`;

export interface Checkpointer {
  /** After a commit: checkpoints on the thread when the WAL holds `bytes` or more. */
  committed(): void;
  /** Waits for a checkpoint under way and closes the thread's connection. */
  close(): Promise<void>;
}

export function checkpointer(path: string, bytes: number, open: { driver: string; addon: object }): Checkpointer {
  let thread: Promise<Worker> | undefined;
  let running = false;
  /** A commit came while a checkpoint ran: look again when it is done. */
  let again = false;
  let failed = false;
  let closed = false;

  const start = async (): Promise<Worker> => {
    const { Worker } = await import('node:worker_threads');
    const worker = new Worker(THREAD, { eval: true, workerData: { path, ...open } });
    // An idle checkpointer keeps no process alive (close() ends it all the same).
    worker.unref();
    worker.on('message', () => {
      running = false;
      if (again) {
        again = false;
        committed();
      }
    });
    // The writer's own checkpoints (wal_autocheckpoint, sqlite.ts) remain: a thread that cannot
    // run leaves them to it.
    worker.once('error', () => {
      failed = true;
      running = false;
    });
    return worker;
  };

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
    async close() {
      closed = true;
      if (!thread) return;
      const worker = await thread;
      if (failed) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      // Referenced again: unreferenced, a process with nothing else to do would end here, before
      // the thread closed its connection and before the code after close() ran.
      worker.ref();
      // Messages are taken in order: a checkpoint under way ends first.
      worker.postMessage('close');
      await exited;
    },
  };
}
