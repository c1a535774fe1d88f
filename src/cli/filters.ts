// The message filters as CLI flags and as the client's query, both from the one table in
// src/schema/filters.ts: a filter added there is a flag, completes, and reaches the server.
import type { MessageListQuery } from '../client/index.js';
import { MESSAGE_FILTERS, type FilterValues, type MessageFilterKey } from '../schema/filters.js';
import type { FlagDef } from './core/command.js';
import { CHAT_TYPE, DATE, ORDER, RATING, type ValueSet } from './core/values.js';
import { queryDates, type DateFlags, type Zone } from './dates.js';

const VALUES: Record<FilterValues, ValueSet> = { chatType: CHAT_TYPE, rating: RATING, date: DATE };

const flagOf = (f: (typeof MESSAGE_FILTERS)[number]): FlagDef => ({
  flags: f.flag,
  help: f.help,
  ...('values' in f ? { values: VALUES[f.values] } : {}),
  ...('repeatable' in f ? { repeatable: f.repeatable } : {}),
});

/** Another name for --start-date, as `git log --since` (the server knows only startDate). */
export const SINCE: FlagDef = { flags: '--since <when>', help: 'same as --start-date: 24h, 7d, yesterday, 2026-10-01', values: DATE };
/** Another name for --end-date, as `git log --until`. */
export const UNTIL: FlagDef = { flags: '--until <when>', help: 'same as --end-date: yesterday, 2026-10-31', values: DATE };

export const MESSAGE_FILTER_FLAGS: FlagDef[] = [...MESSAGE_FILTERS.map(flagOf), SINCE, UNTIL];

/** The flag of one filter, with the help a command that means it otherwise gives it (stats: UTC days). */
export function filterFlag(key: MessageFilterKey, help?: string): FlagDef {
  const flag = flagOf(MESSAGE_FILTERS.find((f) => f.key === key)!);
  return help === undefined ? flag : { ...flag, help };
}

/** --start-date, --end-date, --since and --until, for the lists that filter by date only. */
export const DATE_FLAGS: FlagDef[] = [...MESSAGE_FILTERS.filter((f) => f.schema === 'dateBound').map(flagOf), SINCE, UNTIL];

export const ORDER_FLAG: FlagDef = { flags: '--order <asc|desc>', help: 'sort by date: asc (default) or desc', values: ORDER };

export type MessageFilterFlags = Pick<MessageListQuery, MessageFilterKey>;

/**
 * The filters given (already checked by their value sets), as the client's query; the dates
 * (--since, --until, --start-date, --end-date) as the instants they mean in the run's zone.
 */
export function messageQuery(flags: Record<string, unknown>, zone: Zone): MessageFilterFlags {
  const query = Object.fromEntries(MESSAGE_FILTERS.map((f) => [f.key, flags[f.key]])) as MessageFilterFlags;
  return { ...query, ...queryDates(flags as DateFlags, zone) };
}
