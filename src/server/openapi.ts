// The OpenAPI 3.1 document, generated from the route table that also drives validation.
import type { TSchema } from '@sinclair/typebox';
import { ErrorBody } from '../schema/common.js';
import { routes, type RouteSpec } from '../schema/routes.js';
import { VERSION } from '../version.js';

export const API_PREFIX = '/api/v1';

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or wrong API key',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  422: 'Validation error',
  500: 'Internal error',
  503: 'Database unavailable',
};

/** JSON Schema without TypeBox's symbol keys (JSON round trip drops them). */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

function parameters(spec: RouteSpec) {
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

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [operationId, spec] of Object.entries(routes) as [string, RouteSpec][]) {
    const path = API_PREFIX + spec.path.replace(/:(\w+)/g, '{$1}');
    const errors = [...new Set([...spec.errors, ...(spec.public ? [] : [401]), ...(spec.body ? [413] : []), 500])];
    const isText = operationId === 'ping';
    (paths[path] ??= {})[spec.method.toLowerCase()] = {
      operationId,
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.public ? { security: [] } : {}),
      parameters: parameters(spec),
      ...(spec.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: plain(spec.body) } } } }
        : {}),
      responses: {
        200: {
          description: spec.list ? 'The list (streamed; with page and limit the total is in X-Total-Count)' : 'Success',
          ...(spec.list
            ? { headers: { 'X-Total-Count': { description: 'Total matches, when page or limit is given', schema: { type: 'integer' } } } }
            : {}),
          ...(spec.response
            ? { content: { [isText ? 'text/plain' : 'application/json']: { schema: plain(spec.response) } } }
            : {}),
        },
        ...Object.fromEntries(
          errors.map((status) => [
            status,
            {
              description: STATUS_TEXT[status] ?? 'Error',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          ]),
        ),
      },
      ...(spec.extension ? { 'x-extension': true } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'chatflow management service',
      version: VERSION,
      description: 'The Flowise chatflow-management interface (variables, feedback, assistants, chat messages, upsert history).',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: { Error: plain(ErrorBody) },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key given to the server' } },
    },
  };
}
