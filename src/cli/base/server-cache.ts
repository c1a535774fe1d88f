// The kind of each server URL (our service or Flowise) and Flowise's version, remembered for an hour in the cache
// directory, so that a command does not pay the client's probe each time. Only lists trust it: a
// delete asks the server afresh. Any failure to read or write means one more probe, nothing worse.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerInfo, ServerKindCache } from '../../client/index.js';
import { makePrivateDir, writePrivateFileSync } from './private-files.js';
import { cacheDir } from './dirs.js';

const SERVER_CACHE_TTL_MS = 3_600_000;

type Entries = Record<string, ServerInfo & { at: number }>;

export function fileServerCache(env: NodeJS.ProcessEnv = process.env): ServerKindCache {
  const file = join(cacheDir(env), 'servers.json');
  const read = (): Entries => {
    try {
      const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      return value && typeof value === 'object' ? (value as Entries) : {};
    } catch {
      return {};
    }
  };
  return {
    get(apiUrl) {
      const entry = read()[apiUrl];
      const age = entry ? Date.now() - entry.at : -1;
      if (!entry || (entry.kind !== 'chatflow' && entry.kind !== 'flowise') || age < 0 || age >= SERVER_CACHE_TTL_MS) return undefined;
      return { kind: entry.kind, ...(typeof entry.version === 'string' ? { version: entry.version } : {}) };
    },
    set(apiUrl, info) {
      try {
        const now = Date.now();
        const entries = Object.fromEntries(Object.entries(read()).filter(([, e]) => now - e.at < SERVER_CACHE_TTL_MS));
        entries[apiUrl] = { ...info, at: now };
        makePrivateDir(cacheDir(env));
        writePrivateFileSync(file, JSON.stringify(entries));
      } catch {
        // not remembered: the next command probes again
      }
    },
  };
}
