// Building blocks shared by every resource schema. The server validates with these, the OpenAPI
// document is generated from them, and the client's types are derived from them.
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { DATE_BOUND_PATTERN } from './dates.js';
import { MAX_PAGE, MAX_PAGE_SIZE } from './limits.js';

/** A string restricted to a fixed set of values (a JSON Schema `enum`, friendlier than anyOf). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A value that may also be `null` (Flowise exports carry nulls for unset fields). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** Server-generated identifiers are UUID v4; path ids of such records must look like one. */
export const Uuid = Type.String({ format: 'uuid', 'x-rule': 'must be a UUID' });
/** Ids kept from imported data (messages, upsert history) and chatflow ids are free-form. */
export const FreeId = Type.String({ minLength: 1, maxLength: 255 });
/** Dates always go out as ISO 8601 UTC with milliseconds. */
export const DateTime = Type.String({ format: 'date-time', examples: ['2026-01-02T03:04:05.000Z'] });
const DATE_RULE = 'must be an ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00Z)';
/** Date filter bound: an ISO 8601 date-time or a plain date; both bounds are inclusive. */
export const DateBound = Type.String({ pattern: DATE_BOUND_PATTERN, examples: ['2026-01-31', '2026-01-31T12:00:00Z'], 'x-rule': DATE_RULE });
/** A date an import keeps (createdDate…): the same texts, stored as the instant they name. */
export const DateInput = Type.String({ pattern: DATE_BOUND_PATTERN, examples: ['2026-01-02T03:04:05.000Z'], 'x-rule': DATE_RULE });

import { SORT_ORDERS } from './enums.js';

export type SortOrder = (typeof SORT_ORDERS)[number];
/** `asc`/`desc` in any case (Flowise only honours the exact `DESC`). */
export const SortOrderParam = Type.String({
  pattern: '^([aA][sS][cC]|[dD][eE][sS][cC])$',
  'x-rule': 'must be asc or desc',
});

const QUERY_BOOLEANS = ['true', 'false', '1', '0'] as const;
export const QueryBoolean = StringEnum(QUERY_BOOLEANS);

export const Pagination = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: 'Page number, from 1; the total is in X-Total-Count' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Page size' })),
};

export const ErrorBody = Type.Object({
  statusCode: Type.Integer(),
  success: Type.Literal(false),
  message: Type.String(),
});

export const Affected = Type.Object({ affected: Type.Integer({ minimum: 0 }) });

export const IdParam = Type.Object({ id: Uuid });
export const ChatflowIdParam = Type.Object({ id: FreeId });
