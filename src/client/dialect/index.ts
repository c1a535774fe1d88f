import { OPENAPI_PATH, routePath } from '../../schema/paths.js';
// Which server the client talks to, learnt once per server URL: its kind and, for Flowise, its
// version (what each version honours differs: docs/spec/flowise-versions.md); and its dialect.
import type { HttpCore } from '../core.js';
import { chatflowDialect } from './chatflow.js';
import { flowiseDialect } from './flowise.js';
import type { Dialect, ServerKind } from './types.js';

export type { Dialect, ListPlan, MessageDeleteTranslation, ServerKind } from './types.js';

/** A server as the client knows it: its kind, and the version it reports (Flowise's `GET /version`). */
export interface ServerInfo {
  kind: ServerKind;
  version?: string;
}

/** Where what is learnt of each server (by API URL) is remembered between clients, or processes. */
export interface ServerKindCache {
  get(apiUrl: string): ServerInfo | undefined;
  set(apiUrl: string, info: ServerInfo): void;
}

/** The default: remembered for the life of the process. */
const memory = new Map<string, ServerInfo>();
export const processCache: ServerKindCache = { get: (url) => memory.get(url), set: (url, info) => void memory.set(url, info) };

/** Unknown: the Flowise dialect of the newest version, the one that trusts the server least. */
export const dialectOf = (info: ServerInfo | undefined): Dialect => (info?.kind === 'chatflow' ? chatflowDialect : flowiseDialect(info?.version));

/**
 * Our service answers `GET /openapi.json` with its OpenAPI document; Flowise with its UI page, and
 * another server with a 404: both are `flowise`, the dialect that trusts the server least, whose
 * version is then asked (`GET /version`, open without a key on Flowise). Anything else (401, 5xx)
 * tells nothing: undefined, and nothing remembered.
 */
async function probe(core: HttpCore): Promise<ServerInfo | undefined> {
  const res = await core.raw('GET', OPENAPI_PATH);
  if (res.status === 200 && typeof (res.body as { openapi?: unknown } | undefined)?.openapi === 'string') return { kind: 'chatflow' };
  if (res.status !== 200 && res.status !== 404) return undefined;
  const v = await core.raw('GET', routePath('version')).catch(() => undefined);
  const version = (v?.body as { version?: unknown } | undefined)?.version;
  return { kind: 'flowise', ...(v?.status === 200 && typeof version === 'string' ? { version } : {}) };
}

/**
 * The server, asked once: `known` when the caller knows its kind (the CLI's embedded service);
 * else the cache; else a probe, remembered. `fresh` skips the cache (a delete does not trust a
 * remembered answer: the URL may point at another server by now).
 */
export function serverKind(core: HttpCore, known: ServerKind | undefined, cache: ServerKindCache) {
  let asked: Promise<ServerInfo | undefined> | undefined;
  let checked: Promise<ServerInfo | undefined> | undefined;
  const ask = async (): Promise<ServerInfo | undefined> => {
    const info = await probe(core);
    if (info) cache.set(core.apiUrl, info);
    return info;
  };
  return (opts: { fresh?: boolean } = {}): Promise<ServerInfo | undefined> => {
    if (known) return Promise.resolve({ kind: known });
    if (opts.fresh) return (checked ??= ask());
    const cached = cache.get(core.apiUrl);
    if (cached) return Promise.resolve(cached);
    return (asked ??= checked ?? ask());
  };
}
