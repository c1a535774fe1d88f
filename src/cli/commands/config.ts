// `chatflow config` (profiles: url, api-key, output) and `chatflow login`.
import { Option, type Command } from 'commander';
import type { Context } from '../context.js';
import {
  CONFIG_KEYS,
  checkPermissions,
  configPath,
  getProfile,
  listProfiles,
  maskKey,
  setValue,
  unsetValue,
  useProfile,
  validateUrl,
} from '../config.js';
import { UsageError } from '../exit.js';
import { addGeneralOptions, addOutputOptions, examples } from '../options.js';
import { printNote, printWarning } from '../output.js';
import { askSecret, askText, requireValue } from '../prompts.js';
import { action } from '../run.js';

const keyArg = `one of ${CONFIG_KEYS.join(', ')}`;
const profileOption = () => new Option('--profile <name>', 'profile to change (default: the current one)').env('CHATFLOW_PROFILE');

async function warnIfReadable(): Promise<void> {
  const warning = await checkPermissions();
  if (warning) printWarning(warning);
}

export function registerConfig(program: Command): void {
  const group = program.command('config').description('profiles: server URL, API key and output format');

  addGeneralOptions(group.command('set').description('set a value in a profile (created when missing)').argument('<key>', keyArg).argument('<value>'))
    .addOption(profileOption())
    .addHelpText('after', examples(['chatflow config set url http://flowise:3000', 'chatflow config set api-key "$KEY" --profile prod', 'chatflow config set output yaml']))
    .action(async (key: string, value: string, opts: { profile?: string }) => {
      const profile = (await getProfile(opts.profile)).name;
      const shown = await setValue(profile, key, value);
      printNote(`${profile}: ${key} = ${shown}`);
    });

  addGeneralOptions(group.command('get').description('print a value of a profile (an API key masked)').argument('<key>', keyArg))
    .addOption(profileOption())
    .action(async (key: string, opts: { profile?: string }) => {
      if (!(CONFIG_KEYS as readonly string[]).includes(key)) throw new UsageError(`unknown key "${key}": use ${keyArg}`);
      const p = await getProfile(opts.profile);
      const value = key === 'url' ? p.url : key === 'output' ? p.output : p.apiKey && maskKey(p.apiKey);
      if (value === undefined) throw Object.assign(new Error(`${key} is not set in profile ${p.name}`), { exitCode: 3 });
      process.stdout.write(`${value}\n`);
    });

  addGeneralOptions(group.command('unset').description('remove a value from a profile').argument('<key>', keyArg))
    .addOption(profileOption())
    .action(async (key: string, opts: { profile?: string }) => {
      const p = await getProfile(opts.profile);
      printNote((await unsetValue(p.name, key)) ? `${p.name}: ${key} removed` : `${p.name}: ${key} was not set`);
    });

  addOutputOptions(addGeneralOptions(group.command('list').alias('ls').description('list profiles (keys masked)')))
    .action(
      action(async (ctx: Context) => {
        await warnIfReadable();
        await ctx.printList(await listProfiles(), 'profiles', ['name', 'current', 'url', 'apiKey', 'output']);
      }),
    );

  addGeneralOptions(group.command('use').description('make a profile the current one').argument('<profile>'))
    .action(async (name: string) => {
      await useProfile(name);
      printNote(`now using profile ${name}`);
    });

  addGeneralOptions(group.command('path').description('print the path of the configuration file')).action(async () => {
    process.stdout.write(`${await configPath()}\n`);
  });

  addGeneralOptions(
    program
      .command('login')
      .description('save a server URL and API key in a profile, after checking them against the server')
      .option('--url <url>', 'server URL, e.g. http://flowise:3000')
      .option('--api-key <key>', 'API key (asked without echo when not given)')
      .option('--timeout <seconds>', 'request timeout (default 30)'),
  )
    .addOption(profileOption())
    .addHelpText('after', examples(['chatflow login', 'chatflow login --url http://flowise:3000 --profile prod']))
    .action(
      action(async (ctx: Context, opts: { url?: string; apiKey?: string; profile?: string }) => {
        const profile = (await getProfile(opts.profile)).name;
        const url = validateUrl(
          await requireValue('url', opts.url, {
            prompt: () => askText('Server URL', { default: 'http://localhost:3000', validate: (v) => (safeUrl(v) ? true : 'an http(s) URL') }),
          }),
        );
        const apiKey = await requireValue('api-key', opts.apiKey, { prompt: () => askSecret('API key') });
        const { createClient } = await import('../../client/index.js');
        const client = createClient({ baseUrl: url, apiKey, timeoutMs: ctx.timeoutMs(), retries: 0 });
        try {
          // Variables need a key on both our service and Flowise; ping would not check it.
          await client.variables.list({ page: 1, limit: 1 });
        } finally {
          await client.close();
        }
        // Checked before saving, which makes the file 0600: a key already in it may have been read.
        await warnIfReadable();
        await setValue(profile, 'url', url);
        await setValue(profile, 'api-key', apiKey);
        printNote(`logged in to ${url} as profile ${profile} (key ${maskKey(apiKey)})`);
      }),
    );
}

function safeUrl(v: string): boolean {
  try {
    validateUrl(v);
    return true;
  } catch {
    return false;
  }
}
