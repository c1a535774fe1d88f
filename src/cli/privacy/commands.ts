// `chatflow privacy` (definitions): find and erase one person's conversations.
import { command } from '../core/command.js';
import { flagList } from '../core/flag-def.js';
import { DATA, SCOPE, mutation } from '../core/flags.js';
import { filterFlag } from '../core/filters.js';

const WHO = flagList([
  { flags: '--lead-email <address>', help: 'the chats where this address was given as the lead e-mail (compared without regard to case)' },
  filterFlag('sessionId', 'the chats of this session'),
  filterFlag('chatId', 'this chat'),
]);

export const privacy = command({
  name: 'privacy',
  summary: "find or erase one person's chats, messages and feedback across chatflows",
  commands: [
    {
      name: 'find',
      summary: 'every chat (with its messages and feedback) that holds this person’s data, chatflow by chatflow',
      flags: [...WHO, ...SCOPE, ...DATA],
      examples: [
        'chatflow privacy find --lead-email ana@example.com',
        'chatflow privacy find --session-id s-42 --chatflow support-bot -o json',
      ],
      notes: '\nWithout --chatflow, every chatflow the server lists is searched. A chat is found whole: all its messages.\n',
    },
    {
      name: 'erase',
      summary: 'delete those chats (their messages and feedback) and print a report to keep as evidence',
      flags: [...WHO, ...SCOPE, ...DATA, ...mutation({ destructive: true })],
      examples: [
        'chatflow privacy erase --lead-email ana@example.com                 # asks, showing the counts',
        'chatflow privacy erase --lead-email ana@example.com --yes -o json > erasure-2026-03-01.json',
      ],
      notes: '\nEach chat goes by one exact delete by chat id (on Flowise as on our service); the report counts what each deleted.\n',
    },
  ],
});
