// A list as a server dialect plans it (./dialect): sent, filtered where the server answers more than
// the interface means, and paged by the client where the server does not page as the interface does.
import type { HttpCore, ListResult, Normalise } from './core.js';
import type { Dialect, ListPlan } from './dialect/index.js';
import type { ChatMessage, Feedback } from '../schema/resources.js';
import { DEFAULT_PAGE_SIZE } from '../schema/limits.js';
import { ChatflowError } from './errors.js';
import { dateWindows } from './date-windows.js';

export interface PageRequest {
  page?: number | undefined;
  limit?: number | undefined;
}


/** The records as they arrive (never held), without those the plan drops. */
export async function* plannedStream<T>(core: HttpCore, apiPath: string, plan: ListPlan<T>, normalise?: Normalise<T>): AsyncGenerator<T> {
  for await (const batch of plannedBatches(core, apiPath, plan, normalise)) yield* batch;
}

/** Rated messages only, each with its feedback, by the ratings of their chatflow. */
async function ratedOnly(rated: NonNullable<ListPlan<ChatMessage>['rated']>): Promise<(m: ChatMessage) => ChatMessage | undefined> {
  const byMessage = new Map<string, Feedback>();
  // A message rated twice: the first rating, as Flowise's join maps one.
  if (rated.ratings) for await (const f of rated.ratings()) if (!byMessage.has(f.messageId)) byMessage.set(f.messageId, f);
  return (m) => {
    const feedback = byMessage.get(m.id);
    return feedback && (rated.rating === undefined || feedback.rating === rated.rating) ? { ...m, feedback } : undefined;
  };
}

/** plannedStream, the records of each chunk received together (see HttpCore.streamBatches). */
export async function* plannedBatches<T>(core: HttpCore, apiPath: string, plan: ListPlan<T>, normalise?: Normalise<T>): AsyncGenerator<T[]> {
  if (plan.none) return;
  const source = plan.windows
    ? (dateWindows(core, apiPath, plan.query, plan.windows, (normalise ?? ((x) => x)) as Normalise<ChatMessage>) as AsyncGenerator<T[]>)
    : core.streamBatches(apiPath, plan.query, normalise);
  try {
    const rate = plan.rated ? ((await ratedOnly(plan.rated)) as unknown as (x: T) => T | undefined) : undefined;
    for await (const batch of source) {
      let kept = plan.keep ? batch.filter(plan.keep) : batch;
      if (rate) kept = kept.map(rate).filter((x): x is T => x !== undefined);
      if (kept.length > 0) yield kept;
    }
  } catch (err) {
    if (err instanceof ChatflowError && plan.emptyOn?.(err)) return;
    throw err;
  }
}

/**
 * One page with its total, or the whole list: from the server where it pages as the interface
 * does; else read through as a stream, keeping only the page (the total is counted on the way).
 */
export async function plannedList<T>(
  core: HttpCore,
  apiPath: string,
  plan: ListPlan<T>,
  { page, limit }: PageRequest,
  normalise?: Normalise<T>,
): Promise<ListResult<T>> {
  const paged = page !== undefined || limit !== undefined;
  if (plan.none) return paged ? { items: [], total: 0 } : { items: [] };
  if (!plan.clientPages && !plan.keep) {
    try {
      return await core.list(apiPath, { ...plan.query, ...(page !== undefined ? { page } : {}), ...(limit !== undefined ? { limit } : {}) }, normalise);
    } catch (err) {
      if (err instanceof ChatflowError && plan.emptyOn?.(err)) return paged ? { items: [], total: 0 } : { items: [] };
      throw err;
    }
  }
  const size = limit ?? (page !== undefined ? DEFAULT_PAGE_SIZE : Infinity);
  const from = page !== undefined ? (page - 1) * size : 0;
  const items: T[] = [];
  let total = 0;
  for await (const item of plannedStream(core, apiPath, plan, normalise)) {
    // Read by windows, a page costs the windows up to it: the total is then only known to be larger.
    if (plan.windows && paged && items.length === size) return { items, total: total + 1, atLeast: true };
    if (total >= from && items.length < size) items.push(item);
    total++;
  }
  return paged ? { items, total } : { items };
}

/** A chatflow's list as the dialect plans it: nothing, unasked, for an id no chatflow there can have. */
export const ofChatflow = <T>(dialect: Dialect, chatflowId: string | undefined, plan: ListPlan<T>): ListPlan<T> =>
  chatflowId !== undefined && dialect.noSuchChatflow(chatflowId) ? { ...plan, none: true } : plan;
