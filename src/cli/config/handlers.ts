// `chatflow config` and `chatflow login` handlers.
import { CONFIG_KEYS, DEFAULT_PROFILE, configPath, deleteProfile, getProfile, listProfiles, maskKey, setValue, unsetValue, useProfile, validateUrl } from '../base/config.js';
import { openSession } from '../core/connection.js';
import { apiKeyFromFile } from '../base/keys.js';
import type { config, login as loginDef, logout as logoutDef } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { EXIT, UserError } from '../base/errors.js';
import { askSecret, askText, requireValue } from '../base/prompts.js';

export async function set(ctx: Context, key: string, value: string, opts: Flags<typeof config, 'set'>): Promise<void> {
  const profile = (await getProfile(opts.profile)).name;
  const shown = await setValue(profile, key, value);
  ctx.out.note(`${profile}: ${key} = ${shown}`);
}

/** `--show`: the API key itself, for a script (`chatflow config get api-key --show`), like `gh auth token`. */
export async function get(ctx: Context, key: string, opts: Flags<typeof config, 'get'>): Promise<void> {
  if (!(CONFIG_KEYS as readonly string[]).includes(key)) throw new UserError(`unknown key "${key}": use one of ${CONFIG_KEYS.join(', ')}`);
  const p = await getProfile(opts.profile);
  const value = key === 'url' ? p.url : key === 'output' ? p.output : p.apiKey && (opts.show ? p.apiKey : maskKey(p.apiKey));
  if (value === undefined) throw new UserError(`${key} is not set in profile ${p.name}`, EXIT.notFound);
  ctx.out.write(`${value}\n`);
}

export async function unset(ctx: Context, key: string, opts: Flags<typeof config, 'unset'>): Promise<void> {
  const p = await getProfile(opts.profile);
  ctx.out.note((await unsetValue(p.name, key)) ? `${p.name}: ${key} removed` : `${p.name}: ${key} was not set`);
}

export async function list(ctx: Context): Promise<void> {
  await ctx.printList(await listProfiles(), 'profiles', ['name', 'current', 'url', 'apiKey', 'output']);
}

export async function use(ctx: Context, name: string): Promise<void> {
  await useProfile(name);
  const { url } = await getProfile(name);
  ctx.out.note(`now using profile ${name} (${url ?? 'the embedded service'})`);
}

export async function remove(ctx: Context, name: string): Promise<void> {
  const wasCurrent = (await getProfile()).name === name;
  if (!(await deleteProfile(name))) {
    const known = (await listProfiles()).map((p) => p.name);
    throw new UserError(`no profile "${name}"${known.length ? `; known: ${known.join(', ')}` : ''}`, EXIT.notFound);
  }
  ctx.out.note(`deleted profile ${name}${wasCurrent ? `; now using profile ${DEFAULT_PROFILE} (${(await getProfile()).url ?? 'the embedded service'})` : ''}`);
}

/** Forgets what `login` saved (the profile's URL and key); a profile left empty goes too. */
export async function logout(ctx: Context, opts: Flags<typeof logoutDef>): Promise<void> {
  const p = await getProfile(opts.profile);
  if (!p.url && !p.apiKey) throw new UserError(`not logged in: profile ${p.name} has no server`, EXIT.notFound);
  await unsetValue(p.name, 'api-key');
  await unsetValue(p.name, 'url');
  if (!p.output) await deleteProfile(p.name);
  const now = await getProfile();
  ctx.out.note(`logged out of ${p.url ?? 'the server'} (profile ${p.name}); now using profile ${now.name} (${now.url ?? 'the embedded service'})`);
}

export async function path(ctx: Context): Promise<void> {
  ctx.out.write(`${await configPath()}\n`);
}

function safeUrl(v: string): boolean {
  try {
    validateUrl(v);
    return true;
  } catch {
    return false;
  }
}

export async function login(ctx: Context, opts: Flags<typeof loginDef>): Promise<void> {
  const profile = (await getProfile(opts.profile)).name;
  const url = validateUrl(
    await requireValue('url', opts.url, {
      prompt: () => askText('Server URL', { default: 'http://localhost:3000', validate: (v) => (safeUrl(v) ? true : 'an http(s) URL') }),
    }),
  );
  const given = opts.apiKey ?? (opts.apiKeyFile ? await apiKeyFromFile(opts.apiKeyFile) : undefined);
  const apiKey = await requireValue('api-key', given, { prompt: () => askSecret('API key') });
  const session = await openSession({ url, apiKey }, { timeoutMs: ctx.timeoutMs(), retries: 0 });
  try {
    // Variables need a key on both our service and Flowise; ping would not check it.
    await session.client.variables.list({ page: 1, limit: 1 });
  } finally {
    await session.close();
  }
  // (A key already in a file others could read was warned of when the profile was read, above.)
  await setValue(profile, 'url', url);
  await setValue(profile, 'api-key', apiKey);
  // As `gh auth login` does: the next command goes where this one logged in.
  await useProfile(profile);
  const env = process.env.CHATFLOW_PROFILE;
  const overridden = env && env !== profile ? `; CHATFLOW_PROFILE=${env} still chooses profile ${env} in this shell (unset it)` : '';
  ctx.out.note(`logged in to ${url} as profile ${profile} (key ${maskKey(apiKey)}); now using profile ${profile}${overridden}`);
}
