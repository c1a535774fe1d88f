// The message filters, once: each is a query parameter of the interface (key), a CLI flag, its
// help, the values it takes, and the schema it is validated with. routes.ts builds the route's
// query schema from this table, the CLI its flags and the client query. Plain data, so the CLI
// reads it without loading the schema library.

/** Which schema (in routes.ts) validates a filter. */
export type FilterSchema = 'chatTypes' | 'freeId' | 'text' | 'dateBound' | 'rating';
/** Which value set (in the CLI) completes and checks a filter. */
export type FilterValues = 'chatType' | 'rating' | 'date';

export interface FilterDef {
  key: string;
  flag: string;
  help: string;
  schema: FilterSchema;
  values?: FilterValues;
  repeatable?: boolean;
}

export const MESSAGE_FILTERS = [
  { key: 'chatType', flag: '--chat-type <type>', help: 'chat type, e.g. INTERNAL or EXTERNAL (repeatable)', schema: 'chatTypes', values: 'chatType', repeatable: true },
  { key: 'chatId', flag: '--chat-id <id>', help: 'one chat', schema: 'freeId' },
  { key: 'sessionId', flag: '--session-id <id>', help: 'one session', schema: 'text' },
  { key: 'memoryType', flag: '--memory-type <type>', help: 'memory type', schema: 'text' },
  { key: 'startDate', flag: '--start-date <date>', help: 'from this date, date-time or time ago, inclusive, in the local zone unless --utc (2026-10-01, 2026-10-01T12:00, today, -2h, 7d)', schema: 'dateBound', values: 'date' },
  { key: 'endDate', flag: '--end-date <date>', help: 'until this date, date-time or time ago, inclusive (a day means all of it: 2026-10-31, yesterday, now)', schema: 'dateBound', values: 'date' },
  { key: 'feedbackType', flag: '--feedback-type <rating>', help: 'only messages rated up or down (THUMBS_UP, THUMBS_DOWN)', schema: 'rating', values: 'rating' },
] as const satisfies readonly FilterDef[];

export type MessageFilterKey = (typeof MESSAGE_FILTERS)[number]['key'];
