// Files the CLI writes are the user's alone, whatever the umask (000 makes 0666 files and 0777
// directories of Node's defaults): the config file (keys), exports (messages), chatflow files.
// And a config another user can change is never read (as ssh refuses such a key file).
import { chmodSync, closeSync, mkdirSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync, type WriteStream } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * `dir` made 0700 if missing (and every directory above it made here: 0700 too, never what the
 * umask leaves of 0777); `chmod`: the directory is chatflow's own, made 0700 if it was looser.
 */
export function makePrivateDir(dir: string, chmod = false): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (chmod && process.platform !== 'win32') chmodSync(dir, 0o700);
}

/**
 * A new file at `path`, 0600: created exclusively (O_EXCL: never through a link or a file someone
 * put there), a stale one of ours (a partial file of a killed run with this pid) replaced.
 */
async function createExclusive(path: string) {
  try {
    return await open(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    await unlink(path);
    return open(path, 'wx', 0o600);
  }
}

/** `path`'s partial file, renamed into place once complete: a file already at `path` is replaced by a new one, 0600. */
export const partialOf = (path: string) => `${path}.partial-${process.pid}`;

/** Writes `text` to `path` whole (0600; the file there replaced once written). */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const partial = partialOf(path);
  const handle = await createExclusive(partial);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  await rename(partial, path);
}

/** writePrivateFile, synchronous (the caches a completion or a command writes on its way). */
export function writePrivateFileSync(path: string, text: string): void {
  const partial = partialOf(path);
  let fd: number;
  try {
    fd = openSync(partial, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    unlinkSync(partial);
    fd = openSync(partial, 'wx', 0o600);
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, path);
}

/** A stream to a new file at `partial` (0600, created exclusively), renamed into place by the caller. */
export async function privateStream(partial: string, highWaterMark: number): Promise<WriteStream> {
  return (await createExclusive(partial)).createWriteStream({ highWaterMark });
}

/**
 * Why another user could change `file` (a config file): it, or a directory above it up to the
 * home (or up to / where it is not below the home; its real path's too, where links lead
 * elsewhere), is writable by group or others (a sticky directory, as /tmp, excepted: no one can
 * rename another's entries there) or belongs to another user than this one or root. Undefined:
 * no one else can, or there is no such file (`toWrite`: the directories that exist above it are
 * checked, where it is to be made).
 */
export function othersMayChange(file: string, home: string, toWrite = false): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // (Windows: a profile's files are its user's by their ACL)
  let first = resolve(file);
  let real: string;
  for (;;) {
    try {
      real = realpathSync(first);
      break;
    } catch {
      if (!toWrite || dirname(first) === first) return undefined;
      first = dirname(first);
    }
  }
  const homes = new Set([resolve(home)]);
  try {
    homes.add(realpathSync(home));
  } catch {
    // no such home: the walk goes up to /
  }
  const seen = new Set<string>();
  for (const start of [first, real]) {
    for (let path = start; !seen.has(path); path = dirname(path)) {
      seen.add(path);
      const st = statSync(path);
      const what = st.isDirectory() ? 'directory' : 'config file';
      if (st.uid !== uid && st.uid !== 0) {
        return `${what} ${path} belongs to another user (uid ${st.uid}), who could change where chatflow connects: move it away, or set CHATFLOW_CONFIG_DIR to a directory of yours`;
      }
      if ((st.mode & 0o022) !== 0 && !(st.isDirectory() && (st.mode & 0o1000) !== 0)) {
        return `${what} ${path} is writable by other users, who could change where chatflow connects: run chmod go-w ${path}`;
      }
      if (homes.has(path)) break;
    }
  }
  return undefined;
}
