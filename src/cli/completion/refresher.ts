// The refresher: a detached `chatflow __complete --refresh -- <words>` that fills the cache when
// the answer needs the embedded service, which takes longer to start than TAB may wait.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Candidate } from '../base/values.js';
import { makePrivateDir } from '../base/private-files.js';
import { mtimeOf, readCache } from './cache.js';

/** The refresher's own limit. */
export const REFRESH_DEADLINE_MS = 20_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts the refresher unless one started less than REFRESH_DEADLINE_MS ago (its lock file). */
export function startRefresher(file: string, spawnRefresh: () => void): void {
  const lock = `${file}.lock`;
  try {
    makePrivateDir(join(file, '..'));
    const age = Date.now() - (mtimeOf(lock) ?? 0);
    if (age < REFRESH_DEADLINE_MS) return;
    writeFileSync(lock, String(process.pid), { mode: 0o600 });
    spawnRefresh();
  } catch {
    // no refresher: no ids this time
  }
}

export async function waitForCache(file: string, key: string, until: number): Promise<Candidate[]> {
  while (performance.now() < until) {
    await sleep(40);
    const items = readCache(file, key, Date.now());
    if (items) return items;
  }
  return [];
}


/** `chatflow __complete --refresh -- <words>`, detached: it outlives this process. */
export async function spawnRefresher(words: string[]): Promise<void> {
  const script = process.argv[1];
  if (!script) return;
  // Imported here: a cached answer must not pay for loading node:child_process.
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [...process.execArgv, script, '__complete', '--refresh', '--', ...words], {
    detached: true,
    stdio: 'ignore',
    env: process.env,
  });
  child.on('error', () => undefined);
  child.unref();
}
