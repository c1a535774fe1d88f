// The local service's process (see local-service.ts): `node local-service-main.js DB SOCKET START`,
// started detached by a command. It serves the database on the socket and exits when idle for
// CHATFLOW_SERVICE_IDLE seconds, when its socket is removed or taken over (`chatflow service stop`,
// a newer start), or on SIGTERM/SIGINT, each time after answering the requests under way; and at
// once, writing nothing more, when its database file is removed, replaced or restored over.
import { chmodSync, lstatSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { startServer, type RunningServer } from '../server/app.js';
import { openStore } from '../server/open-store.js';
import { dropJournal, holdFile, type Gone, type HeldFile } from '../server/store/sqlite-file.js';
import { VERSION } from '../version.js';
import { BULK_BODY_LIMIT, OTHER_DB } from './embedded.js';
import { DEFAULT_IDLE_SECONDS, GONE_HEADER, removeFile, serviceFiles, type ServiceInfo } from './local-service.js';

const [dbPath, socket, start] = process.argv.slice(2) as [string, string, string];
const idleSeconds = Number(process.env.CHATFLOW_SERVICE_IDLE) > 0 ? Number(process.env.CHATFLOW_SERVICE_IDLE) : DEFAULT_IDLE_SECONDS;
const info = socket.replace(/\.sock$/, '.json');
process.title = 'chatflow-service';
/** How often the database file is looked at (see watch). */
const FILE_CHECK_MS = 200;

/** Still the service its socket's name promises: this version, this database file. */
const stillOurs = (ino: number) => serviceFiles(dbPath)?.socket === socket && inode(socket) === ino;

function inode(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

let server: RunningServer | undefined;
try {
  if (serviceFiles(dbPath)?.socket !== socket) throw new Error('the database is not the one named');
  const store = await openStore({ dbPath, otherFile: OTHER_DB });
  // The file itself, held open: this service is its file's, not its path's (sqlite-file.ts).
  const held = holdFile(dbPath);
  // Listens on a name of its own, then takes the real name in one step (rename): a command never
  // finds a socket that does not answer yet, and a stale socket by that name is replaced whole.
  const own = `${socket}.${process.pid}`;
  removeFile(own);
  server = await startServer({ store, path: own, bodyLimit: BULK_BODY_LIMIT }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  chmodSync(own, 0o600);
  renameSync(own, socket);
  const ino = inode(socket)!;
  // (Whole or not at all: written aside, then renamed.)
  const about: ServiceInfo = { pid: process.pid, version: VERSION, database: dbPath, idleSeconds, started: new Date().toISOString(), file: { path: realpathSync(dbPath), identity: held.identity, journal: held.journal } };
  writeFileSync(`${info}.${process.pid}`, JSON.stringify(about), { mode: 0o600 });
  renameSync(`${info}.${process.pid}`, info);
  removeFile(start);
  watch(server, ino, held);
} catch (err) {
  // The start file stays (with the reason, for whoever looks): commands run in their own process
  // and start no other service until it is stale (START_STALE_MS), rather than one a command.
  writeFileSync(start, `${process.pid}: ${(err as Error).message ?? String(err)}\n`, { mode: 0o600 });
  await server?.close().catch(() => undefined);
  process.exit(1);
}

function watch(running: RunningServer, ino: number, held: HeldFile): void {
  let active = 0;
  let last = Date.now();
  /** The name goes first: no new command finds this service while it finishes. */
  const unname = () => {
    if (inode(socket) === ino) {
      removeFile(socket);
      removeFile(info);
    }
  };
  /**
   * Its file is no longer at its path, or was written by someone else: nothing more is written.
   * Its journal (the file's last commits, which belong to no file at that path) goes, and the
   * process ends at once: SQLite's close would checkpoint and delete `<path>-wal` and `-shm` by
   * name, the journal of whatever file is there now. A second name only stops it (its journal stays
   * the file's, and commands refuse a file of several names).
   */
  const abandon = (gone: Gone) => {
    if (gone === 'linked') return void stop();
    dropJournal(dbPath, held.journal);
    unname();
    process.kill(process.pid, 'SIGKILL');
  };
  // Every request passes here before the app: counted for the idle clock, and refused untouched
  // once the database file is gone (its writes would be lost with it; the command then answers
  // in its own process, from the file now at that path).
  const server = running.app.server;
  const app = server.listeners('request') as ((req: unknown, res: unknown) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    // A request that comes while it exits (idle, stopped) is refused untouched too, rather than
    // by the app's 503: the command then answers it in its own process.
    if (stopping) {
      res.writeHead(503, { [GONE_HEADER]: 'stopping', connection: 'close', 'content-type': 'application/json' });
      res.end('{"message":"this local service is exiting"}');
      return;
    }
    const gone = held.gone();
    if (gone) {
      if (gone !== 'linked') {
        dropJournal(dbPath, held.journal);
        unname();
      }
      res.writeHead(503, { [GONE_HEADER]: gone, connection: 'close', 'content-type': 'application/json' });
      res.end(`{"message":"this local service's database file was ${gone}"}`, () => abandon(gone));
      return;
    }
    active++;
    res.once('close', () => {
      active--;
      last = Date.now();
    });
    for (const listener of app) listener.call(server, req, res);
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    clearInterval(fileTimer);
    unname();
    // (Looked at once more right before the close: see abandon.)
    const gone = held.gone();
    if (gone && gone !== 'linked') abandon(gone);
    await running.close().catch(() => undefined);
    process.exit(0);
  };
  const idleMs = idleSeconds * 1000;
  const timer = setInterval(() => {
    if (!stillOurs(ino) || (active === 0 && Date.now() - last >= idleMs)) void stop();
  }, Math.min(2000, idleMs));
  // The file is looked at often (an fstat, a stat, a read of 100 bytes): a file removed, replaced
  // or restored is let go within a moment, even with no request coming.
  const fileTimer = setInterval(() => {
    const gone = held.gone();
    if (gone) abandon(gone);
  }, FILE_CHECK_MS);
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
