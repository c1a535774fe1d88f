// `chatflow assistants` (definitions): list, get, create, update, delete, diff, sync.
import { ASSISTANT_TOOLS, ASSISTANT_TYPES } from '../../schema/enums.js';
import { command } from '../core/command.js';
import { flagList } from '../core/flag-def.js';
import { BODY_FILE, DATA, PAGE, mutation } from '../core/flags.js';
import { ASSISTANT_TOOL, ASSISTANT_TYPE, FILES, live } from '../base/values.js';
import { assistantsPromote } from '../promote/commands.js';

const ID = live('assistants');

const body = flagList([
  { flags: '--name <name>', help: 'assistant name' },
  { flags: '--description <text>', help: 'description' },
  { flags: '--model <model>', help: 'model name, e.g. gpt-4o' },
  { flags: '--instructions <text>', help: 'system instructions' },
  { flags: '--temperature <n>', help: 'sampling temperature, 0 to 2' },
  { flags: '--top-p <n>', help: 'nucleus sampling, 0 to 1' },
  { flags: '--tool <tool>', help: `enable a tool: ${ASSISTANT_TOOLS.join(', ')} (repeatable)`, values: ASSISTANT_TOOL, repeatable: true },
  { flags: '--credential <id>', help: "the id of a credential on the server (Flowise needs one): see 'chatflow credentials list'", values: live('credentials') },
  { flags: '--icon-src <path>', help: 'icon path', values: FILES },
  { flags: '--type <type>', help: `assistant type: ${ASSISTANT_TYPES.join(', ')}`, values: ASSISTANT_TYPE },
  BODY_FILE,
]);

export const assistants = command({
  name: 'assistants',
  aliases: ['assistant'],
  summary: 'assistant definitions: model, instructions, sampling, tools',
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'list assistants',
      flags: [...DATA, ...PAGE, { flags: '--type <type>', help: `only this type: ${ASSISTANT_TYPES.join(', ')}`, values: ASSISTANT_TYPE }],
      examples: ['chatflow assistants list', 'chatflow assistants list --type CUSTOM --fields id,details.name'],
    },
    {
      name: 'get',
      summary: 'show one assistant',
      args: [{ name: '<id|name>', help: 'assistant id, or a details.name only one assistant has', values: ID }],
      flags: DATA,
      examples: ['chatflow assistants get 1f09… -o yaml'],
    },
    {
      name: 'create',
      summary: 'create an assistant',
      flags: [...DATA, ...body, ...mutation()],
      examples: ['chatflow assistants create --name Support --model gpt-4o --temperature 0.2 --tool file_search', 'chatflow assistants create --file assistant.json'],
    },
    {
      name: 'update',
      summary: 'change an assistant (details are merged)',
      args: [{ name: '<id|name>', help: 'assistant id, or a details.name only one assistant has', values: ID }],
      flags: [...DATA, ...body, ...mutation()],
      examples: ['chatflow assistants update 1f09… --temperature 0.7 --tool function --tool code_interpreter'],
    },
    {
      name: 'delete',
      aliases: ['rm'],
      summary: 'delete assistants',
      args: [{ name: '<id|name...>', help: 'assistant ids or names (each is tried; exit 3 if any was not found)', values: ID }],
      flags: [...DATA, ...mutation({ destructive: true })],
      examples: ['chatflow assistants delete 1f09… --yes'],
    },
    ...assistantsPromote,
  ],
});
