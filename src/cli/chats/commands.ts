// `chatflow chats` (definitions): a chatflow's conversations, listed and read.
import { command } from '../core/command.js';
import { DATA } from '../core/flags.js';
import { CHAT, CHATFLOW } from '../base/values.js';
import { DATE_FLAGS, filterFlag } from '../core/filters.js';

const CHATFLOW_ARG = { name: '<chatflowId>', help: 'chatflow id, or a name only one chatflow has', values: CHATFLOW };

export const chats = command({
  name: 'chats',
  aliases: ['chat'],
  summary: 'chats newest first, or one chat as a transcript',
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'the chats, newest activity first: when, how many messages, the first question, the ratings',
      args: [CHATFLOW_ARG],
      flags: [
        ...DATA,
        ...DATE_FLAGS,
        filterFlag('chatType'),
        filterFlag('sessionId'),
        filterFlag('feedbackType', 'only chats with a rating of this kind (up, down)'),
        { flags: '--search <text>', help: 'only chats with a message containing this text (any case)' },
        { flags: '--limit <n>', help: 'how many chats (default 20)' },
        { flags: '--page <n>', help: 'page number, from 1' },
      ],
      examples: [
        'chatflow chats list <chatflowId>',
        'chatflow chats list <chatflowId> --feedback-type down --since 7d',
        'chatflow chats list <chatflowId> --search refund --chat-type external',
        'chatflow chats list <chatflowId> --feedback-type down -q | xargs -n1 chatflow chats show <chatflowId> --markdown',
      ],
    },
    {
      name: 'show',
      summary: 'one chat as a transcript: who said what and when, ratings, tools and sources',
      args: [CHATFLOW_ARG, { name: '<chatId>', help: 'the chat id, or its unique start (4 characters or more)', values: CHAT }],
      flags: [
        ...DATA,
        { flags: '--markdown', help: 'the transcript in Markdown, for a ticket' },
        { flags: '--redact', help: 'mask e-mail addresses and lead e-mails, as export --redact does' },
        { flags: '-f, --follow', help: 'keep polling and print new messages of the chat as they arrive (Ctrl-C stops)' },
        { flags: '--interval <duration>', help: 'time between polls with --follow, e.g. 2s or 500ms', default: '2s' },
      ],
      examples: [
        'chatflow chats show <chatflowId> 3f2a',
        'chatflow chats show <chatflowId> 3f2a --markdown --redact > ticket.md',
        'chatflow chats show <chatflowId> 3f2a -o json | jq .[].content',
        'chatflow chats show <chatflowId> 3f2a -f',
      ],
    },
  ],
});
