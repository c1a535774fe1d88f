// The SQLite file itself, as the operating system sees it: made private, never opened beside a
// journal of another file, refused under several names, and watched by whoever holds it open.
//
// SQLite keeps a WAL database's last commits in `<path>-wal` (indexed by `<path>-shm`), found by
// the database's name and checked against nothing of the file: a journal left by a file removed,
// renamed over or restored with cp is applied to whatever file is at that path next, and corrupts
// it. A connection's close deletes those two files by name too, whatever file they now belong to.
import { closeSync, copyFileSync, existsSync, fchmodSync, fstatSync, linkSync, mkdirSync, openSync, readSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

/** A file by what it is, not by its name: device and inode (and its birth, as inodes are reused at once). */
export const identityOf = (st: Stats): string => `${st.dev}:${st.ino}:${st.birthtimeMs}`;

/** The identity of the file at `path`, undefined when there is none. */
export function identityAt(path: string): string | undefined {
  try {
    return identityOf(statSync(path));
  } catch {
    return undefined;
  }
}

/** The journal's two files beside a database. */
export const journalOf = (path: string) => ({ wal: `${path}-wal`, shm: `${path}-shm` });

/**
 * Makes the file at `path` when there is none: its directory 0700 and the file 0600 (the data are
 * the user's alone, whatever the umask or the template's mode; SQLite gives its journal the
 * file's mode), a copy of `template` when given, put in place only if no file is there (a link
 * fails when another process made one meanwhile). A journal found beside no file is another
 * file's (removed, renamed away) and is removed first. True when this call made the file from the
 * template; an empty file (SQLite sets it up) without one.
 */
export function prepareFile(path: string, template?: string): boolean {
  // (Checked first: a recursive mkdir under some virtual file systems, e.g. /proc, never returns.)
  if (!existsSync(dirname(path))) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (existsSync(path)) return false;
  const copy = `${path}.${process.pid}.new`;
  try {
    if (template) {
      try {
        copyFileSync(template, copy);
      } catch {
        template = undefined; // none: an empty file, which SQLite sets up
      }
    }
    const fd = openSync(copy, template ? 'r+' : 'w', 0o600);
    fchmodSync(fd, 0o600);
    closeSync(fd);
    // (Right before the link: the window in which a file made by another process could lose its journal is that narrow.)
    if (!existsSync(path)) for (const file of Object.values(journalOf(path))) removeFile(file);
    linkSync(copy, path);
    return template !== undefined;
  } catch {
    return false; // another process made the file first (opened as it is), or none can be made here (SQLite says why)
  } finally {
    removeFile(copy);
  }
}

/**
 * Refuses a file with several names (hard links): SQLite keeps a journal beside each name, so
 * writes through one are lost to, or overwritten by, the other. (A file just made by prepareFile
 * has two names for a moment, longer on a busy machine: asked again for up to a second.)
 */
export async function checkOneName(path: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    let links: number;
    try {
      links = statSync(path).nlink;
    } catch {
      return; // none yet: SQLite makes it
    }
    if (links <= 1) return;
    if (attempt === 50) {
      throw new Error(`the file has ${links} names (hard links), and SQLite keeps its journal beside each name: writes through one would be lost to the other; remove the other names (cp makes a copy)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Why a held database file is no longer the one at its path, or no longer the same data. */
export type Gone =
  /** No name left (rm, or renamed over). */
  | 'removed'
  /** Another file at its path (mv, or removed and made again). */
  | 'replaced'
  /** Its content written by someone else (cp of a backup onto it): not by a checkpoint. */
  | 'restored'
  /** A second name (ln): its journal beside this name stays its own. */
  | 'linked';

/** The journal's files' identities, and how to tell a file held open from the one at its path. */
export interface HeldFile {
  /** The identity of the file held, and of its -wal and -shm when it was taken. */
  identity: string;
  journal: { wal?: string; shm?: string };
  /** Why the file is no longer this process's to write, or undefined while it still is. */
  gone(): Gone | undefined;
}

/**
 * Holds the database at `path` (opened by the store just before) open, and tells when it is gone
 * from its path, another file took its place, it got a second name, or its content was written
 * by anyone but a checkpoint. A checkpoint is the only writer of a WAL database's file, and it
 * marks the -shm first (nBackfillAttempted, then nBackfill; a restart of the WAL changes its
 * salts): a file whose size, time of change or header changed since the last look while those did
 * not was written
 * from outside, even with the bytes it had (a backup copied right after a checkpoint is byte for
 * byte the file, and restoring it means the commits since are not wanted). A chmod is no change;
 * a `touch` is taken for one.
 */
export function holdFile(path: string): HeldFile {
  const fd = openSync(path, 'r');
  const { wal, shm } = journalOf(path);
  // (Never closed: a process's close of any descriptor of a file drops SQLite's locks on it.)
  const shmFd = tryOpen(shm);
  const st = fstatSync(fd);
  let size = st.size;
  let mtime = st.mtimeMs;
  let header = readAt(fd, 0, 100);
  let marks = shmFd === undefined ? undefined : checkpointMarks(shmFd);
  return {
    identity: identityOf(st),
    journal: { wal: identityAt(wal), shm: shmFd === undefined ? undefined : identityOf(fstatSync(shmFd)) },
    gone() {
      let now: Stats;
      try {
        now = fstatSync(fd);
      } catch {
        return 'removed';
      }
      if (now.nlink === 0) return 'removed';
      // (Device and inode: the number of a file held open is not reused; a birth time, where the
      // system has none, may be the time of the last chmod.)
      const there = statSync(path, { throwIfNoEntry: false });
      if (!there || there.dev !== now.dev || there.ino !== now.ino) return 'replaced';
      if (now.nlink > 1) return 'linked';
      const after = shmFd === undefined ? undefined : checkpointMarks(shmFd);
      if (now.size === size && now.mtimeMs === mtime && readAt(fd, 0, 100).equals(header)) {
        // (The marks change with writes too: a WAL restarted by a commit takes new salts.)
        marks = after;
        return undefined;
      }
      if (marks !== undefined && after !== undefined && !checkpointed(marks, after)) return 'restored';
      // A checkpoint wrote it: the new state is the reference from now on.
      size = now.size;
      mtime = now.mtimeMs;
      header = readAt(fd, 0, 100);
      marks = after;
      return undefined;
    },
  };
}

/** What the -shm says of the WAL: its salts (new at each restart), last frame, and checkpoints. */
interface Marks {
  salts: string;
  mxFrame: number;
  nBackfill: number;
  nBackfillAttempted: number;
}

function checkpointMarks(shmFd: number): Marks | undefined {
  const bytes = readAt(shmFd, 0, 136);
  if (bytes.length < 136) return undefined;
  // (In the machine's byte order: the -shm is memory shared between processes of one machine.)
  const words = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + 136));
  return { salts: `${words[8]}:${words[9]}`, mxFrame: words[4]!, nBackfill: words[24]!, nBackfillAttempted: words[32]! };
}

/**
 * Whether a checkpoint ran between two looks at the -shm: in one WAL, its counts moved; across a
 * restart (new salts; it follows a checkpoint of every frame), the old WAL had frames left to copy
 * or the new one was checkpointed. A restart of a WAL whose frames were all in the file already
 * (a new WAL after the last connection closed) wrote nothing to the file.
 */
function checkpointed(before: Marks, after: Marks): boolean {
  if (before.salts === after.salts) return after.nBackfill !== before.nBackfill || after.nBackfillAttempted !== before.nBackfillAttempted;
  return before.nBackfill < before.mxFrame || after.nBackfill > 0 || after.nBackfillAttempted > 0;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

function tryOpen(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch {
    return undefined;
  }
}

/**
 * Removes the journal a file no longer at `path` left there, but only files that are still those
 * it held (a new file's journal, made meanwhile, is left alone).
 */
export function dropJournal(path: string, journal: HeldFile['journal']): void {
  const files = journalOf(path);
  for (const kind of ['wal', 'shm'] as const) {
    if (journal[kind] !== undefined && identityAt(files[kind]) === journal[kind]) removeFile(files[kind]);
  }
}

function removeFile(path: string): void {
  // (unlinkSync, not rmSync: a first rmSync loads Node's recursive remover, 0.4 ms.)
  try {
    unlinkSync(path);
  } catch {
    // none
  }
}
