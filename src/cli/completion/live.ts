// Live values of completion (ids from the server the words point to) and saved profile names:
// from the cache when fresh, else asked with a short timeout and no retries, before a deadline.
import { rmSync } from 'node:fs';
import type { ChatflowClient } from '../../client/index.js';
import { configPath, listProfiles } from '../base/config.js';
import { openSession, resolveConnection, type Session } from '../core/connection.js';
import type { Candidate, LiveKind } from '../base/values.js';
import { CACHE_TTL_MS, cacheFile, mtimeOf, readCache, serverKey, writeCache } from './cache.js';
import { REFRESH_DEADLINE_MS, startRefresher, waitForCache } from './refresher.js';
import type { ConnectionFlags } from '../core/walk.js';

export { CACHE_TTL_MS };

/**
 * Each record's id (described by its name) and, offered when no id starts with what was typed,
 * its name (described by its id): every command taking an id takes a name (../base/names.ts), so a
 * name's first letters + TAB complete it. A name several records share is left out (it would be
 * refused: give the id).
 */
function idsAndNames<T>(records: T[], id: (r: T) => string, name: (r: T) => string | undefined): Candidate[] {
  const count = new Map<string, number>();
  for (const r of records) {
    const n = name(r);
    if (n) count.set(n, (count.get(n) ?? 0) + 1);
  }
  const out: Candidate[] = [];
  for (const r of records) {
    const n = name(r);
    out.push({ value: id(r), description: n && n !== id(r) ? n : undefined });
    if (n && n !== id(r) && count.get(n) === 1) out.push({ value: n, description: id(r), fallback: true });
  }
  return out;
}

/** How many chats completion offers: the newest (one page). */
const CHATS = 50;

const LIVE: Record<LiveKind, (client: ChatflowClient, scope?: string) => Promise<Candidate[]>> = {
  chatflows: async (c) => idsAndNames(await c.chatflows.list(), (f) => f.id, (f) => f.name),
  variables: async (c) => idsAndNames((await c.variables.list()).items, (v) => v.id, (v) => v.name),
  assistants: async (c) => idsAndNames((await c.assistants.list()).items, (a) => a.id, (a) => (typeof a.details?.name === 'string' ? a.details.name : undefined)),
  // Ids only (--credential takes no name), each described by its name and kind.
  credentials: async (c) => (await c.credentials.list()).map((k) => ({ value: k.id, description: `${k.name} (${k.credentialName})` })),
  'upsert-history': async (c) =>
    (await c.upsertHistory.list(undefined)).items.map((h) => ({ value: h.id, description: `${h.chatflowid} ${h.date}` })),
  chats: async (c, flow) =>
    (await c.chats.list(flow!, {}, { limit: CHATS })).items.map((x) => ({ value: x.chatId, description: x.firstQuestion?.replace(/\s+/g, ' ').slice(0, 60) || undefined })),
};

/** Saved profile names (current first is not promised), with their URLs. */
export async function savedProfiles(): Promise<Candidate[]> {
  try {
    return (await listProfiles()).map((p) => ({ value: p.name, description: [p.current ? 'current' : '', p.url ?? ''].filter(Boolean).join(', ') || undefined }));
  } catch {
    return [];
  }
}

/** The request timeout for live values. */
const LIVE_TIMEOUT_MS = 1000;
/**
 * Whatever happens, the answer is given this long after the process started (conf and undici
 * load within it on a cache miss); what is not there by then is not answered.
 */
const DEADLINE_MS = 1500;

/**
 * CHATFLOW_COMPLETE_DEADLINE_MS raises (or lowers) that budget, for a slow machine or server;
 * the request timeout follows it (deadline - 500 ms).
 */
function deadlineMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.CHATFLOW_COMPLETE_DEADLINE_MS);
  return Number.isFinite(n) && n >= 600 ? n : DEADLINE_MS;
}

/** How a live list is fetched on a cache miss. */
export interface LiveControl {
  /** This process is the refresher: skip the cache, take the time the embedded service needs. */
  refresh?: boolean;
  /**
   * Starts a detached `chatflow __complete --refresh -- <words>`: used when the embedded service
   * would have to start, which takes longer than the deadline on a slow machine. The refresher
   * fills the cache (this process waits for it until the deadline); the next TAB finds it there.
   */
  spawnRefresh?: () => void;
}

interface Fetched {
  items: Candidate[];
  config?: string;
  /** Already in the cache (written by the refresher). */
  cached?: boolean;
}

async function fetchLive(kind: LiveKind, conn: ConnectionFlags, timeoutMs: number, ctl: LiveControl, cache: { file: string; key: string; until: number }, scope?: string): Promise<Fetched> {
  let session: Session | undefined;
  try {
    const c = await resolveConnection({ flagUrl: conn.url, flagApiKey: conn.apiKey, flagProfile: conn.profile });
    const config = c.source === 'profile' || c.source === 'embedded' ? await configPath() : undefined;
    if (!c.url && !ctl.refresh && ctl.spawnRefresh) {
      startRefresher(cache.file, ctl.spawnRefresh);
      return { items: await waitForCache(cache.file, cache.key, cache.until), cached: true };
    }
    // The commands' client; for a server without retries, so a refused connection answers at once.
    session = await openSession(c, { timeoutMs, ...(c.url ? { retries: 0 } : {}) });
    return { items: await LIVE[kind](session.client, scope), config };
  } finally {
    await session?.close().catch(() => undefined);
  }
}

/**
 * Live values from the server the words point to: the cached list when younger than
 * CACHE_TTL_MS, else a request with a one-second timeout and no retries (the embedded service
 * through a refresher, see LiveControl). Never throws: no server, a timeout, an error answer or
 * the deadline give an empty list (not cached).
 */
export async function liveValues(kind: LiveKind, conn: ConnectionFlags, ctl: LiveControl = {}, env: NodeJS.ProcessEnv = process.env, scope?: string): Promise<Candidate[]> {
  let key: string;
  let viaConfig: boolean;
  try {
    ({ key, viaConfig } = serverKey(conn, env));
    if (scope !== undefined) key = `${key}\n${scope}`;
  } catch {
    return []; // an invalid URL
  }
  const file = cacheFile(key, kind, env);
  if (!ctl.refresh) {
    const cached = readCache(file, key, Date.now());
    if (cached) return cached;
  }

  const budget = deadlineMs(env);
  const until = ctl.refresh ? Math.max(REFRESH_DEADLINE_MS, budget) : budget;
  const remaining = until - performance.now();
  if (remaining <= 50) return [];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, remaining, undefined);
  });
  const timeoutMs = Math.max(100, Math.round(Math.min(budget - (DEADLINE_MS - LIVE_TIMEOUT_MS), remaining)));
  const fetched = fetchLive(kind, conn, timeoutMs, ctl, { file, key, until }, scope);
  try {
    const result = await Promise.race([fetched.catch(() => undefined), deadline]);
    if (!result) return [];
    if (!result.cached) {
      const config = viaConfig && result.config ? { path: result.config, mtimeMs: mtimeOf(result.config) } : undefined;
      writeCache(file, { v: 1, key, at: Date.now(), ...(config ? { config } : {}), items: result.items });
    }
    return result.items;
  } finally {
    clearTimeout(timer);
    if (ctl.refresh) rmSync(`${file}.lock`, { force: true });
  }
}

