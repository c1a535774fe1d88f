// The queries of the list and delete calls, in the interface's words (src/schema/routes.ts), as
// callers give them; a server dialect (./dialect) turns them into what one server honours.
import type { RouteQuery } from '../schema/routes.js';
import type { QueryInput } from './core.js';

type QueryBool = boolean | 'true' | 'false' | '1' | '0';

export type MessageListQuery = Omit<RouteQuery<'listMessages'>, 'feedback' | 'chatType'> & {
  /** Only messages with feedback (each gets a `feedback` object). */
  feedback?: QueryBool;
  chatType?: string | string[];
};
export type MessageDeleteQuery = Omit<RouteQuery<'deleteMessages'>, 'hardDelete' | 'chatType'> & {
  hardDelete?: QueryBool;
  chatType?: string | string[];
};
export type FeedbackListQuery = RouteQuery<'listFeedback'>;
export type UpsertHistoryQuery = RouteQuery<'listUpsertHistory'>;

/** A query boolean as true, or undefined for false (Flowise takes any value, even `false`, as true). */
export const flag = (v: QueryBool | undefined): true | undefined => (v === true || v === 'true' || v === '1' ? true : undefined);

/** The query without its undefined entries. */
export function defined(query: Record<string, unknown>): QueryInput {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as QueryInput;
}
