// Filter flags shared by list and delete commands: each is the interface's query parameter in
// kebab case, so a reader of the interface can guess them.
import type { Command } from 'commander';
import { RATINGS } from '../schema/enums.js';
import { UsageError } from './exit.js';
import { collect } from './options.js';

export const dateFlags = (cmd: Command) =>
  cmd
    .option('--start-date <date>', 'from this date or date-time, inclusive (2026-01-31, 2026-01-31T12:00:00Z)')
    .option('--end-date <date>', 'until this date or date-time, inclusive (a plain date means the whole day)');

export const orderFlag = (cmd: Command) => cmd.option('--order <asc|desc>', 'sort by date: asc (default) or desc');

/** `up`/`down` are accepted as short forms of the ratings. */
export function rating(value: string | undefined, flag: string): (typeof RATINGS)[number] | undefined {
  if (value === undefined) return undefined;
  const v = value.toUpperCase();
  const r = v === 'UP' ? 'THUMBS_UP' : v === 'DOWN' ? 'THUMBS_DOWN' : v;
  if (!(RATINGS as readonly string[]).includes(r)) throw new UsageError(`invalid ${flag} "${value}": use up, down, ${RATINGS.join(' or ')}`);
  return r as (typeof RATINGS)[number];
}

export function order(value: string | undefined): 'asc' | 'desc' | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (v !== 'asc' && v !== 'desc') throw new UsageError(`invalid --order "${value}": use asc or desc`);
  return v;
}

export const messageFilterFlags = (cmd: Command) =>
  dateFlags(
    cmd
      .option('--chat-type <type>', 'chat type, e.g. INTERNAL or EXTERNAL (repeatable)', collect)
      .option('--chat-id <id>', 'one chat')
      .option('--session-id <id>', 'one session')
      .option('--memory-type <type>', 'memory type'),
  ).option('--feedback-type <rating>', 'only messages rated up or down (THUMBS_UP, THUMBS_DOWN)');

export interface MessageFilterFlags {
  chatType?: string[];
  chatId?: string;
  sessionId?: string;
  memoryType?: string;
  startDate?: string;
  endDate?: string;
  feedbackType?: string;
}

export const messageQuery = (f: MessageFilterFlags) => ({
  chatType: f.chatType,
  chatId: f.chatId,
  sessionId: f.sessionId,
  memoryType: f.memoryType,
  startDate: f.startDate,
  endDate: f.endDate,
  feedbackType: rating(f.feedbackType, '--feedback-type'),
});
