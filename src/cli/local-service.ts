// The local service: with no server configured, the first command answers in its own process and
// then starts the embedded service as a background process of the user's (local-service-main.ts); later
// commands send over its Unix socket, so they no longer load the service's code (the most of an
// in-process command's time). The service exits after some idle minutes. It is only a faster
// transport: when anything about it is wrong the command runs in-process as before, silently.
//
// Safety, by construction:
// - The socket lives in a directory of the user's own (mode 0700, checked: owner, mode, not a
//   link, and every directory above it the user's or root's, sticky where others may write),
//   $XDG_RUNTIME_DIR/chatflow (only when that directory is the user's, 0700) or
//   ~/.cache/chatflow/run; a socket not ours is never used.
// - Its name holds the package version and the database (path and file identity): another version,
//   another database, or the file replaced, and the name differs, so a command never talks to a
//   service of another version or database (that one idles out, or sees its file gone and exits).
// - One starter: a start file made with O_EXCL; a command that finds it runs in-process.
// - A socket nothing answers on (the service was killed) is removed, and a service started anew.
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { dropJournal, identityAt, identityOf } from '../server/store/sqlite-file.js';
import { VERSION } from '../version.js';
import { cacheDir } from './dirs.js';
// (node:net, node:child_process and node:url are taken when used, with process.getBuiltinModule:
// an import would build their module facades on every start of the CLI, --help included.)

/** The header of a service's refusal: its database file was removed; nothing was done. */
export const GONE_HEADER = 'x-chatflow-local-service';

/** Idle time after which the service exits, unless CHATFLOW_SERVICE_IDLE (seconds) says. */
export const DEFAULT_IDLE_SECONDS = 300;
/**
 * A start file older than this belongs to a starter that died, or to a service that could not
 * start (which leaves it, so that commands do not each try again): it no longer blocks a start.
 */
const START_STALE_MS = 30_000;
/** Unix socket paths are limited to some 104 bytes (macOS; 108 on Linux). */
const MAX_SOCKET_PATH = 100;

/** The files of one service: its socket, the start file, and what `service status` reads. */
export interface ServiceFiles {
  dir: string;
  socket: string;
  /** Made (O_EXCL) by the command that starts the service; removed once it listens. */
  start: string;
  /** JSON: pid, version, database, idle seconds, started (ServiceInfo). */
  info: string;
}

export interface ServiceInfo {
  pid: number;
  version: string;
  database: string;
  idleSeconds: number;
  started: string;
  /** The file it serves by what it is (its real path, identity, and its journal's): see settleFile. */
  file?: { path: string; identity: string; journal: { wal?: string; shm?: string } };
}

/** Whether commands may use (and start) a local service: not on Windows, not in CI, not when told. */
function serviceWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return false;
  if (truthy(env.CHATFLOW_NO_SERVICE)) return false;
  // A CI job's container ends with its job; a service left behind helps no one there.
  return !truthy(env.CI);
}

const truthy = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/**
 * The directory of the user's services (not created): in XDG_RUNTIME_DIR only when that is the
 * user's own directory, closed to others (as systemd makes it), else below the cache directory.
 */
export function serviceDir(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && isAbsolute(runtime) && typeof process.getuid === 'function') {
    const st = statSync(runtime, { throwIfNoEntry: false });
    if (st?.isDirectory() && st.uid === process.getuid() && (st.mode & 0o077) === 0) return join(runtime, 'chatflow');
  }
  return join(cacheDir(env), 'run');
}

/**
 * Makes the directory (0700) and checks it is ours and closed to others, and that no one else can
 * replace it or any directory above it (each the user's or root's; one others may write to,
 * sticky, as /tmp: no one else can rename what is in it) between this check and a connect to a
 * socket in it; false: do not use it.
 */
