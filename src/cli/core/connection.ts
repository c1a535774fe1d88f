// The one place a client is made. Where it points: flag > env (CHATFLOW_URL, CHATFLOW_API_KEY,
// CHATFLOW_PROFILE) > profile (the named one, else the current one) > the embedded service on the
// local SQLite database, started here when no URL is configured.
import type { ChatflowClient } from '../../client/index.js';
import { DEFAULT_PROFILE, loadConfig, validateUrl } from '../base/config.js';
import { UsageError } from '../base/errors.js';
import { apiKeyFromFile } from '../base/keys.js';

export type Source = 'flag' | 'env' | 'profile' | 'embedded';

export interface Connection {
  url?: string;
  apiKey?: string;
  profile: string;
  /** Where the URL came from; 'embedded' = no URL: use the embedded service. */
  source: Source;
  /** Where the key came from (same precedence; a profile key only goes to that profile's URL). */
  apiKeySource: Source;
}

/**
 * Server URL and key: flag > env (CHATFLOW_URL, CHATFLOW_API_KEY, CHATFLOW_PROFILE) > profile
 * (the named one, else the current one) > embedded (no URL). A named profile must exist.
 */
export async function resolveConnection(
  flags: { flagUrl?: string; flagApiKey?: string; flagApiKeyFile?: string; flagProfile?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Connection> {
  const named = flags.flagProfile || env.CHATFLOW_PROFILE || undefined;
  let url: string | undefined;
  let source: Source = 'embedded';
  if (flags.flagUrl) {
    url = validateUrl(flags.flagUrl);
    source = 'flag';
  } else if (env.CHATFLOW_URL) {
    url = validateUrl(env.CHATFLOW_URL);
    source = 'env';
  }
  let apiKey: string | undefined;
  let apiKeySource: Source = 'embedded';
  if (flags.flagApiKey) {
    apiKey = flags.flagApiKey;
    apiKeySource = 'flag';
  } else if (flags.flagApiKeyFile) {
    apiKey = await apiKeyFromFile(flags.flagApiKeyFile);
    apiKeySource = 'flag';
  } else if (env.CHATFLOW_API_KEY) {
    apiKey = env.CHATFLOW_API_KEY;
    apiKeySource = 'env';
  }
  if (url && apiKey && !named) return { url, apiKey, profile: DEFAULT_PROFILE, source, apiKeySource };

  const cfg = await loadConfig();
  const profile = named ?? cfg.currentProfile;
  const p = cfg.profiles[profile];
  if (named && !p) {
    const known = Object.keys(cfg.profiles);
    const from = flags.flagProfile ? '--profile' : 'CHATFLOW_PROFILE';
    throw new UsageError(`unknown profile "${named}" (${from})${known.length ? `; known: ${known.join(', ')}` : ''}`);
  }
  if (!url && p?.url) {
    url = p.url;
    source = 'profile';
  }
  // A profile's key belongs to the profile's server: it is never sent to a URL given elsewhere.
  if (!apiKey && p?.apiKey && (source === 'profile' || url === p.url)) {
    apiKey = p.apiKey;
    apiKeySource = 'profile';
  }
  const conn: Connection = { profile, source, apiKeySource };
  if (url) conn.url = url;
  if (apiKey) conn.apiKey = apiKey;
  return conn;
}

/** Where a client goes: a URL (and key), or nothing: the embedded service. */
export interface Target {
  url?: string;
  apiKey?: string;
}

export interface ClientOptions {
  timeoutMs: number;
  /** `--debug` lines. */
  trace?: (line: string) => void;
  /** Warnings (the embedded database open to other users). */
  warn?: (message: string) => void;
  /** Retries of idempotent requests (the client's default when not given). */
  retries?: number;
}

/** A client and what it holds open; `close()` releases both. */
export interface Session {
  client: ChatflowClient;
  /** The server root, or `embedded`. */
  where: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** The server root the client names an in-process service by (in `--debug` lines and messages). */
const EMBEDDED_ORIGIN = 'http://embedded';

/** A client for `target`: the server at its URL, else the embedded service, started here. */
export async function openSession(target: Target, opts: ClientOptions): Promise<Session> {
  const { createClient } = await import('../../client/index.js');
  const base = { timeoutMs: opts.timeoutMs, onDebug: opts.trace, ...(opts.retries !== undefined ? { retries: opts.retries } : {}) };
  if (target.url) {
    const { fileServerCache } = await import('../base/server-cache.js');
    const client = createClient({ baseUrl: target.url, apiKey: target.apiKey, ...base, serverCache: fileServerCache() });
    return { client, where: target.url, embedded: false, close: () => client.close() };
  }
  const { exposedDatabase, startEmbedded } = await import('./embedded.js');
  const embedded = await startEmbedded();
  const exposed = exposedDatabase(embedded.dbPath);
  if (exposed) opts.warn?.(exposed);
  opts.trace?.(`embedded service in this process (database ${embedded.dbPath})`);
  const client = createClient({ baseUrl: EMBEDDED_ORIGIN, request: embedded.request, ...base, batch: embedded.batch, server: 'chatflow' });
  return {
    client,
    where: 'embedded',
    embedded: true,
    async close() {
      await client.close();
      await embedded.close();
    },
  };
}

/** `--timeout <seconds>` in milliseconds (30 s when not given). */
export function timeoutMs(flag: string | undefined): number {
  const raw = flag ?? '30';
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`invalid --timeout "${raw}": give seconds, e.g. 30`);
  return Math.round(seconds * 1000);
}
