// The message filters as CLI flags and as the client's query, both from the one table in
// src/schema/filters.ts: a filter added there is a flag, completes, and reaches the server.
import type { MessageListQuery } from '../../client/index.js';
import { MESSAGE_FILTERS, type FilterValues, type MessageFilterKey } from '../../schema/filters.js';
import { flagList, type FlagDef, type FlagValues } from './flag-def.js';
import { CHAT_TYPE, DATE, ORDER, RATING } from '../base/values.js';
import { parseWhen, type Zone } from '../base/dates.js';
import { UsageError } from '../base/errors.js';

const VALUES = { chatType: CHAT_TYPE, rating: RATING, date: DATE } as const satisfies Record<FilterValues, unknown>;

type Filter = (typeof MESSAGE_FILTERS)[number];
/** A filter's flag as a definition types it: the table's syntax, its value set, an array when repeatable. */
type FilterFlag<F extends Filter> = F extends unknown
  ? { readonly flags: F['flag']; readonly help: string } & (F extends { values: infer V extends FilterValues } ? { readonly values: (typeof VALUES)[V] } : unknown) &
      (F extends { repeatable: true } ? { readonly repeatable: true } : unknown)
  : never;

// (The table's row types say what each flag holds; the object built from a row is that, as FilterFlag spells it.)
const flagOf = <F extends Filter>(f: F): FilterFlag<F> =>
  ({
    flags: f.flag,
    help: f.help,
    ...('values' in f ? { values: VALUES[f.values] } : {}),
    ...('repeatable' in f ? { repeatable: f.repeatable } : {}),
  }) as FlagDef as FilterFlag<F>;

/** Another name for --start-date, as `git log --since` (the server knows only startDate). */
export const SINCE = { flags: '--since <when>', help: 'same as --start-date: 24h, 7d, yesterday, 2026-10-01', values: DATE } as const satisfies FlagDef;
/** Another name for --end-date, as `git log --until`. */
export const UNTIL = { flags: '--until <when>', help: 'same as --end-date: yesterday, 2026-10-31', values: DATE } as const satisfies FlagDef;

export const MESSAGE_FILTER_FLAGS = flagList([...MESSAGE_FILTERS.map(flagOf), SINCE, UNTIL]);

/** The flag of one filter, with the help a command that means it otherwise gives it (stats: UTC days). */
export function filterFlag<K extends MessageFilterKey>(key: K, help?: string): FilterFlag<Extract<Filter, { key: K }>> {
  const flag = flagOf(MESSAGE_FILTERS.find((f): f is Extract<Filter, { key: K }> => f.key === key)!);
  return help === undefined ? flag : { ...flag, help };
}

/** --start-date, --end-date, --since and --until, for the lists that filter by date only. */
export const DATE_FLAGS = flagList([...MESSAGE_FILTERS.filter((f): f is Extract<Filter, { schema: 'dateBound' }> => f.schema === 'dateBound').map(flagOf), SINCE, UNTIL]);

/** A bound's text and the flag that gave it (its other name, or its own). */
function boundText(other: string | undefined, otherFlag: string, own: string | undefined, ownFlag: string): [string | undefined, string] {
  if (other !== undefined && own !== undefined) throw new UsageError(`${otherFlag} and ${ownFlag} say the same thing: give one of them`);
  return other !== undefined ? [other, otherFlag] : [own, ownFlag];
}

/**
 * The date flags as the query's startDate and endDate, ISO 8601 instants in `zone`: `--since` is
 * another name for `--start-date` and `--until` for `--end-date`, as git log has them (giving both
 * names of one bound is an error); a bound not given is left out.
 */
export function queryDates(
  flags: FlagValues<typeof DATE_FLAGS>,
  zone: Zone,
  now = Date.now(),
): { startDate?: string; endDate?: string } {
  const [startText, startFlag] = boundText(flags.since, '--since', flags.startDate, '--start-date');
  const [endText, endFlag] = boundText(flags.until, '--until', flags.endDate, '--end-date');
  const start = startText === undefined ? undefined : parseWhen(startText, 'start', startFlag, zone, now);
  const end = endText === undefined ? undefined : parseWhen(endText, 'end', endFlag, zone, now);
  if (start !== undefined && end !== undefined && start > end) {
    throw new UsageError(`${startFlag} ${startText} is after ${endFlag} ${endText}: nothing can match`);
  }
  return {
    ...(start !== undefined ? { startDate: new Date(start).toISOString() } : {}),
    ...(end !== undefined ? { endDate: new Date(end).toISOString() } : {}),
  };
}

export const ORDER_FLAG = { flags: '--order <asc|desc>', help: 'sort by date: asc (default) or desc', values: ORDER } as const satisfies FlagDef;

/**
 * The filters given (already checked by their value sets), as the client's query; the dates
 * (--since, --until, --start-date, --end-date) as the instants they mean in the run's zone.
 */
export function messageQuery(flags: FlagValues<typeof MESSAGE_FILTER_FLAGS>, zone: Zone): Pick<MessageListQuery, MessageFilterKey> {
  const query = Object.fromEntries(MESSAGE_FILTERS.map((f) => [f.key, flags[f.key]])) as Pick<MessageListQuery, MessageFilterKey>;
  return { ...query, ...queryDates(flags, zone) };
}
