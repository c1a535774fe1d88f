// `chatflow messages` (definitions): list, delete, tail.
import { command } from '../core/command.js';
import { DATA, PAGE, PROGRESS, SCOPE, mutation } from '../core/flags.js';
import { CHATFLOW } from '../base/values.js';
import { MESSAGE_FILTER_FLAGS, ORDER_FLAG } from '../core/filters.js';

const CHATFLOW_ARG = { name: '<chatflowId>', help: 'chatflow id, or a name only one chatflow has', values: CHATFLOW };

export const messages = command({
  name: 'messages',
  aliases: ['message', 'msg'],
  summary: "a chatflow's chat messages",
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'list messages, oldest first',
      args: [CHATFLOW_ARG],
      flags: [...DATA, ...MESSAGE_FILTER_FLAGS, { flags: '--feedback', help: 'only messages that have feedback (each with its feedback)' }, ORDER_FLAG, ...PAGE],
      examples: [
        'chatflow messages list <chatflowId>',
        'chatflow messages list <chatflowId> --session-id s1 --start-date 2026-01-01 --end-date 2026-01-31',
        'chatflow messages list <chatflowId> --feedback --feedback-type down -o json',
        'chatflow messages list <chatflowId> -o ndjson > messages.ndjson      # streamed, any size',
      ],
    },
    {
      name: 'delete',
      aliases: ['rm'],
      summary: 'delete the messages that match the filters (with no filter: ALL messages of the chatflow), and their feedback',
      args: [CHATFLOW_ARG],
      flags: [...DATA, ...MESSAGE_FILTER_FLAGS, { flags: '--hard-delete', help: 'also clear the messages from the third-party memory (Flowise)' }, ...mutation({ destructive: true })],
      examples: [
        'chatflow messages delete <chatflowId> --session-id s1            # asks, showing how many match',
        'chatflow messages delete <chatflowId> --end-date 2025-12-31 --yes',
        'chatflow messages delete <chatflowId> --dry-run',
      ],
    },
    {
      name: 'prune',
      summary: 'delete the messages older than a cut-off, and their feedback, chatflow by chatflow (for a nightly cron)',
      flags: [
        { flags: '--older-than <when>', help: 'a length of time (90d, 12h, 2w) or a date: messages created before then go', required: true },
        ...SCOPE,
        ...PROGRESS,
        ...DATA,
        ...mutation({ destructive: true }),
      ],
      examples: [
        'chatflow messages prune --older-than 90d --all-chatflows --dry-run     # how many, per chatflow',
        'chatflow messages prune --older-than 90d --chatflow support-bot        # asks, showing the counts',
        'chatflow messages prune --older-than 90d --all-chatflows --yes          # from cron',
      ],
      notes:
        'A message created exactly at the cut-off is kept. Each chatflow is one exact delete (on Flowise as on our service);\n' +
        'run it again and it finds nothing more to delete.',
    },
    {
      name: 'tail',
      summary: 'show the latest messages of a chatflow and, with --follow, new ones as they arrive',
      args: [CHATFLOW_ARG],
      flags: [
        ...DATA,
        ...MESSAGE_FILTER_FLAGS,
        { flags: '-f, --follow', help: 'keep polling and print new messages as they arrive (Ctrl-C stops)' },
        { flags: '--interval <duration>', help: 'time between polls with --follow, e.g. 2s or 500ms', default: '2s' },
        { flags: '-n, --lines <n>', help: 'how many of the latest messages to show first', default: '20' },
      ],
      examples: [
        'chatflow messages tail <chatflowId>                       # the last 20 messages',
        'chatflow messages tail <chatflowId> -f                    # and new ones as they arrive',
        'chatflow messages tail <chatflowId> -f --session-id s1 -n 0',
        'chatflow messages tail <chatflowId> -f --interval 500ms | jq -r .content   # one JSON object a line',
      ],
    },
  ],
});
