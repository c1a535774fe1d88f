// `chatflow config` (profiles: url, api-key, output) and `chatflow login` (definitions).
import { command } from '../core/command.js';
import type { FlagDef } from '../core/flag-def.js';
import { API_KEY_FILE, GENERAL, OUTPUT, TIMEOUT } from '../core/flags.js';
import { CONFIG_KEYS } from '../base/config.js';
import { oneOf, PROFILES } from '../base/values.js';

const KEY = { name: '<key>', help: `one of ${CONFIG_KEYS.join(', ')}`, values: oneOf(CONFIG_KEYS) };
const PROFILE = { flags: '--profile <name>', help: 'profile to change (default: the current one)', env: 'CHATFLOW_PROFILE', values: PROFILES } as const satisfies FlagDef;

export const config = command({
  name: 'config',
  summary: 'profiles: server URL, API key and output format',
  commands: [
    {
      name: 'set',
      summary: 'set a value in a profile (created when missing)',
      args: [KEY, { name: '<value>' }],
      flags: [...GENERAL, PROFILE],
      examples: ['chatflow config set url http://flowise:3000', 'chatflow config set api-key "$KEY" --profile prod', 'chatflow config set output yaml'],
    },
    {
      name: 'get',
      summary: 'print a value of a profile (an API key masked, unless --show)',
      args: [KEY],
      flags: [...GENERAL, PROFILE, { flags: '--show', help: 'print the API key itself (for scripts)' }],
      examples: ['chatflow config get url', 'curl -H "Authorization: Bearer $(chatflow config get api-key --show)" …'],
    },
    {
      name: 'unset',
      summary: 'remove a value from a profile',
      args: [KEY],
      flags: [...GENERAL, PROFILE],
    },
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'list profiles (keys masked)',
      flags: [...GENERAL, ...OUTPUT],
    },
    {
      name: 'use',
      summary: 'make a profile the current one (default: back to the embedded service, unless it has a URL)',
      args: [{ name: '<profile>', values: PROFILES }],
      flags: GENERAL,
      examples: ['chatflow config use prod', 'chatflow config use default'],
    },
    {
      name: 'delete',
      aliases: ['rm'],
      summary: 'delete a profile (when it was the current one, default is current again)',
      args: [{ name: '<profile>', values: PROFILES }],
      flags: GENERAL,
      examples: ['chatflow config delete staging'],
    },
    {
      name: 'path',
      summary: 'print the path of the configuration file',
      flags: GENERAL,
    },
  ],
});

export const login = command({
  name: 'login',
  summary: 'save a server URL and API key in a profile, after checking them against the server',
  flags: [
    ...GENERAL,
    { flags: '--url <url>', help: 'server URL, e.g. http://flowise:3000' },
    { flags: '--api-key <key>', help: 'API key (asked without echo when not given; visible in ps: prefer --api-key-file)' },
    API_KEY_FILE,
    TIMEOUT,
    PROFILE,
  ],
  examples: ['chatflow login', 'chatflow login --url http://flowise:3000 --profile prod'],
});

export const logout = command({
  name: 'logout',
  summary: "forget the server URL and API key 'chatflow login' saved in a profile",
  flags: [...GENERAL, PROFILE],
  examples: ['chatflow logout', 'chatflow logout --profile prod'],
});
