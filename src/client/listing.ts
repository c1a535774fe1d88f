// A list as a server dialect plans it (./dialect): sent, filtered where the server answers more than
// the interface means, and paged by the client where the server does not page as the interface does.
import type { HttpCore, ListResult, Normalise } from './core.js';
import type { Dialect, ListPlan } from './dialect/index.js';
import type { ChatMessage } from '../schema/resources.js';
import { ChatflowError } from './errors.js';
import { sessionPages } from './session-pages.js';

export interface PageRequest {
  page?: number | undefined;
  limit?: number | undefined;
}

/** The page size when only `page` is given, as our service takes it. */
const DEFAULT_LIMIT = 100;

/** How a list is read. */
export interface ReadOptions {
  /**
   * Any order will do (a count, an export, a search): where the server pages otherwise (Flowise's
   * session pages) its pages are taken as they come, with nothing held back.
   */
  anyOrder?: boolean;
}

/** The records as they arrive (never held), without those the plan drops. */
export async function* plannedStream<T>(core: HttpCore, apiPath: string, plan: ListPlan<T>, normalise?: Normalise<T>, read: ReadOptions = {}): AsyncGenerator<T> {
  for await (const batch of plannedBatches(core, apiPath, plan, normalise, read)) yield* batch;
}

/** plannedStream, the records of each chunk received together (see HttpCore.streamBatches). */
export async function* plannedBatches<T>(core: HttpCore, apiPath: string, plan: ListPlan<T>, normalise?: Normalise<T>, read: ReadOptions = {}): AsyncGenerator<T[]> {
  if (plan.none) return;
  let disorder = 0;
  const source = plan.sessionPages
    ? (sessionPages(
        core,
        apiPath,
        plan.query,
        {
          order: read.anyOrder ? 'any' : String(plan.query.order ?? '').toUpperCase() === 'DESC' ? 'DESC' : 'ASC',
          feedback: plan.sessionPages.feedback,
          disorder: (n) => (disorder = n),
        },
        (normalise ?? ((x) => x)) as Normalise<ChatMessage>,
      ) as AsyncGenerator<T[]>)
    : core.streamBatches(apiPath, plan.query, normalise);
  try {
    for await (const batch of source) {
      const kept = plan.keep ? batch.filter(plan.keep) : batch;
      if (kept.length > 0) yield kept;
    }
  } catch (err) {
    if (err instanceof ChatflowError && plan.emptyOn?.(err)) return;
    throw err;
  }
  if (disorder > 0) {
    throw new ChatflowError(
      'inexact',
      `${disorder} message${disorder === 1 ? '' : 's'} came out of date order: a chat longer than every chat before it began earlier than what was already listed ` +
        '(the server pages by chat); list newest first, or one chat at a time, for an exact order',
      { method: 'GET', path: apiPath },
    );
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
  const size = limit ?? (page !== undefined ? DEFAULT_LIMIT : Infinity);
  const from = page !== undefined ? (page - 1) * size : 0;
  const items: T[] = [];
  let total = 0;
  for await (const item of plannedStream(core, apiPath, plan, normalise)) {
    // Read by pieces, a page costs what it holds: the total is then only known to be larger.
    if (plan.sessionPages && paged && items.length === size) return { items, total: total + 1, atLeast: true };
    if (total >= from && items.length < size) items.push(item);
    total++;
  }
  return paged ? { items, total } : { items };
}

/** A chatflow's list as the dialect plans it: nothing, unasked, for an id no chatflow there can have. */
export const ofChatflow = <T>(dialect: Dialect, chatflowId: string | undefined, plan: ListPlan<T>): ListPlan<T> =>
  chatflowId !== undefined && dialect.noSuchChatflow(chatflowId) ? { ...plan, none: true } : plan;
