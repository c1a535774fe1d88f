// The local service's process (see local-service.ts): `node local-service-main.js DB SOCKET START`,
// started detached by a command. It serves the database on the socket and exits when idle for
// CHATFLOW_SERVICE_IDLE seconds, when its socket is removed or taken over (`chatflow service stop`,
// a newer start), when its database file is removed or replaced, or on SIGTERM/SIGINT; each
// time after answering the requests under way.
import { chmodSync, fstatSync, lstatSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { startServer, type RunningServer } from '../server/app.js';
import { openStore } from '../server/open-store.js';
import { VERSION } from '../version.js';
import { BULK_BODY_LIMIT, OTHER_DB } from './embedded.js';
import { DEFAULT_IDLE_SECONDS, GONE_HEADER, removeFile, serviceFiles, type ServiceInfo } from './local-service.js';

const [dbPath, socket, start] = process.argv.slice(2) as [string, string, string];
const idleSeconds = Number(process.env.CHATFLOW_SERVICE_IDLE) > 0 ? Number(process.env.CHATFLOW_SERVICE_IDLE) : DEFAULT_IDLE_SECONDS;
const info = socket.replace(/\.sock$/, '.json');
process.title = 'chatflow-service';

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
  // The file itself, held open: removed (or replaced by a rename), it has no link left.
  const file = openSync(dbPath, 'r');
  const removed = () => {
    try {
      return fstatSync(file).nlink === 0;
    } catch {
      return true;
    }
  };
  const store = await openStore({ dbPath, otherFile: OTHER_DB });
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
  writeFileSync(`${info}.${process.pid}`, JSON.stringify({ pid: process.pid, version: VERSION, database: dbPath, idleSeconds, started: new Date().toISOString() } satisfies ServiceInfo), { mode: 0o600 });
  renameSync(`${info}.${process.pid}`, info);
  removeFile(start);
  watch(server, ino, removed);
} catch (err) {
  // The start file stays (with the reason, for whoever looks): commands run in their own process
  // and start no other service until it is stale (START_STALE_MS), rather than one a command.
  writeFileSync(start, `${process.pid}: ${(err as Error).message ?? String(err)}\n`, { mode: 0o600 });
  await server?.close().catch(() => undefined);
  process.exit(1);
}

function watch(running: RunningServer, ino: number, removed: () => boolean): void {
  let active = 0;
  let last = Date.now();
  // Every request passes here before the app: counted for the idle clock, and refused untouched
  // once the database file is gone (its writes would be lost with it; the command then answers
  // in its own process, from the file now at that path).
  const server = running.app.server;
  const app = server.listeners('request') as ((req: unknown, res: unknown) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    if (removed()) {
      res.writeHead(503, { [GONE_HEADER]: 'gone', connection: 'close', 'content-type': 'application/json' });
      res.end('{"message":"this local service\'s database file was removed"}');
      void stop();
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
    // The name goes first: no new command finds this service while it finishes.
    if (inode(socket) === ino) {
      removeFile(socket);
      removeFile(info);
    }
    await running.close().catch(() => undefined);
    process.exit(0);
  };
  const idleMs = idleSeconds * 1000;
  const timer = setInterval(() => {
    if (!stillOurs(ino) || removed() || (active === 0 && Date.now() - last >= idleMs)) void stop();
  }, Math.min(2000, idleMs));
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
