// The SQLite file itself, as the operating system sees it: made private, and refused under several
// names. Its journal (`<path>-wal`, `<path>-shm`) is SQLite's alone: nothing here removes one, as
// another connection (another command, `serve`, an outside sqlite3) may need it; the last
// connection to close checkpoints the WAL and removes both.
import { closeSync, copyFileSync, existsSync, fchmodSync, linkSync, mkdirSync, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Makes the file at `path` when there is none: its directory 0700 and the file 0600 (the data are
 * the user's alone, whatever the umask or the template's mode; SQLite gives its journal the
 * file's mode), a copy of `template` when given, put in place only if no file is there (a link
 * fails when another process made one meanwhile). True when this call made the file from the
 * template; an empty file (SQLite sets it up) without one.
 *
 * A WAL found beside no file belongs to a database removed or renamed while a connection had it
 * open: SQLite would apply it to a new file at this path. Refused, never removed (its
 * connection, still open, may yet need it): the user moves it away.
 */
export function prepareFile(path: string, template?: string): boolean {
  // (Checked first: a recursive mkdir under some virtual file systems, e.g. /proc, never returns.)
  if (!existsSync(dirname(path))) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // (The WAL first: one that was there before the file was found missing is no new file's.)
  const orphan = existsSync(`${path}-wal`);
  if (existsSync(path)) return false;
  if (orphan) {
    throw new Error(`its journal ${path}-wal is there without it (the database was removed or moved while a program had it open): put the database back, or move ${path}-wal and ${path}-shm away`);
  }
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

function removeFile(path: string): void {
  // (unlinkSync, not rmSync: a first rmSync loads Node's recursive remover, 0.4 ms.)
  try {
    unlinkSync(path);
  } catch {
    // none
  }
}
