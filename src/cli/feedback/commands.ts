// `chatflow feedback` (definitions): list, create, update.
import { command } from '../core/command.js';
import { BODY_FILE, DATA, PAGE, mutation } from '../core/flags.js';
import { CHATFLOW, ORDER, RATING } from '../base/values.js';
import { DATE_FLAGS, ORDER_FLAG, filterFlag } from '../core/filters.js';

export const feedback = command({
  name: 'feedback',
  summary: 'ratings (thumbs up/down) and comments on chat messages',
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: "list a chatflow's feedback",
      args: [{ name: '<chatflowId>', help: 'chatflow id, or a name only one chatflow has', values: CHATFLOW }],
      flags: [
        ...DATA,
        filterFlag('chatId'),
        { flags: '--sort-order <asc|desc>', help: 'sort by date (same as --order)', values: ORDER },
        ...DATE_FLAGS,
        ORDER_FLAG,
        ...PAGE,
      ],
      examples: ['chatflow feedback list <chatflowId>', 'chatflow feedback list <chatflowId> --start-date 2026-01-01 --order desc -o csv'],
    },
    {
      name: 'create',
      summary: 'rate a chat message',
      flags: [
        ...DATA,
        { flags: '--message-id <id>', help: 'the rated message (its chat and chatflow are filled in)' },
        { flags: '--rating <rating>', help: 'up, down, THUMBS_UP or THUMBS_DOWN', values: RATING },
        { flags: '--content <text>', help: 'a comment' },
        filterFlag('chatId', 'chat id (checked against the message)'),
        { flags: '--chatflowid <id>', help: 'chatflow id (checked against the message)', values: CHATFLOW },
        BODY_FILE,
        ...mutation(),
      ],
      examples: ['chatflow feedback create --message-id 7d0e… --rating up --content "spot on"'],
    },
    {
      name: 'update',
      summary: 'change a rating or its comment',
      args: [{ name: '<id>', help: 'feedback id' }],
      flags: [
        ...DATA,
        { flags: '--rating <rating>', help: 'up, down, THUMBS_UP or THUMBS_DOWN', values: RATING },
        { flags: '--content <text>', help: 'a comment' },
        BODY_FILE,
        ...mutation(),
      ],
      examples: ['chatflow feedback update 5c1a… --rating down --content "wrong answer"'],
    },
  ],
});
