// Shell completion: `chatflow __complete <words...>` answers the candidates for the last word by
// walking the command tree commander already holds (commands, aliases, options, arguments), so
// the per-shell scripts in completions/ hold no command list and a new flag completes by itself.
// Output: one candidate a line, `value` or `value\tdescription`; the line `:files` asks the
// shell to complete file names. Live ids come from the configured server with a one-second
// timeout and a 60-second cache (the embedded service, slower to start, through a detached
// refresher that fills the cache); any failure answers nothing, and nothing on stderr.
//
// Loaded only by `__complete`. Top-level imports are node built-ins and modules the command tree
// has already loaded; the client, conf and the embedded service are imported only on a cache miss.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Argument, Command, Option } from 'commander';
import type { ChatflowClient } from '../client/index.js';
import { ASSISTANT_TOOLS, ASSISTANT_TYPES, CHAT_TYPES, RATINGS, SORT_ORDERS, VARIABLE_TYPES } from '../schema/enums.js';
import { CONFIG_KEYS, configPath, listProfiles, validateUrl } from './config.js';
import { Context } from './context.js';

export interface Candidate {
  value: string;
  description?: string;
}

/** The marker line that asks the shell script for file-name completion. */
export const FILES_MARKER = ':files';

// ---------------------------------------------------------------- what each value is

type LiveKind = 'chatflows' | 'variables' | 'assistants' | 'upsert-history';
type Values =
  | { kind: 'list'; items: readonly Candidate[] }
  | { kind: 'live'; live: LiveKind }
  | { kind: 'profiles' }
  | { kind: 'files' };

const list = (values: readonly string[], describe?: (v: string) => string | undefined): Values => ({
  kind: 'list',
  items: values.map((value) => ({ value, description: describe?.(value) })),
});
const live = (kind: LiveKind): Values => ({ kind: 'live', live: kind });
const PROFILES: Values = { kind: 'profiles' };
const FILES: Values = { kind: 'files' };
const RATING = list([...RATINGS, 'up', 'down'], (v) => ({ THUMBS_UP: 'thumbs up', THUMBS_DOWN: 'thumbs down', up: 'THUMBS_UP', down: 'THUMBS_DOWN' })[v]);
const ORDER = list(SORT_ORDERS, (v) => (v === 'asc' ? 'oldest first' : 'newest first'));

/**
 * Values that the command tree does not carry as `choices`. Keys: an argument by its name
 * (`<chatflowId>`, `[chatflowId]` -> `chatflowId`), an option by its long flag, an option value by
 * its value name (`--file <path>` -> `<path>`). A key may be prefixed with the top-level command
 * (`variables id`); the prefixed entry wins. Choices set on an Option or Argument need no entry.
 */
