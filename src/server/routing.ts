// How a request reaches its route, one rule for both ways in: the fastify app (app.ts: its 405s,
// and its validation) and the in-process dispatcher (in-process.ts: all of it). Which route a
// path and method are (`matchRoute`), and a route's parts checked in one order (`validateRequest`).
import { API_PREFIX, OPENAPI_REQUEST, ROUTE_PATHS, type RouteName } from '../schema/paths.js';
import { routeTable, type HttpPart } from './route-table.js';
import { compileValidator } from './validation.js';
import { StreamedBody } from './streamed-body.js';

/** The OpenAPI document's route: served beside the table's, not one of them. */
export const DOCUMENT_ROUTE = 'openApiDocument';
type Target = RouteName | typeof DOCUMENT_ROUTE;

interface Pattern {
  segments: string[];
  literal: boolean;
  byMethod: Map<string, Target>;
}

interface Patterns {
  /** A literal path's own pattern, looked up by the path (most requests; the app's GET /variables some 5% faster). */
  literal: Map<string, Pattern>;
  templates: Pattern[];
}

let table: Patterns | undefined;
/** The routes by path pattern, made on the first request. HEAD goes with each GET, as fastify answers it. */
function patterns(): Patterns {
  const byShape = new Map<string, Pattern>();
  const all: [Target, { method: string; path: string }][] = [
    ...(Object.entries(ROUTE_PATHS) as [RouteName, { method: string; path: string }][]),
    [DOCUMENT_ROUTE, OPENAPI_REQUEST],
  ];
  for (const [name, { method, path }] of all) {
    const segments = path.split('/').slice(1);
    const shape = segments.map((s) => (s.startsWith(':') ? ':' : s)).join('/');
    let pattern = byShape.get(shape);
    if (!pattern) byShape.set(shape, (pattern = { segments, literal: !path.includes(':'), byMethod: new Map() }));
    pattern.byMethod.set(method, name);
    if (method === 'GET') pattern.byMethod.set('HEAD', name);
  }
  const patterns = [...byShape.values()];
  return {
    literal: new Map(patterns.filter((p) => p.literal).map((p) => [`/${p.segments.join('/')}`, p])),
    templates: patterns.filter((p) => !p.literal),
  };
}

/** A path's route and its parameters (not decoded); or the methods the path has, when it lacks this one. */
export type Match = { route: Target; params: Record<string, string> } | { allowed: string[] };

/**
 * The route of `method` on `path` (below API_PREFIX, no trailing slash); undefined when no route
 * has the path (404). A literal path (/variables/import) is never taken for a template
 * (/variables/:id): of the patterns a path matches, literal ones go before templates, and a
 * method they lack is a 405 with the methods they have.
 */
export function matchRoute(method: string, path: string): Match | undefined {
  const { literal, templates } = (table ??= patterns());
  const own = literal.get(path);
  const given = path.split('/').slice(1);
  const matching = own ? [own] : templates.filter((p) => p.segments.length === given.length && p.segments.every((s, i) => (s.startsWith(':') ? given[i] !== '' : s === given[i])));
  if (matching.length === 0) return undefined;
  const found = matching.find((p) => p.byMethod.has(method));
  if (!found) return { allowed: [...new Set(matching.flatMap((p) => [...p.byMethod.keys()]))] };
  const params: Record<string, string> = {};
  found.segments.forEach((s, i) => {
    if (s.startsWith(':')) params[s.slice(1)] = given[i]!;
  });
  return { route: found.byMethod.get(method)!, params };
}

type Validate = ReturnType<typeof compileValidator>;
/** Each route's validators, made on its first request. */
const validators = new Map<RouteName, Partial<Record<HttpPart, Validate>>>();
function validatorsOf(name: RouteName) {
  let found = validators.get(name);
  if (!found) {
    const spec = routeTable[name];
    // (As fastify names them: the route's method and its whole URL.)
    const route = { method: spec.method, url: `${API_PREFIX}${spec.path}` };
    found = Object.fromEntries(Object.entries(spec.parts).map(([httpPart, schema]) => [httpPart, compileValidator({ ...route, schema, httpPart })]));
    validators.set(name, found);
  }
  return found;
}

/** A route's body validator (a streamed ingest checks each batch with it, as the array it stands for). */
export const bodyValidator = (name: RouteName): Validate => validatorsOf(name).body!;

/** A request part that broke its schema, in the form of fastify's validation error (app.ts's error handler reads it). */
export class Invalid extends Error {
  readonly statusCode = 400;
  constructor(
    readonly validationContext: HttpPart,
    readonly validation: NonNullable<Validate['errors']>,
  ) {
    super(`${validationContext} is invalid`);
  }
}

/**
 * Checks a route's parts, coercing the query's and the path's values in place: params, then
 * body, then query string (fastify's order, which its own schemas would take), each as fastify
 * passes it (a missing part as null). Throws `Invalid` at the first that breaks its schema.
 */
export function validateRequest(name: RouteName, parts: { params: unknown; body: unknown; query: unknown }): void {
  const validate = validatorsOf(name);
  for (const [context, value] of [
    ['params', parts.params],
    ['body', parts.body],
    ['querystring', parts.query],
  ] as const) {
    // (A streamed body is validated batch by batch, as the array it stands for: ndjson.ts.)
    if (value instanceof StreamedBody) continue;
    const check = validate[context];
    if (check && !check(value === undefined ? null : value)) throw new Invalid(context, check.errors ?? []);
  }
}
