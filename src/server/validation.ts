// Request validation with ajv from the schema module, and messages that name the field and the
// rule ("details.temperature must be between 0 and 2").
//
// The bundle's service (server.cjs) has every route's validators compiled at build time
// (`precompiled.ts`, ajv's standalone code made by scripts/bundle.js with `makeAjv` and
// `routeValidators` of route-table.ts): a command answering in its own process neither loads ajv nor compiles a
// schema. Elsewhere (the library, dist/server) each schema is compiled on its route's first request.
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { precompiled } from './precompiled.js';
import { validatorKey } from './route-table.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `standalone`: keeps the code it compiles, for ajv's standalone module (the build's). */
export function makeAjv(coerce: boolean, standalone = false): Ajv {
  // Required when first needed, not imported: where validators are precompiled ajv is never loaded.
  const { Ajv: AjvClass } = process.getBuiltinModule('node:module').createRequire(import.meta.url)('ajv') as { Ajv: typeof Ajv };
  // Bodies are taken as typed (a number is not a string); query and path values are text and
  // are coerced, with a single value becoming a one-item array where a list is expected.
  const ajv = new AjvClass({
    allErrors: false,
    verbose: true,
    strict: false,
    useDefaults: false,
    coerceTypes: coerce ? 'array' : false,
    // The schemas are ours (src/schema, checked by the OpenAPI tests), not a caller's: checking
    // each against JSON Schema's meta-schema would load and compile that, a fifth of a one-off
    // command on the embedded service.
    meta: false,
    validateSchema: false,
    ...(standalone ? { code: { source: true } } : {}),
  });
  ajv.addKeyword({ keyword: 'x-rule', schemaType: 'string' });
  ajv.addFormat('uuid', UUID);
  return ajv;
}

// Made on first use: a command's one request needs one of them, often neither for its body.
let bodyAjv: ReturnType<typeof makeAjv> | undefined;
let textAjv: ReturnType<typeof makeAjv> | undefined;

/**
 * fastify's validator compiler (and the in-process dispatcher's): bodies strictly typed, query
 * strings and params coerced. A schema not precompiled is compiled on its route's first request:
 * compiling them all took a fifth of the embedded service's start-up.
 */
export function compileValidator({ schema, httpPart, method, url }: { schema: object; httpPart?: string; method?: string | string[]; url?: string }) {
  let compiled: ValidateFunction | undefined = typeof method === 'string' && url && httpPart ? precompiled[validatorKey(method, url, httpPart)] : undefined;
  const validate = (data: unknown): boolean => {
    const run = (compiled ??= (httpPart === 'body' ? (bodyAjv ??= makeAjv(false)) : (textAjv ??= makeAjv(true))).compile(schema));
    const valid = run(data) as boolean;
    validate.errors = run.errors;
    return valid;
  };
  validate.errors = undefined as ValidateFunction['errors'];
  return validate;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

function fieldName(context: string, error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('')
    .replace(/^\./, '');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : '';
  const field = [path, missing].filter(Boolean).join('.');
  return field || (context === 'querystring' ? 'query' : context);
}

function rule(error: ErrorObject): string {
  const parent = (error.parentSchema ?? {}) as Record<string, unknown>;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'type': {
      const types = String(params.type).split(',');
      return `must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(' or ')}`;
    }
    case 'minimum':
    case 'maximum':
      return parent.minimum !== undefined && parent.maximum !== undefined
        ? `must be between ${String(parent.minimum)} and ${String(parent.maximum)}`
        : `must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'additionalProperties':
      return `has an unknown parameter ${String(params.additionalProperty)}`;
    case 'format':
    case 'pattern':
      return typeof parent['x-rule'] === 'string' ? parent['x-rule'] : `must match ${error.keyword} ${String(params.format ?? params.pattern)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * One line for a failed validation. Of the errors ajv collected (several when a value may take
 * one of several shapes), the deepest speaks most precisely about what is wrong.
 */
export function validationMessage(context: string, errors: ErrorObject[]): string {
  const depth = (e: ErrorObject) => e.instancePath.split('/').length + (e.keyword === 'required' ? 1 : 0);
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  // At equal depth a broken rule says more than a wrong type (which is usually the other shape
  // of a one-or-many value).
  const rank = (e: ErrorObject) => depth(e) * 2 + (e.keyword === 'type' ? 0 : 1);
  const best = [...(useful.length ? useful : errors)].sort((a, b) => rank(b) - rank(a))[0];
  if (!best) return `${context} is invalid`;
  if (best.instancePath === '' && best.keyword === 'type' && context === 'body') {
    return `body must be ${rule(best).replace(/^must be /, '')}`;
  }
  return `${fieldName(context, best)} ${rule(best)}`;
}

/** A request part (params, body, querystring) that broke its schema: its status and message. */
export function invalidAnswer(context: string, errors: ErrorObject[], invalidStatus: number | undefined): [status: number, message: string] {
  return [context === 'body' ? (invalidStatus ?? 400) : 400, validationMessage(context, errors)];
}
