// Connection profiles in a `conf` JSON file (mode 0600, directory 0700, whatever the umask). Keys
// leave this module only masked, except through getProfile/loadConfig, which core/connection.ts
// reads. A config file another user could change is refused (it says which server gets the key);
// one others can read, holding a key, is warned of by every command that reads it.
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from './errors.js';
import { makePrivateDir, othersMayChange } from './private-files.js';
import { homeDir, platformConfigDir } from './dirs.js';
import { FORMATS, isFormat, type Format } from './formats.js';

export interface Profile {
  url?: string;
  apiKey?: string;
  output?: Format;
}

export interface ConfigData {
  currentProfile: string;
  profiles: Record<string, Profile>;
}

export type ConfigKey = 'url' | 'api-key' | 'output';
export const CONFIG_KEYS: readonly ConfigKey[] = ['url', 'api-key', 'output'];

export const DEFAULT_PROFILE = 'default';

type Store = { path: string; store: Record<string, unknown> };

/** Where `conf` keeps the file: CHATFLOW_CONFIG_DIR, else the platform's config directory. */
function configFile(): string {
  const dir = process.env.CHATFLOW_CONFIG_DIR || platformConfigDir();
  return join(dir, 'config.json');
}

const trusted = new Set<string>();
/**
 * Refuses (exit 2) a config file another user could change: it names where the key goes (`toWrite`:
 * the directories it is to be made in). Checked once a run (a read that found no file, each time).
 */
function refuseUntrusted(file: string, toWrite = false): void {
  const key = `${toWrite}:${file}`;
  if (trusted.has(key)) return;
  const why = othersMayChange(file, homeDir(), toWrite);
  if (why) throw new UsageError(`refusing to use the config: ${why}`);
  if (toWrite || existsSync(file)) trusted.add(key);
}

let warnSink: ((message: string) => void) | undefined;
let pendingWarning: string | undefined;
let warned = false;
/** Where the run's warning about a config others can read goes (core/run.ts: stderr); one held till then goes now. */
export function onConfigWarning(sink: (message: string) => void): void {
  warnSink = sink;
  if (pendingWarning) sink(pendingWarning);
  pendingWarning = undefined;
}

/** A config file that others can read and that holds a key: said once a run. */
function warnIfReadable(file: string, raw: Record<string, unknown>): void {
  if (warned || process.platform === 'win32') return;
  const profiles = raw.profiles && typeof raw.profiles === 'object' ? Object.values(raw.profiles as Record<string, unknown>) : [];
  if (!profiles.some((p) => p && typeof p === 'object' && (p as Profile).apiKey)) return;
  const warning = readableWarning(file);
  if (!warning) return;
  warned = true;
  if (warnSink) warnSink(warning);
  else pendingWarning = warning;
}

/**
 * Reading needs no `conf` (which loads a JSON-schema validator): every command reads the
 * profiles, only `config set`, `use` and `login` write them.
 */
