// Which kind of server the client talks to, learnt once per server URL, and its dialect.
import type { HttpCore } from '../core.js';
import { chatflowDialect } from './chatflow.js';
import { flowiseDialect } from './flowise.js';
import type { Dialect, ServerKind } from './types.js';

export type { Dialect, ListPlan, MessageDeleteTranslation, ServerKind } from './types.js';

/** Where the kind of each server (by API URL) is remembered between clients, or processes. */
export interface ServerKindCache {
  get(apiUrl: string): ServerKind | undefined;
  set(apiUrl: string, kind: ServerKind): void;
}

/** The default: remembered for the life of the process. */
const memory = new Map<string, ServerKind>();
export const processCache: ServerKindCache = { get: (url) => memory.get(url), set: (url, kind) => void memory.set(url, kind) };

/** Unknown: the Flowise dialect, the one that trusts the server least. */
export const dialectOf = (kind: ServerKind | undefined): Dialect => (kind === 'chatflow' ? chatflowDialect : flowiseDialect);

/**
 * Our service answers `GET /openapi.json` with its OpenAPI document; Flowise with its UI page, and
 * another server with a 404: both are `flowise`, the dialect that trusts the server least.
 * Anything else (401, 5xx) tells nothing: undefined, and nothing remembered.
 */
async function probe(core: HttpCore): Promise<ServerKind | undefined> {
  const res = await core.raw('GET', '/openapi.json');
  if (res.status === 200 && typeof (res.body as { openapi?: unknown } | undefined)?.openapi === 'string') return 'chatflow';
  return res.status === 200 || res.status === 404 ? 'flowise' : undefined;
}

/**
 * The kind of server, asked once: `known` when the caller knows it (the CLI's embedded service);
 * else the cache; else a probe, remembered. `fresh` skips the cache (a delete does not trust a
 * remembered answer: the URL may point at another server by now).
 */
export function serverKind(core: HttpCore, known: ServerKind | undefined, cache: ServerKindCache) {
  let asked: Promise<ServerKind | undefined> | undefined;
  let checked: Promise<ServerKind | undefined> | undefined;
  const ask = async (): Promise<ServerKind | undefined> => {
    const kind = await probe(core);
    if (kind) cache.set(core.apiUrl, kind);
    return kind;
  };
  return (opts: { fresh?: boolean } = {}): Promise<ServerKind | undefined> => {
    if (known) return Promise.resolve(known);
    if (opts.fresh) return (checked ??= ask());
    const cached = cache.get(core.apiUrl);
    if (cached) return Promise.resolve(cached);
    return (asked ??= checked ?? ask());
  };
}
