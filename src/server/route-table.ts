// What the service's dispatch needs of each route of the schema's table (schema/routes.ts), and
// the limits of a request's path and body. In the bundle's service (server.cjs) scripts/bundle.js
// puts this module's values, made at build time, in its place, without the schemas (whose
// validators it precompiles, precompiled.ts): a command answering in its own process then never
// loads the schema library nor builds a schema.
import { API_PREFIX, OPENAPI_REQUEST } from '../schema/paths.js';
import { NO_QUERY, routes, type RouteName, type RouteSpec } from '../schema/routes.js';

/** The largest body a server takes by default. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** The longest path parameter the router takes. */
export const MAX_PARAM_LENGTH = 1000;

/** A request part the service validates, as fastify names it. */
export type HttpPart = 'params' | 'body' | 'querystring';

export interface RouteEntry {
  method: string;
  /** Path below API_PREFIX, in fastify's `:param` form. */
  path: string;
  /** Streamed as a list (see RouteSpec). */
  list: boolean;
  /** Its body may be an array of records: it takes them as NDJSON too (ndjson.ts). */
  streamed: boolean;
  invalidStatus?: number;
  /** The parts it validates, each with its schema (in the bundle an empty object: precompiled.ts has their validators). */
  parts: Partial<Record<HttpPart, object>>;
}

/** A body schema that is an array, or one of its shapes is (TypeBox's Union is `anyOf`). */
const takesArray = (schema: object | undefined): boolean => {
  const s = schema as { type?: unknown; anyOf?: object[] } | undefined;
  return s?.type === 'array' || Boolean(s?.anyOf?.some(takesArray));
};

export const routeTable = Object.fromEntries(
  (Object.entries(routes) as [RouteName, RouteSpec][]).map(([name, spec]) => [
    name,
    {
      method: spec.method,
      path: spec.path,
      list: Boolean(spec.list),
      streamed: takesArray(spec.body),
      ...(spec.invalidStatus ? { invalidStatus: spec.invalidStatus } : {}),
      parts: { ...(spec.params ? { params: spec.params } : {}), ...(spec.body ? { body: spec.body } : {}), querystring: spec.query ?? NO_QUERY },
    } satisfies RouteEntry,
  ]),
) as Record<RouteName, RouteEntry>;

/** A validator's name: the request part of a route, as fastify names them (its method and full URL). */
export const validatorKey = (method: string, url: string, httpPart: string) => `${method} ${url} ${httpPart}`;

/** Every validator the app has: each route's params, body and query string, and the document's query. */
export function routeValidators(): { key: string; schema: object; httpPart: HttpPart }[] {
  const entries = [...Object.values(routeTable), { ...OPENAPI_REQUEST, parts: { querystring: NO_QUERY } }];
  return entries.flatMap(({ method, path, parts }) =>
    (Object.entries(parts) as [HttpPart, object][]).map(([httpPart, schema]) => ({ key: validatorKey(method, `${API_PREFIX}${path}`, httpPart), schema, httpPart })),
  );
}