function ownDir(dir: string): boolean {
  try {
    const uid = process.getuid!();
    // (The directories above first: none is made inside another user's.)
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
    for (let above = realpathSync(dirname(dir)); ; above = dirname(above)) {
      const up = statSync(above);
      if ((up.uid !== uid && up.uid !== 0) || ((up.mode & 0o022) !== 0 && (up.mode & 0o1000) === 0)) return false;
      if (above === dirname(above)) break;
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The service for this database and this version; undefined when the database does not exist yet. */
export function serviceFiles(dbPath: string, env: NodeJS.ProcessEnv = process.env): ServiceFiles | undefined {
  let real: string;
  let identity: string;
  try {
    real = realpathSync(dbPath);
    identity = identityOf(statSync(real));
  } catch {
    return undefined;
  }
  const dir = serviceDir(env);
  const base = join(dir, `${VERSION}-${hash(`${VERSION}\0${real}\0${identity}`)}`);
  const socket = `${base}.sock`;
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) return undefined;
  return { dir, socket, start: `${base}.start`, info: `${base}.json` };
}

/** FNV-1a, 64 bits as two 32-bit halves: a short stable name (node:crypto costs a start). */
function hash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/** A socket file of ours (a socket, owned by this user); false for anything else or nothing. */
function ourSocket(path: string): { ino: number } | undefined {
  try {
    const st = lstatSync(path);
    return st.isSocket() && st.uid === process.getuid!() ? { ino: st.ino } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether something accepts connections on the socket (a connect, nothing sent). */
export function answers(socket: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const conn = process.getBuiltinModule('node:net').connect({ path: socket });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      conn.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    conn.once('connect', () => done(true));
    conn.once('error', () => done(false));
  });
}

export type Found =
  /** A service of ours answers on this socket. */
  | { socket: string }
  /** None answers (none yet, or a stale socket, now removed): `start()` one for the next command. */
  | { files: ServiceFiles };

/**
 * The local service for `dbPath`, or what to start; undefined when none may be used (not wanted,
 * the directory is not safely ours, the database does not exist yet).
 */
export async function findService(dbPath: string, env: NodeJS.ProcessEnv = process.env): Promise<Found | undefined> {
  if (!serviceWanted(env)) return undefined;
  const files = serviceFiles(dbPath, env);
  if (!files || !ownDir(files.dir)) return undefined;
  const socket = ourSocket(files.socket);
  if (!socket) {
    // Something else by that name (not a socket, not ours): leave it, and start nothing.
    if (exists(files.socket)) return undefined;
    return { files };
  }
  if (await answers(files.socket)) return { socket: files.socket };
  // Stale: the service was killed. Remove its socket, unless a new one took the name meanwhile.
  if (ourSocket(files.socket)?.ino === socket.ino) removeFile(files.socket);
  return { files };
}

/**
 * What the started process runs first: a shell that waits until the command starting it has
 * exited (it holds the write end of the shell's stdin: EOF once its process is gone, however it
 * ends; bin/chatflow.js ends without Node's teardown, which would close it first), then becomes
 * the service. Node's start-up and the service's loading (some 100 ms of processor) would
 * otherwise run beside that command's last milliseconds: its exit took 5 ms longer on a busy
 * two-core machine, 25 ms where system calls are slow.
 */
const AFTER_EXIT = 'read line; exec "$0" "$@" </dev/null';

/**
 * Starts the service for `dbPath` in the background once this process has exited, unless another
 * command is starting it (then nothing: this command runs in-process). Never throws: the service
 * is only an optimisation.
 */
export function startService(files: ServiceFiles, dbPath: string, env: NodeJS.ProcessEnv = process.env): boolean {
  // Found none when it began, this command may end after a service came up meanwhile (the one an
  // earlier command started once it exited): a second would only take its socket over.
  if (ourSocket(files.socket)) return false;
  if (!claimStart(files.start)) return false;
  try {
    const main = process.getBuiltinModule('node:url').fileURLToPath(new URL('./local-service-main.js', import.meta.url));
    const child = process.getBuiltinModule('node:child_process').spawn('/bin/sh', ['-c', AFTER_EXIT, process.execPath, main, dbPath, files.socket, files.start], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env,
      cwd: files.dir,
    });
    child.on('error', () => removeFile(files.start));
    // Held, unwritten, until this process exits; it keeps nothing waiting here.
    const held = child.stdin as Socket;
    held.on('error', () => undefined);
    held.unref();
    child.unref();
    return true;
  } catch {
    removeFile(files.start);
    return false;
  }
}

/** O_EXCL on the start file; a stale one (its starter died) is taken over once. */
function claimStart(path: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      const fresh = freshStart(path);
      if (fresh === undefined) continue;
      if (fresh) return false;
      removeFile(path);
    }
  }
  return false;
}

/** Whether a start file is younger than START_STALE_MS (older: a dead starter's); undefined when there is none. */
function freshStart(path: string): boolean | undefined {
  try {
    return Date.now() - statSync(path).mtimeMs < START_STALE_MS;
  } catch {
    return undefined;
  }
}

/**
 * Waits, at most `waitMs`, while any of these start files says a service is starting: made by a
 * command that has exited (the service runs only after it, see startService) and holding only
 * that command's pid, not yet stale. A start that failed writes its reason there, and is not
 * waited for.
 */
