// `chatflow variables` (definitions): list, get, create, update, delete, set, diff, sync.
import { command } from '../core/command.js';
import { flagList } from '../core/flag-def.js';
import { BODY_FILE, DATA, PAGE, mutation } from '../core/flags.js';
import { VARIABLE_TYPE, live } from '../base/values.js';
import { variablesPromote } from '../promote/commands.js';

const ID = live('variables');

const body = flagList([
  { flags: '--name <name>', help: 'variable name' },
  { flags: '--value <value>', help: 'variable value' },
  { flags: '--type <type>', help: 'variable type: static (a new one\'s default) or runtime (value read from the environment when a flow runs)', values: VARIABLE_TYPE },
  BODY_FILE,
]);

export const variables = command({
  name: 'variables',
  aliases: ['variable', 'vars'],
  summary: 'named values (name, value, type) used by chatflows',
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'list variables, most recently updated first',
      flags: [...DATA, ...PAGE],
      examples: ['chatflow variables list', 'chatflow vars ls -o csv --fields name,value', 'chatflow vars ls -q | xargs chatflow vars rm -y'],
    },
    {
      name: 'get',
      summary: 'show one variable',
      args: [{ name: '<id|name>', help: 'variable id, or a name only one variable has', values: ID }],
      flags: DATA,
      examples: ['chatflow variables get OPENAI_MODEL', 'chatflow variables get 3f1c… -o json'],
    },
    {
      name: 'create',
      summary: 'create a variable',
      flags: [...DATA, ...body, ...mutation()],
      examples: ['chatflow variables create --name OPENAI_MODEL --value gpt-4o', 'chatflow variables create --name REGION --type runtime', 'chatflow variables create --file variable.json'],
    },
    {
      name: 'update',
      summary: 'change a variable (only the given fields)',
      args: [{ name: '<id|name>', help: 'variable id, or a name only one variable has', values: ID }],
      flags: [...DATA, ...body, ...mutation()],
      examples: ['chatflow variables update 3f1c… --value gpt-4o-mini', 'echo \'{"value":"x"}\' | chatflow variables update 3f1c… --file -'],
    },
    {
      name: 'delete',
      aliases: ['rm'],
      summary: 'delete variables',
      args: [{ name: '<id|name...>', help: 'variable ids or names (each is tried; exit 3 if any was not found)', values: ID }],
      flags: [...DATA, ...mutation({ destructive: true })],
      examples: ['chatflow variables delete 3f1c… OLD_MODEL --yes'],
    },
    {
      name: 'set',
      summary: 'create a variable, or update the one with that name',
      notes: [
        'On our service one transaction: sets of one name at once end with one variable, holding one',
        'of their values. Flowise has no such request: the name is looked up, then the variable',
        'updated or created, and two sets of a new name at the same moment may each create it.',
      ].join('\n'),
      args: [{ name: '<name>' }, { name: '<value>' }],
      flags: [...DATA, ...mutation(), { flags: '--type <type>', help: "variable type, static or runtime (a new one: static; an existing one keeps its own)", values: VARIABLE_TYPE }],
      examples: ['chatflow variables set OPENAI_MODEL gpt-4o', 'chatflow variables set REGION eu-west-1 --type runtime'],
    },
    ...variablesPromote,
  ],
});
