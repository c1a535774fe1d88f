// The message filters, once: each is a query parameter of the interface (key), a CLI flag, its
// help, the values it takes, the schema it is validated with and how the store applies it.
// routes.ts builds the route's query schema from this table, the CLI its flags and the client
// query, the server's route and store the filter they apply (test/server/message-filters.test.ts
// holds them to every row). Plain data, so the CLI reads it without loading the schema library.

/** Which schema (in routes.ts) validates a filter. */
export type FilterSchema = 'chatTypes' | 'freeId' | 'text' | 'dateBound' | 'rating';
/** Which value set (in the CLI) completes and checks a filter. */
export type FilterValues = 'chatType' | 'rating' | 'date';
/**
 * How the store applies a filter: the message's column of that key equals the value (exact) or
 * is one of the values (anyOf); the message's date is within the bound (dateBound: the store's
 * inclusive `start`/`end`); the message's feedback has the rating (rating).
 */
export type FilterMatch = 'exact' | 'anyOf' | 'dateBound' | 'rating';

export interface FilterDef {
  key: string;
  flag: string;
  help: string;
  schema: FilterSchema;
  match: FilterMatch;
  values?: FilterValues;
  repeatable?: boolean;
}

export const MESSAGE_FILTERS = [
  { key: 'chatType', flag: '--chat-type <type>', help: 'chat type in any case, e.g. internal, external or mcp (repeatable)', schema: 'chatTypes', match: 'anyOf', values: 'chatType', repeatable: true },
  { key: 'chatId', flag: '--chat-id <id>', help: 'one chat', schema: 'freeId', match: 'exact' },
  { key: 'sessionId', flag: '--session-id <id>', help: 'one session', schema: 'text', match: 'exact' },
  { key: 'memoryType', flag: '--memory-type <type>', help: 'memory type', schema: 'text', match: 'exact' },
  { key: 'startDate', flag: '--start-date <date>', help: 'from this date, date-time or time ago, inclusive, in the local zone unless --utc (2026-10-01, 2026-10-01T12:00, today, -2h, 7d)', schema: 'dateBound', match: 'dateBound', values: 'date' },
  { key: 'endDate', flag: '--end-date <date>', help: 'until this date, date-time or time ago, inclusive (a day means all of it: 2026-10-31, yesterday, now)', schema: 'dateBound', match: 'dateBound', values: 'date' },
  { key: 'feedbackType', flag: '--feedback-type <rating>', help: 'only messages rated up or down (THUMBS_UP, THUMBS_DOWN)', schema: 'rating', match: 'rating', values: 'rating' },
] as const satisfies readonly FilterDef[];

export type MessageFilterKey = (typeof MESSAGE_FILTERS)[number]['key'];
/** The filters the store takes as its date range (`start`, `end`); it takes the others by key. */
export type DateFilterKey = Extract<(typeof MESSAGE_FILTERS)[number], { match: 'dateBound' }>['key'];
