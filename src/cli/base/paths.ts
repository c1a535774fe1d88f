// Paths given to a command, checked before any work: a file to read must be one, and a file to
// write must be able to appear (its directory exists; it is not itself a directory). An export
// that ran for an hour must not fail at the rename.
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from './errors.js';

export type PathUse = 'read' | 'write';

const stats = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

const allowed = (path: string, mode: number): boolean => {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
};

/** Throws a one-line usage error (exit 2) when `path` cannot be used so; `-` is stdin or stdout. */
export function checkPath(path: string, use: PathUse, flag: string): void {
  if (path === '-') return;
  const what = flag.startsWith('-') ? `${flag} ${path}` : path;
  const st = stats(path);
  if (use === 'read') {
    if (!st) throw new UsageError(`cannot read ${what}: no such file`);
    if (st.isDirectory()) throw new UsageError(`cannot read ${what}: it is a directory; give a file`);
    if (!allowed(path, constants.R_OK)) throw new UsageError(`cannot read ${what}: permission denied`);
    return;
  }
  if (st?.isDirectory()) throw new UsageError(`cannot write ${what}: it is a directory; give a file path, e.g. ${flag.startsWith('-') ? `${flag} ` : ''}${path.replace(/\/+$/, '')}/export.jsonl`);
  if (st && !allowed(path, constants.W_OK)) throw new UsageError(`cannot write ${what}: permission denied`);
  const dir = dirname(resolve(path));
  const parent = stats(dir);
  if (!parent?.isDirectory()) throw new UsageError(`cannot write ${what}: no directory ${dir}`);
  if (!allowed(dir, constants.W_OK)) throw new UsageError(`cannot write ${what}: the directory ${dir} is not writable`);
}