const VALUES: Record<string, Values> = {
  // arguments
  chatflowId: live('chatflows'),
  'variables id': live('variables'),
  'variables id|name': live('variables'),
  'assistants id': live('assistants'),
  'upsert-history id': live('upsert-history'),
  'config key': list(CONFIG_KEYS),
  'config profile': PROFILES,
  'api method': list(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']),
  file: FILES,
  // options
  '--profile': PROFILES,
  '--rating': RATING,
  '--feedback-type': RATING,
  '--order': ORDER,
  '--sort-order': ORDER,
  'assistants --type': list(ASSISTANT_TYPES),
  'variables --type': list(VARIABLE_TYPES),
  '--tool': list(ASSISTANT_TOOLS),
  '--chat-type': list(CHAT_TYPES),
  '--chatflow': live('chatflows'),
  '--chatflowid': live('chatflows'),
  'stats --by': list(['day', 'hour']),
  // option values by value name
  '<path>': FILES,
  '<file>': FILES,
  '<profile|url>': PROFILES,
};

const LIVE: Record<LiveKind, (client: ChatflowClient) => Promise<Candidate[]>> = {
  chatflows: async (c) => (await c.chatflows.list()).map((f) => ({ value: f.id, description: f.name && f.name !== f.id ? f.name : undefined })),
  variables: async (c) => (await c.variables.list()).items.map((v) => ({ value: v.id, description: v.name })),
  assistants: async (c) => (await c.assistants.list()).items.map((a) => ({ value: a.id, description: a.details?.name })),
  'upsert-history': async (c) =>
    (await c.upsertHistory.list(undefined)).items.map((h) => ({ value: h.id, description: `${h.chatflowid} ${h.date}` })),
};

// ---------------------------------------------------------------- walking the words

interface ConnectionFlags {
  url?: string;
  apiKey?: string;
  profile?: string;
}

interface Walk {
  cmd: Command;
  /** Names of the commands walked, from the top: ['variables', 'delete']. */
  path: string[];
  /** Operands given to `cmd` so far. */
  operands: string[];
  /** Options given to `cmd` so far. */
  used: Set<Option>;
  /** The option whose value the next word is. */
  pending?: Option;
  /** After `help`: the words name commands. */
  help: boolean;
  /** After `--`: every word is an operand. */
  dashDash: boolean;
  conn: ConnectionFlags;
}

const takesValue = (o: Option) => o.required || o.optional;
const repeatable = (o: Option) => o.variadic || o.parseArg !== undefined;
const firstLine = (s: string | undefined) => (s ?? '').split('\n')[0]!.trim();

function findOption(cmd: Command, flag: string): Option | undefined {
  return cmd.options.find((o) => o.long === flag || o.short === flag);
}

function findCommand(cmd: Command, name: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

/** The implicit `help [command]` of a command with subcommands (unless it has its own `help`). */
const hasHelpCommand = (cmd: Command) => cmd.commands.length > 0 && !findCommand(cmd, 'help');

function setValue(w: Walk, o: Option, value: string): void {
  if (o.long === '--url') w.conn.url = value;
  else if (o.long === '--api-key') w.conn.apiKey = value;
  else if (o.long === '--profile') w.conn.profile = value;
}

function walk(program: Command, words: string[]): Walk {
  const w: Walk = { cmd: program, path: [], operands: [], used: new Set(), help: false, dashDash: false, conn: {} };
  for (const word of words) {
    if (w.pending) {
      const o = w.pending;
      w.pending = undefined;
      // commander: an optional value is the next word unless that looks like an option
      if (!(o.optional && word.startsWith('-'))) {
        setValue(w, o, word);
        continue;
      }
    }
    if (!w.dashDash && word === '--') {
      w.dashDash = true;
      continue;
    }
    if (!w.dashDash && word.startsWith('--') && word.length > 2) {
      const eq = word.indexOf('=');
      const o = findOption(w.cmd, eq > 0 ? word.slice(0, eq) : word);
      if (o) {
        w.used.add(o);
        if (eq > 0) setValue(w, o, word.slice(eq + 1));
        else if (takesValue(o)) w.pending = o;
      }
      continue;
    }
    if (!w.dashDash && word.startsWith('-') && word.length > 1) {
      // -q, -o json, -ojson, -qy
      for (let i = 1; i < word.length; i++) {
        const o = findOption(w.cmd, `-${word[i]}`);
        if (!o) break;
        w.used.add(o);
        if (takesValue(o)) {
          const rest = word.slice(i + 1);
          if (rest) setValue(w, o, rest);
          else w.pending = o;
          break;
        }
      }
      continue;
    }
    if (w.operands.length === 0 && !w.dashDash) {
      const sub = findCommand(w.cmd, word);
      if (sub) {
        w.cmd = sub;
        w.path.push(sub.name());
        w.used = new Set();
        continue;
      }
      if (!w.help && word === 'help' && hasHelpCommand(w.cmd)) {
        w.help = true;
        continue;
      }
    }
    w.operands.push(word);
  }
  return w;
}

// ---------------------------------------------------------------- candidates

function lookup(w: Walk, keys: string[]): Values | undefined {
  const group = w.path[0];
  for (const key of keys) {
    const hit = (group !== undefined ? VALUES[`${group} ${key}`] : undefined) ?? VALUES[key];
    if (hit) return hit;
  }
  return undefined;
}

function commandsOf(cmd: Command, help: boolean): Candidate[] {
  const helper = cmd.createHelp();
  const visible = helper.visibleCommands(cmd).filter((c) => !(help && c.name() === 'help'));
  return visible.map((c) => ({ value: c.name(), description: firstLine(c.description()) }));
}

function aliasesOf(cmd: Command): Candidate[] {
  const helper = cmd.createHelp();
  return helper
    .visibleCommands(cmd)
    .flatMap((c) => c.aliases().map((a) => ({ value: a, description: `${c.name()}: ${firstLine(c.description())}` })));
}

function optionsOf(w: Walk, cur: string): Candidate[] {
  const out: Candidate[] = [];
  for (const o of w.cmd.createHelp().visibleOptions(w.cmd)) {
    if (w.used.has(o) && !repeatable(o)) continue;
    const description = firstLine(o.description) || undefined;
    if (o.long) out.push({ value: o.long, description });
    // Short forms only when asked for a bare `-` or that very flag: a `--` list is long enough.
    if (o.short && (cur === '-' || cur === o.short)) out.push({ value: o.short, description });
  }
  return out;
}

function valueNameOf(o: Option): string | undefined {
  return /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1];
}

/** What the completer needs to know besides the tree; all optional. */
export interface CompleteOptions {
  /** Live values: default `liveValues` (server, cache, timeout). */
  live?: (kind: LiveKind, conn: ConnectionFlags) => Promise<Candidate[]>;
  /** How `liveValues` fetches on a cache miss. */
  liveControl?: LiveControl;
  /** Saved profile names. */
  profiles?: () => Promise<Candidate[]>;
}

async function valuesFor(values: Values | undefined, w: Walk, opts: CompleteOptions): Promise<Candidate[]> {
  if (!values) return [];
  switch (values.kind) {
    case 'list':
      return [...values.items];
    case 'files':
      return [{ value: FILES_MARKER }];
    case 'profiles':
      return (opts.profiles ?? savedProfiles)();
    case 'live':
      return opts.live ? opts.live(values.live, w.conn) : liveValues(values.live, w.conn, opts.liveControl);
  }
}

function optionValues(o: Option, w: Walk, opts: CompleteOptions): Promise<Candidate[]> {
  if (o.argChoices) return Promise.resolve(o.argChoices.map((value) => ({ value })));
  const name = valueNameOf(o);
  return valuesFor(lookup(w, [...(o.long ? [o.long] : []), ...(name ? [`<${name}>`] : [])]), w, opts);
}

function argumentValues(arg: Argument, w: Walk, opts: CompleteOptions): Promise<Candidate[]> {
  if (arg.argChoices) return Promise.resolve(arg.argChoices.map((value) => ({ value })));
  return valuesFor(lookup(w, [arg.name()]), w, opts);
}

/** Keeps the candidates that start with `prefix` (any case when none match exactly). */
function matching(cands: Candidate[], prefix: string): Candidate[] {
  const exact = cands.filter((c) => c.value.startsWith(prefix) || c.value === FILES_MARKER);
  if (exact.some((c) => c.value !== FILES_MARKER) || !prefix) return exact;
  const lower = prefix.toLowerCase();
  return cands.filter((c) => c.value.toLowerCase().startsWith(lower) || c.value === FILES_MARKER);
}

/**
 * The candidates for the last of `words` (the words after `chatflow`; the last one is the word
 * being completed, possibly empty), filtered by what it already holds.
 */
export async function complete(program: Command, words: string[], opts: CompleteOptions = {}): Promise<Candidate[]> {
  const done = words.slice(0, -1);
  const cur = words.at(-1) ?? '';
  const w = walk(program, done);

  if (w.pending) return matching(await optionValues(w.pending, w, opts), cur);

  if (!w.dashDash && /^--[^=]+=/.test(cur)) {
    const eq = cur.indexOf('=');
    const o = findOption(w.cmd, cur.slice(0, eq));
    if (!o || !takesValue(o)) return [];
    const head = cur.slice(0, eq + 1);
    return matching(await optionValues(o, w, opts), cur.slice(eq + 1)).map((c) =>
      c.value === FILES_MARKER ? c : { ...c, value: head + c.value },
    );
  }

  if (!w.dashDash && cur.startsWith('-')) return w.help ? [] : matching(optionsOf(w, cur), cur);

  if (w.help) return matching(commandsOf(w.cmd, true), cur);

  if (w.cmd.commands.length > 0 && w.operands.length === 0 && !w.dashDash) {
    const names = matching(commandsOf(w.cmd, false), cur);
    return names.length > 0 || !cur ? names : matching(aliasesOf(w.cmd), cur);
  }

  const args = w.cmd.registeredArguments;
  const last = args.at(-1);
  const arg = args[w.operands.length] ?? (last?.variadic ? last : undefined);
  if (!arg) return [];
  const given = arg.variadic ? new Set(w.operands.slice(args.length - 1)) : new Set<string>();
  return matching(
    (await argumentValues(arg, w, opts)).filter((c) => !given.has(c.value)),
    cur,
  );
}

/** `value` or `value\tdescription` a line; tabs and line breaks inside become spaces. */
export function formatCandidates(cands: Candidate[]): string {
  const clean = (s: string) => s.replace(/[\t\r\n]+/g, ' ').trim();
  const seen = new Set<string>();
  let out = '';
  for (const c of cands) {
    const value = clean(c.value);
    if (!value || seen.has(value)) continue;
    seen.add(value);
    const desc = c.description ? clean(c.description) : '';
    out += desc ? `${value}\t${desc.length > 80 ? `${desc.slice(0, 79)}…` : desc}\n` : `${value}\n`;
  }
  return out;
}

// ---------------------------------------------------------------- profiles

async function savedProfiles(): Promise<Candidate[]> {
  try {
    return (await listProfiles()).map((p) => ({ value: p.name, description: [p.current ? 'current' : '', p.url ?? ''].filter(Boolean).join(', ') || undefined }));
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------- live values, cached

/** How long a cached list is used. */
export const CACHE_TTL_MS = 60_000;
/** The request timeout for live values. */
export const LIVE_TIMEOUT_MS = 1000;
/**
 * Whatever happens, the answer is given this long after the process started (conf and undici
 * load within it on a cache miss); what is not there by then is not answered.
 */
export const DEADLINE_MS = 1500;

/**
 * CHATFLOW_COMPLETE_DEADLINE_MS raises (or lowers) that budget, for a slow machine or server;
 * the request timeout follows it (deadline - 500 ms).
 */
function deadlineMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.CHATFLOW_COMPLETE_DEADLINE_MS);
  return Number.isFinite(n) && n >= 600 ? n : DEADLINE_MS;
}

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'chatflow');
}

