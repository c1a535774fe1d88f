// The file cache of live completion values: one JSON file per server and kind, for CACHE_TTL_MS,
// dropped when the config file it depended on changes or a command changes data.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { validateUrl } from '../base/config.js';
import { cacheDir, homeDir } from '../base/dirs.js';
import { makePrivateDir, writePrivateFileSync } from '../base/private-files.js';
import type { Candidate, LiveKind } from '../base/values.js';
import type { ConnectionFlags } from '../core/walk.js';

/** How long a cached list is used. */
export const CACHE_TTL_MS = 60_000;

export interface CacheEntry {
  v: 1;
  key: string;
  at: number;
  /** The config file the answer depended on (a profile's URL, or none: embedded), and its mtime. */
  config?: { path: string; mtimeMs: number | null };
  items: Candidate[];
}

/**
 * Which server the words and environment point to, worked out without reading the config file
 * (conf costs more than the whole cached answer): the URL from --url or CHATFLOW_URL; else the
 * profile selector, whose cache entry also records the config file's mtime.
 */
export function serverKey(conn: ConnectionFlags, env: NodeJS.ProcessEnv): { key: string; viaConfig: boolean } {
  const url = conn.url || env.CHATFLOW_URL;
  if (url) return { key: `url ${validateUrl(url)}`, viaConfig: false };
  const profile = conn.profile || env.CHATFLOW_PROFILE || '';
  // Embedded: the database follows these variables; the config directory can be moved too.
  const where = [env.CHATFLOW_CONFIG_DIR, env.XDG_CONFIG_HOME, env.CHATFLOW_DB, env.XDG_DATA_HOME, homeDir(env)].map((s) => s ?? '').join('|');
  return { key: `profile ${profile} ${where}`, viaConfig: true };
}

/** Drops every cached live list (of every server: the cache only saves a request). */
export function forgetLiveValues(env: NodeJS.ProcessEnv = process.env): void {
  const dir = cacheDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith('complete-') && name.endsWith('.json')) rmSync(join(dir, name), { force: true });
}

/**
 * 64-bit FNV-1a of the text, in hex: a file name for the key (the entry holds the key itself and is
 * checked against it), without loading node:crypto on the path where TAB waits.
 */
function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) h = ((h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

export function cacheFile(key: string, kind: LiveKind, env: NodeJS.ProcessEnv): string {
  const hash = fnv1a(`${key}\n${kind}`);
  return join(cacheDir(env), `complete-${kind}-${hash}.json`);
}

export const mtimeOf = (path: string): number | null => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
};

export function readCache(file: string, key: string, now: number): Candidate[] | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as CacheEntry;
    if (entry.v !== 1 || entry.key !== key || !Array.isArray(entry.items)) return undefined;
    if (!(now - entry.at >= 0 && now - entry.at < CACHE_TTL_MS)) return undefined;
    if (entry.config && mtimeOf(entry.config.path) !== entry.config.mtimeMs) return undefined;
    return entry.items;
  } catch {
    return undefined;
  }
}

export function writeCache(file: string, entry: CacheEntry): void {
  try {
    makePrivateDir(join(file, '..'));
    writePrivateFileSync(file, JSON.stringify(entry));
  } catch {
    // no cache: the next completion asks the server again
  }
}
