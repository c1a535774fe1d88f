// What the service answers, whichever way a request reached it (fastify in app.ts, or the
// in-process dispatcher of in-process.ts): a route's outcome, and the one place an error becomes
// a status and its words.
import { routePath } from '../schema/paths.js';
import type { RouteName } from '../schema/routes.js';
import { ServiceError } from './errors.js';
import { routeTable } from './route-table.js';
import { handlers } from './routes/index.js';
import { TextAnswer, type RouteHandler, type RouteInput } from './routes/types.js';
import { Conflict, NotFound, StoreError } from './store/errors.js';
import { isDiskFull, isUnavailable } from './store/failures.js';
import type { Listing } from './store/types.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

/** A route's answer: a list to stream, a text, or a value sent as JSON. */
export type Outcome = { list: Listing<unknown> } | { text: string } | { json: unknown };

/** Runs a route's handler on its validated request. */
export async function perform<N extends RouteName>(name: N, input: RouteInput<N>): Promise<Outcome> {
  const result = await (handlers[name] as RouteHandler<N>).handle(input);
  if (result instanceof TextAnswer) return { text: result.text };
  return routeTable[name].list ? { list: result as Listing<unknown> } : { json: result };
}

/** The error body every failure answers with. */
export const errorJson = (statusCode: number, message: string) => ({ statusCode, success: false, message });

/**
 * The status and message of any error but a validation failure: the one place they are decided.
 * `contentType` is the request's (for a 415).
 */
export function errorAnswer(error: Error & { code?: unknown; statusCode?: number }, contentType: string | undefined): [status: number, message: string] {
  if (error instanceof ServiceError) return [error.statusCode, error.message];
  if (error instanceof StoreError) return storeRefusal(error);
  if (isDiskFull(error)) return [507, 'the database disk is full; writes fail until space is freed (reads still work)'];
  if (isUnavailable(error)) return [503, 'the database is unavailable; try again shortly'];
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    const given = String(contentType ?? '').slice(0, 100);
    return [415, `content-type ${given || '(none)'} is not supported: send application/json`];
  }
  const status = error.statusCode ?? 500;
  return status < 500 ? [status, error.message] : [500, 'internal error'];
}

/** The one place a store's refusal becomes an answer: its status, and its words for a client. */
function storeRefusal(error: StoreError): [status: number, message: string] {
  if (error instanceof NotFound) return [404, error.message];
  if (error instanceof Conflict) {
    const existing = error.existing && routePath('updateFeedback', error.existing.id);
    return [409, existing ? `${error.message}: change it with PUT ${existing}` : error.message];
  }
  // A bad reference, a value the database cannot keep: the request's to fix.
  return [400, error.message];
}
