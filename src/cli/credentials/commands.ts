// `chatflow credentials` (definitions): list.
import { command } from '../core/command.js';
import { DATA } from '../core/flags.js';

export const credentials = command({
  name: 'credentials',
  aliases: ['credential', 'creds'],
  summary: "Flowise's credentials by name, kind and id (never a secret): what --credential takes",
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'list credentials (names, kinds and ids only)',
      flags: DATA,
      examples: ['chatflow credentials list', 'chatflow assistants create --name Helper --model gpt-4o --type openai --credential "$(chatflow credentials list -q | head -1)"'],
    },
  ],
});
