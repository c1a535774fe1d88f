// `diff` and `sync` of variables and assistants between two servers (definitions).
import { command } from '../core/command.js';
import { flagList, type FlagDef } from '../core/flag-def.js';
import { GENERAL, OUTPUT, TIMEOUT } from '../core/flags.js';
import { PROFILES } from '../base/values.js';
import { MASK, SECRET_NAME } from '../base/secrets.js';

export const sides = (nouns: string) =>
  flagList([
  { flags: '--from <profile|url>', help: `where the ${nouns} come from: a profile name (chatflow config) or a server URL`, values: PROFILES, required: true },
  { flags: '--to <profile|url>', help: 'where they go: a profile name or a server URL', values: PROFILES, required: true },
  { flags: '--from-api-key <key>', help: 'API key for a --from URL (a profile brings its own)' },
  { flags: '--to-api-key <key>', help: 'API key for a --to URL (a profile brings its own)' },
  TIMEOUT,
  ]);

export const EXIT_CODE = { flags: '--exit-code', help: 'exit 1 when there are differences, 0 when none (like git diff --exit-code)' } as const satisfies FlagDef;

const help = (key: string) =>
  `\nRecords are matched by ${key}. Values of names matching ${SECRET_NAME} are shown as ${MASK}.\n` +
  `Nothing is deleted in the target unless --prune is given. Without a terminal, sync needs --yes.\n` +
  `CHATFLOW_URL, CHATFLOW_API_KEY and CHATFLOW_PROFILE are not used here: name both sides.\n`;

export const variablesPromote = [
  command({
    name: 'diff',
    summary: 'compare the variables of two servers (by name)',
    flags: [...sides('variables'), { flags: '--prune', help: 'show the variables only the target has as deletions (as sync --prune would)' }, EXIT_CODE, ...OUTPUT, ...GENERAL],
    examples: ['chatflow variables diff --from staging --to prod', 'chatflow variables diff --from staging --to prod --exit-code -q || echo "prod differs"', 'chatflow variables diff --from staging --to http://flowise:3000 --to-api-key "$KEY" -o json'],
    notes: help('name'),
  }),
  command({
    name: 'sync',
    summary: 'create and update variables in one server so they match another (by name)',
    flags: [
      ...sides('variables'),
      { flags: '--prune', help: 'also delete the variables only the target has' },
      { flags: '-y, --yes', help: 'do not ask for confirmation' },
      { flags: '--dry-run', help: 'show the plan and change nothing' },
      ...OUTPUT,
      ...GENERAL,
    ],
    examples: [
      'chatflow variables sync --from staging --to prod                 # shows the plan, asks, applies',
      'chatflow variables sync --from staging --to prod --dry-run',
      'chatflow variables sync --from staging --to prod --prune --yes   # also delete what staging lacks',
    ],
    notes: help('name'),
  }),
] as const;

export const assistantsPromote = [
  command({
    name: 'diff',
    summary: 'compare the assistants of two servers (by details.name)',
    flags: [...sides('assistants'), { flags: '--prune', help: 'show the assistants only the target has as deletions (as sync --prune would)' }, EXIT_CODE, ...OUTPUT, ...GENERAL],
    examples: ['chatflow assistants diff --from staging --to prod'],
    notes: help('details.name'),
  }),
  command({
    name: 'sync',
    summary: 'create and update assistants in one server so they match another (by details.name)',
    flags: [
      ...sides('assistants'),
      { flags: '--prune', help: 'also delete the assistants only the target has' },
      { flags: '-y, --yes', help: 'do not ask for confirmation' },
      { flags: '--dry-run', help: 'show the plan and change nothing' },
      { flags: '--credential <id>', help: "credential for assistants created in the target (default: the source's; credentials are per server)" },
      ...OUTPUT,
      ...GENERAL,
    ],
    examples: ['chatflow assistants sync --from staging --to prod', 'chatflow assistants sync --from staging --to prod --credential 7c1e… --yes'],
    notes: help('details.name') + "An assistant's credential is a per-server reference: it is set on create and never changed on update.\n",
  }),
] as const;
