// `chatflow upsert-history` (definitions): list, delete.
import { command } from '../core/command.js';
import { DATA, PAGE, mutation } from '../core/flags.js';
import { CHATFLOW, live } from '../base/values.js';
import { DATE_FLAGS, ORDER_FLAG } from '../core/filters.js';

export const upsertHistory = command({
  name: 'upsert-history',
  aliases: ['uh'],
  summary: 'records of upsert operations',
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'list upsert history (of every chatflow without an id)',
      args: [{ name: '[chatflowId]', help: 'chatflow id, or a name only one chatflow has', values: CHATFLOW }],
      flags: [...DATA, ...DATE_FLAGS, ORDER_FLAG, ...PAGE],
      examples: ['chatflow upsert-history list <chatflowId> --order desc', 'chatflow uh ls --start-date 2026-01-01 -o json'],
    },
    {
      name: 'delete',
      aliases: ['rm'],
      summary: 'delete upsert history records (our service keeps them, never listed again; Flowise removes them)',
      args: [{ name: '<id...>', help: 'record ids (each is tried; exit 3 if any was not found)', values: live('upsert-history') }],
      flags: [...DATA, { flags: '--chatflow <id>', help: 'only records of this chatflow', values: CHATFLOW }, ...mutation({ destructive: true })],
      examples: ['chatflow upsert-history delete 0b1c… 4d5e… --yes'],
    },
  ],
});
