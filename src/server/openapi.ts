// The OpenAPI 3.1 document, generated from the route table that also drives validation, so that
// it says exactly what the server does: every status a route can answer, HEAD beside each GET,
// this document itself, and bearer auth only when the server has keys.
import type { TSchema } from '@sinclair/typebox';
import { ErrorBody } from '../schema/common.js';
import { NO_QUERY, routes, type RouteSpec } from '../schema/routes.js';
import { VERSION } from '../version.js';
import { API_PREFIX, OPENAPI_REQUEST } from '../schema/paths.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request: a parameter or the body breaks a rule (the message names it), an unknown query parameter, or malformed HTTP',
  401: 'Missing or wrong API key',
  404: 'Not found',
  408: 'The request did not arrive in time',
  409: 'Conflict',
  413: 'Body too large',
  414: 'A path parameter is too long',
  415: 'The body is not application/json',
  422: 'Validation error',
  431: 'Request headers too large',
  500: 'Internal error',
  503: 'Database unavailable, or the server is shutting down',
  507: 'The database disk is full (reads still work)',
};

/** Statuses any request may get, whatever its route: from the transport, the database or a bug. */
const ANY_ROUTE = [400, 408, 431, 500, 503];

/** JSON Schema without TypeBox's symbol keys (JSON round trip drops them). */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

function parameters(spec: Pick<RouteSpec, 'params' | 'query'>) {
  const out: unknown[] = [];
  for (const [where, schema] of [['path', spec.params], ['query', spec.query]] as const) {
    if (!schema) continue;
    const { properties = {}, required = [] } = plain(schema) as { properties?: Record<string, object>; required?: string[] };
    for (const [name, s] of Object.entries(properties)) {
      const isArray = (s as { type?: string }).type === 'array';
      out.push({
        name,
        in: where,
        required: where === 'path' || required.includes(name),
        schema: s,
        ...(isArray ? { style: 'form', explode: true } : {}),
      });
    }
  }
  return out;
}

/** Every status the route answers with the error body, by where it comes from. */
function errorStatuses(spec: RouteSpec, secured: boolean): number[] {
  return [
    ...ANY_ROUTE,
    ...spec.errors,
    ...(secured && !spec.public ? [401] : []),
    ...(spec.params ? [414] : []),
    ...(spec.body ? [413, 415] : []),
    ...(spec.method === 'GET' ? [] : [507]),
  ]
    .filter((s, i, all) => all.indexOf(s) === i)
    .sort((a, b) => a - b);
}

function operation(operationId: string, spec: RouteSpec, secured: boolean, head: boolean) {
  const isText = operationId === 'ping';
  const total = spec.list
    ? { headers: { 'X-Total-Count': { description: 'Total matches, when page or limit is given', schema: { type: 'integer', minimum: 0 } } } }
    : {};
  return {
    operationId: head ? `${operationId}Head` : operationId,
    summary: head ? `${spec.summary} (headers only)` : spec.summary,
    tags: [spec.tag],
    ...(secured && spec.public ? { security: [] } : {}),
    parameters: parameters({ params: spec.params, query: spec.query ?? NO_QUERY }),
    ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(spec.body) } } } } : {}),
    responses: {
      200: {
        description: spec.list ? 'The list (streamed; with page and limit the total is in X-Total-Count)' : 'Success',
        ...total,
        ...(spec.response && !head ? { content: { [isText ? 'text/plain' : 'application/json']: { schema: plain(spec.response) } } } : {}),
      },
      ...Object.fromEntries(
        errorStatuses(spec, secured).map((status) => [
          status,
          head
            ? { description: STATUS_TEXT[status] ?? 'Error' }
            : { description: STATUS_TEXT[status] ?? 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        ]),
      ),
    },
    ...(spec.extension ? { 'x-extension': true } : {}),
  };
}

/** This document's own route, described like the others. */
const DOCUMENT_ROUTE: RouteSpec = {
  ...OPENAPI_REQUEST,
  tag: 'service',
  summary: 'This OpenAPI document',
  errors: [],
  extension: true,
};

/** The document for a server with keys (`secured`) or without. */
export function openApiDocument({ secured }: { secured: boolean }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const all: [string, RouteSpec][] = [...(Object.entries(routes) as [string, RouteSpec][]), ['openApiDocument', DOCUMENT_ROUTE]];
  for (const [operationId, spec] of all) {
    const item = (paths[API_PREFIX + spec.path.replace(/:(\w+)/g, '{$1}')] ??= {});
    item[spec.method.toLowerCase()] = operation(operationId, spec, secured, false);
    // fastify answers HEAD for every GET: the same statuses and headers, no body.
    if (spec.method === 'GET') item.head = operation(operationId, spec, secured, true);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'chatflow management service',
      version: VERSION,
      description:
        'The Flowise chatflow-management interface (variables, feedback, assistants, chat messages, upsert history). ' +
        'An unknown query parameter is 400 on every route.',
    },
    servers: [{ url: '/' }],
    ...(secured ? { security: [{ bearer: [] }] } : {}),
    paths,
    components: {
      schemas: { Error: plain(ErrorBody) },
      ...(secured ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key given to the server' } } } : {}),
    },
  };
}
