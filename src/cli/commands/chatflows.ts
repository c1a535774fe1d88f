// `chatflow chatflows` (definitions): list, get.
import type { CommandDef } from '../core/command.js';
import { DATA } from '../core/flags.js';
import { CHATFLOW } from '../core/values.js';

const load = () => import('../handlers/chatflows.js');

export const chatflows: CommandDef = {
  name: 'chatflows',
  aliases: ['chatflow', 'flows'],
  summary: 'the chatflows a server knows: name and id (and, on our service, how many messages each has)',
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'list chatflows',
      flags: DATA,
      examples: ['chatflow chatflows list', 'chatflow chatflows list -q          # ids only'],
      notes:
        '\nFlowise keeps chatflows by name; our service keeps no chatflow records: its chatflows are the\n' +
        'ids its messages, feedback and upsert history name, with their message counts. Wherever a command\n' +
        'takes a chatflow, a name only one chatflow has works as well as its id.\n',
      handler: () => load().then((m) => m.list),
    },
    {
      name: 'get',
      summary: 'show one chatflow (by id or name)',
      args: [{ name: '<chatflow>', help: 'chatflow id, or a name only one chatflow has', values: CHATFLOW }],
      flags: DATA,
      examples: ['chatflow chatflows get "Support bot" -o json'],
      handler: () => load().then((m) => m.get),
    },
  ],
};