export async function startsSettled(starts: readonly string[], waitMs = 5000): Promise<void> {
  const starting = (path: string) => {
    try {
      return freshStart(path) === true && /^\d+$/.test(readFileSync(path, 'utf8'));
    } catch {
      return false;
    }
  };
  for (const until = Date.now() + waitMs; starts.some(starting) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
}

/** The start files in the directory of this user's services (see startsSettled). */
export function startFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = serviceDir(env);
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.start')).map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/**
 * Removes what gone services left in the directory: a name a service was taking (`.sock.<pid>`,
 * `.json.<pid>`: it died before the rename) and start files, once their process is no longer
 * there (a start file names its starter, or the service that could not start, with the reason).
 */
export function sweep(env: NodeJS.ProcessEnv = process.env): void {
  const dir = serviceDir(env);
  if (!ownDir(dir)) return;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    const aside = /\.(?:sock|json)\.(\d+)$/.exec(name);
    let pid: number | undefined;
    if (aside) pid = Number(aside[1]);
    else if (name.endsWith('.start')) {
      try {
        pid = Number(/^\d+/.exec(readFileSync(file, 'utf8'))?.[0] ?? 0);
      } catch {
        continue;
      }
    } else continue;
    if (!pid || !alive(pid)) removeFile(file);
  }
}

/** The running services of this user (any version or database), with their files. */
export async function listServices(env: NodeJS.ProcessEnv = process.env): Promise<(ServiceInfo & { socket: string; running: boolean })[]> {
  const dir = serviceDir(env);
  if (!ownDir(dir)) return [];
  const found = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const info = readInfo(join(dir, name));
    const socket = join(dir, name.replace(/\.json$/, '.sock'));
    if (!info) continue;
    const running = ourSocket(socket) !== undefined && (await answers(socket));
    found.push({ ...info, socket, running });
  }
  return found;
}

/**
 * Before this process opens the database at `dbPath` itself: a local service may still hold the
 * file that was at that path (removed or renamed over since), its journal beside the path, where
 * SQLite would apply it to the file there now. That service is told to stop (it lets its file go
 * without a close, removing its journal: local-service-main.ts) and waited for; the journal of one
 * that is gone already (killed) is removed here, if it is still the one it held.
 */
export async function settleFile(dbPath: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (process.platform === 'win32') return;
  const dir = serviceDir(env);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return;
  }
  if (names.length === 0 || !ownDir(dir)) return;
  const path = realPath(dbPath);
  const identity = identityAt(dbPath);
  for (const name of names) {
    const info = readInfo(join(dir, name));
    if (!info?.file || info.file.path !== path || info.file.identity === identity) continue;
    const socket = join(dir, name.replace(/\.json$/, '.sock'));
    // (Signalled only while its socket answers: a dead service's pid may be another process's now.)
    if (ourSocket(socket) && (await answers(socket))) {
      // It looks at its file itself (by the file it holds): one no longer at the path, it lets go
      // of with its journal; else it stops as when idle.
      try {
        process.kill(info.pid, 'SIGTERM');
      } catch {
        // gone meanwhile
      }
      for (const until = Date.now() + 5000; alive(info.pid) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10));
      continue;
    }
    // Killed while it held the file now gone: its journal is that file's.
    dropJournal(path, info.file.journal);
    removeFile(join(dir, name));
    removeFile(socket);
  }
}

/** The real path of a file, or of the one that would be made there (its directory's real path). */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return path;
    }
  }
}

function readInfo(path: string): ServiceInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as ServiceInfo;
    return typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stops a service: its socket goes (no command finds it any more; the service sees it gone and
 * exits once its requests are answered), and it is told to exit now. Answers once it has exited.
 */
export async function stopService(service: { socket: string; pid: number; running: boolean }, waitMs = 5000): Promise<boolean> {
  removeFile(service.socket);
  removeFile(service.socket.replace(/\.sock$/, '.json'));
  // (The pid is signalled only while its socket answered: a dead service's pid may be reused.)
  if (!service.running) return true;
  try {
    process.kill(service.pid, 'SIGTERM');
  } catch {
    return true;
  }
  for (const until = Date.now() + waitMs; Date.now() < until; ) {
    if (!alive(service.pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(service.pid);
}

/** Whether the process runs (an exited one its parent has not reaped yet, a zombie, does not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // (A service's parent is whoever adopted it: reaping may take that one a while.)
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (macOS)
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}