function readRaw(): Record<string, unknown> {
  const file = configFile();
  let text: string;
  try {
    refuseUntrusted(file);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    if (err instanceof UsageError) throw err;
    throw new Error(`cannot read the config file ${file}: ${(err as Error).message}`, { cause: err });
  }
  let raw: Record<string, unknown>;
  try {
    const value = JSON.parse(text) as unknown;
    raw = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch (err) {
    throw new Error(`the config file ${file} is not valid JSON (${(err as Error).message}); fix or remove it`);
  }
  warnIfReadable(file, raw);
  return raw;
}

async function openStore(): Promise<Store> {
  const { default: Conf } = await import('conf');
  const cwd = dirname(configFile());
  try {
    return new Conf<Record<string, unknown>>({
      projectName: 'chatflow',
      projectSuffix: '',
      cwd,
      configFileMode: 0o600,
      // Profile names may hold dots: the store is read and written whole, never by dotted path.
      accessPropertiesByDotNotation: false,
    }) as unknown as Store;
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot read the config file: ${msg}`, { cause: err });
  }
}

function secure(path: string): void {
  if (process.platform === 'win32') return;
  try {
    chmodSync(dirname(path), 0o700);
  } catch {
    // a directory that is not ours (CHATFLOW_CONFIG_DIR=/somewhere/shared): leave it as it is
  }
  chmodSync(path, 0o600);
}

function normalize(raw: Record<string, unknown>): ConfigData {
  const profiles: Record<string, Profile> = {};
  const rawProfiles = raw.profiles;
  if (rawProfiles && typeof rawProfiles === 'object') {
    for (const [name, p] of Object.entries(rawProfiles as Record<string, unknown>)) {
      if (!p || typeof p !== 'object') continue;
      const { url, apiKey, output } = p as Record<string, unknown>;
      const prof: Profile = {};
      if (typeof url === 'string' && url) prof.url = url;
      if (typeof apiKey === 'string' && apiKey) prof.apiKey = apiKey;
      if (isFormat(output)) prof.output = output;
      profiles[name] = prof;
    }
  }
  const current = typeof raw.currentProfile === 'string' && raw.currentProfile ? raw.currentProfile : DEFAULT_PROFILE;
  return { currentProfile: current, profiles };
}

async function update(fn: (data: ConfigData) => void): Promise<ConfigData> {
  // Before conf, which makes missing directories with Node's default mode (0777 under umask 000).
  const file = configFile();
  refuseUntrusted(file, true);
  makePrivateDir(dirname(file));
  const conf = await openStore();
  const data = normalize(conf.store);
  fn(data);
  conf.store = { ...conf.store, currentProfile: data.currentProfile, profiles: data.profiles };
  secure(conf.path);
  return data;
}

/** The whole configuration (an empty one when there is no file yet). */
export async function loadConfig(): Promise<ConfigData> {
  return normalize(readRaw());
}

/** Path of the config file. */
export async function configPath(): Promise<string> {
  return configFile();
}

/** A profile by name (default: the current one); `exists` is false when it is not in the file. */
export async function getProfile(name?: string): Promise<Profile & { name: string; exists: boolean }> {
  const cfg = await loadConfig();
  const n = name || cfg.currentProfile;
  const p = cfg.profiles[n];
  return { ...(p ?? {}), name: n, exists: p !== undefined };
}

/** `http(s)://host[:port][/path]` with the trailing slash removed; anything else is a usage error. */
export function validateUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    throw new UsageError(`invalid URL "${value}": expected http://host[:port] or https://...`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new UsageError(`invalid URL "${value}": only http and https are supported`);
  }
  return u.href.replace(/\/+$/, '');
}

function validateProfileName(name: string): string {
  const n = name.trim();
  if (!n || /[\u0000-\u001f]/.test(n) || n === '__proto__') throw new UsageError(`invalid profile name "${name}"`);
  return n;
}

function checkKey(key: string): ConfigKey {
  if ((CONFIG_KEYS as readonly string[]).includes(key)) return key as ConfigKey;
  throw new UsageError(`unknown config key "${key}": use one of ${CONFIG_KEYS.join(', ')}`);
}

/**
 * Sets `url`, `api-key` or `output` in a profile (created when missing). Returns the value as it
 * may be shown: normalised URL, format, or the masked key.
 */
export async function setValue(profile: string, key: ConfigKey | string, value: string): Promise<string> {
  const name = validateProfileName(profile);
  const k = checkKey(key);
  let shown: string;
  let patch: Profile;
  if (k === 'url') {
    const url = validateUrl(value);
    patch = { url };
    shown = url;
  } else if (k === 'output') {
    const v = value.trim();
    if (!isFormat(v)) throw new UsageError(`invalid output format "${value}": use one of ${FORMATS.join(', ')}`);
    patch = { output: v };
    shown = v;
  } else {
    const v = value.trim();
    if (!v) throw new UsageError('empty API key');
    if (/\s/.test(v)) throw new UsageError('invalid API key: it contains white space');
    patch = { apiKey: v };
    shown = maskKey(v);
  }
  await update((data) => {
    data.profiles[name] = { ...data.profiles[name], ...patch };
  });
  return shown;
}

/** Removes a key from a profile; returns whether it was set. */
export async function unsetValue(profile: string, key: ConfigKey | string): Promise<boolean> {
  const k = checkKey(key);
  const prop: keyof Profile = k === 'api-key' ? 'apiKey' : k;
  const cfg = await loadConfig();
  if (cfg.profiles[profile]?.[prop] === undefined) return false;
  await update((data) => {
    const p = data.profiles[profile];
    if (p) delete p[prop];
  });
  return true;
}

/**
 * Makes `name` the current profile; it must exist, except `default`, which always does: with no
 * URL of its own it is the embedded service.
 */
export async function useProfile(name: string): Promise<void> {
  const cfg = await loadConfig();
  if (!cfg.profiles[name] && name !== DEFAULT_PROFILE) {
    const known = Object.keys(cfg.profiles);
    throw new UsageError(
      `no profile "${name}"${known.length ? `; known: ${known.join(', ')}` : ''}; create it with: chatflow config set url <url> --profile ${name}`,
    );
  }
  await update((data) => {
    data.currentProfile = name;
  });
}

/**
 * Removes a profile (false when there is none of that name); when it was the current one, the
 * current profile is `default` again.
 */
export async function deleteProfile(name: string): Promise<boolean> {
  const cfg = await loadConfig();
  if (!cfg.profiles[name]) return false;
  await update((data) => {
    delete data.profiles[name];
    if (data.currentProfile === name) data.currentProfile = DEFAULT_PROFILE;
  });
  return true;
}

export interface ProfileListing {
  name: string;
  current: boolean;
  url?: string;
  /** Masked. */
  apiKey?: string;
  output?: Format;
}

/** Every profile, keys masked. */
export async function listProfiles(): Promise<ProfileListing[]> {
  const cfg = await loadConfig();
  return Object.entries(cfg.profiles).map(([name, p]) => {
    const row: ProfileListing = { name, current: name === cfg.currentProfile };
    if (p.url) row.url = p.url;
    if (p.apiKey) row.apiKey = maskKey(p.apiKey);
    if (p.output) row.output = p.output;
    return row;
  });
}

/**
 * A key as it may be shown: `…abcd` (the last 4 characters; a short type prefix such as `sk-`
 * is kept: `sk-…abcd`), or `****` when the key is shorter than 12 characters.
 */
export function maskKey(key: string): string {
  if (key.length < 12) return '****';
  const prefix = /^[A-Za-z]{2,4}[-_]/.exec(key)?.[0] ?? '';
  return `${prefix}…${key.slice(-4)}`;
}

/**
 * A warning when the config file is readable by group or others (null when fine or absent):
 * `config file <path> is readable by other users; run: chmod 600 <path>`.
 */
export async function checkPermissions(): Promise<string | null> {
  if (process.platform === 'win32') return null;
  return readableWarning(await configPath()) ?? null;
}

function readableWarning(path: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return undefined;
  }
  if ((mode & 0o044) === 0) return undefined;
  return `config file ${path} is readable by other users; run: chmod 600 ${path}`;
}