interface CacheEntry {
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
function serverKey(conn: ConnectionFlags, env: NodeJS.ProcessEnv): { key: string; viaConfig: boolean } {
  const url = conn.url || env.CHATFLOW_URL;
  if (url) return { key: `url ${validateUrl(url)}`, viaConfig: false };
  const profile = conn.profile || env.CHATFLOW_PROFILE || '';
  // Embedded: the database follows these variables; the config directory can be moved too.
  const where = [env.CHATFLOW_CONFIG_DIR, env.XDG_CONFIG_HOME, env.CHATFLOW_DB, env.XDG_DATA_HOME, homedir()].map((s) => s ?? '').join('|');
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

function cacheFile(key: string, kind: LiveKind, env: NodeJS.ProcessEnv): string {
  const hash = createHash('sha256').update(`${key}\n${kind}`).digest('hex').slice(0, 24);
  return join(cacheDir(env), `complete-${kind}-${hash}.json`);
}

const mtimeOf = (path: string): number | null => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
};

function readCache(file: string, key: string, now: number): Candidate[] | undefined {
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

function writeCache(file: string, entry: CacheEntry): void {
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(entry), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // no cache: the next completion asks the server again
  }
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

/** The refresher's own limit. */
export const REFRESH_DEADLINE_MS = 20_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts the refresher unless one started less than REFRESH_DEADLINE_MS ago (its lock file). */
function startRefresher(file: string, spawnRefresh: () => void): void {
  const lock = `${file}.lock`;
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const age = Date.now() - (mtimeOf(lock) ?? 0);
    if (age < REFRESH_DEADLINE_MS) return;
    writeFileSync(lock, String(process.pid), { mode: 0o600 });
    spawnRefresh();
  } catch {
    // no refresher: no ids this time
  }
}

async function waitForCache(file: string, key: string, until: number): Promise<Candidate[]> {
  while (performance.now() < until) {
    await sleep(40);
    const items = readCache(file, key, Date.now());
    if (items) return items;
  }
  return [];
}

interface Fetched {
  items: Candidate[];
  config?: string;
  /** Already in the cache (written by the refresher). */
  cached?: boolean;
}

async function fetchLive(kind: LiveKind, conn: ConnectionFlags, timeoutMs: number, ctl: LiveControl, cache: { file: string; key: string; until: number }): Promise<Fetched> {
  const ctx = new Context({ url: conn.url, apiKey: conn.apiKey, profile: conn.profile, timeout: String(timeoutMs / 1000) });
  let own: ChatflowClient | undefined;
  try {
    const c = await ctx.connection();
    const config = c.source === 'profile' || c.source === 'embedded' ? await configPath() : undefined;
    let client: ChatflowClient;
    if (c.url) {
      // The commands' client, without retries: a refused connection answers at once.
      const { createClient } = await import('../client/index.js');
      client = own = createClient({ baseUrl: c.url, apiKey: c.apiKey, timeoutMs, retries: 0 });
    } else if (!ctl.refresh && ctl.spawnRefresh) {
      startRefresher(cache.file, ctl.spawnRefresh);
      return { items: await waitForCache(cache.file, cache.key, cache.until), cached: true };
    } else {
      client = await ctx.client(); // starts the embedded service, as the commands do
    }
    return { items: await LIVE[kind](client), config };
  } finally {
    await own?.close().catch(() => undefined);
    await ctx.close().catch(() => undefined);
  }
}

/**
 * Live values from the server the words point to: the cached list when younger than
 * CACHE_TTL_MS, else a request with a one-second timeout and no retries (the embedded service
 * through a refresher, see LiveControl). Never throws: no server, a timeout, an error answer or
 * the deadline give an empty list (not cached).
 */
export async function liveValues(kind: LiveKind, conn: ConnectionFlags, ctl: LiveControl = {}, env: NodeJS.ProcessEnv = process.env): Promise<Candidate[]> {
  let key: string;
  let viaConfig: boolean;
  try {
    ({ key, viaConfig } = serverKey(conn, env));
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
  const fetched = fetchLive(kind, conn, timeoutMs, ctl, { file, key, until });
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
