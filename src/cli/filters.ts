// The message filters as CLI flags and as the client's query, both from the one table in
// src/schema/filters.ts: a filter added there is a flag, completes, and reaches the server.
import type { MessageListQuery } from '../client/index.js';
import { MESSAGE_FILTERS, type FilterValues, type MessageFilterKey } from '../schema/filters.js';
import type { FlagDef } from './core/command.js';
import { CHAT_TYPE, DATE, ORDER, RATING, type ValueSet } from './core/values.js';

const VALUES: Record<FilterValues, ValueSet> = { chatType: CHAT_TYPE, rating: RATING, date: DATE };

const flagOf = (f: (typeof MESSAGE_FILTERS)[number]): FlagDef => ({
  flags: f.flag,
  help: f.help,
  ...('values' in f ? { values: VALUES[f.values] } : {}),
  ...('repeatable' in f ? { repeatable: f.repeatable } : {}),
});

export const MESSAGE_FILTER_FLAGS: FlagDef[] = MESSAGE_FILTERS.map(flagOf);

/** --start-date and --end-date, for the lists that filter by date only. */
export const DATE_FLAGS: FlagDef[] = MESSAGE_FILTERS.filter((f) => f.schema === 'dateBound').map(flagOf);

export const ORDER_FLAG: FlagDef = { flags: '--order <asc|desc>', help: 'sort by date: asc (default) or desc', values: ORDER };

export type MessageFilterFlags = Pick<MessageListQuery, MessageFilterKey>;

/** The filters given (already checked by their value sets), as the client's query. */
export function messageQuery(flags: Record<string, unknown>): MessageFilterFlags {
  return Object.fromEntries(MESSAGE_FILTERS.map((f) => [f.key, flags[f.key]])) as MessageFilterFlags;
}
