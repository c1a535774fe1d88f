// API keys kept in files, so that a key never has to be typed on a command line, where every
// local user sees it in `ps`: the client's `--api-key-file` and `serve --api-key-file`.
import { readFile, writeFile } from 'node:fs/promises';
import { UsageError } from './errors.js';
import { readStdin } from './stdin.js';

/** The keys of a file, one a line (blank lines skipped); undefined when there is no such file. */
async function keysIn(file: string, flag: string): Promise<string[] | undefined> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read ${flag} ${file}: ${code ?? (err as Error).message}`);
  }
  const keys = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  if (keys.length === 0) throw new UsageError(`${flag} ${file} is empty: put the API key on its first line`);
  return keys;
}

/** A client's key: the first line of the file. */
export async function apiKeyFromFile(file: string, flag = '--api-key-file'): Promise<string> {
  const keys = await keysIn(file, flag);
  if (!keys) throw new UsageError(`cannot read ${flag} ${file}: no such file`);
  return keys[0]!;
}

/**
 * The keys a server accepts, one a line. A file that does not exist yet is made (mode 0600) with a
 * new random key, which `generated` is given once, for the operator to see and hand out.
 */
export async function serverKeysFromFile(file: string, generated: (key: string) => void, flag = '--api-key-file'): Promise<string[]> {
  const keys = await keysIn(file, flag);
  if (keys) return keys;
  const { randomBytes } = await import('node:crypto');
  const key = randomBytes(24).toString('hex');
  try {
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Another replica made it meanwhile: its key is the one.
    if (code === 'EEXIST') return serverKeysFromFile(file, generated, flag);
    throw new UsageError(`cannot write ${flag} ${file}: ${code ?? (err as Error).message}`);
  }
  generated(key);
  return [key];
}
