// Request bodies: JSON only, parsed by the service itself so that what it refuses is named. Text
// that is not Unicode (invalid UTF-8, a lone UTF-16 surrogate) would be stored as replacement
// characters and no longer round-trip through an export; `__proto__` and `constructor` keys are
// how JSON reaches objects' prototypes; nesting is bounded so that storing and answering it never
// recurses too deep. Each is a 400 naming the field or key.
import { isUtf8 } from 'node:buffer';
import { ServiceError } from './errors.js';

/** JSON nested deeper is refused: storing and answering it would recurse once a level. */
export const MAX_JSON_DEPTH = 100;
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor']);
const REPLACEMENT = '\uFFFD';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Where a value sits: its parent's place and its key, turned into `a.b[2]` only for an error. */
interface Place {
  parent: Place | undefined;
  key: string | number;
}
const fieldPath = (place: Place | undefined, at: string): string => {
  if (!place) return at;
  const parent = fieldPath(place.parent, at);
  return typeof place.key === 'number' ? `${parent}[${place.key}]` : parent ? `${parent}.${place.key}` : place.key;
};

/**
 * Throws a 400 for the first thing in a parsed JSON value the service refuses (see above),
 * naming where it is; `at` names the value itself (empty for the whole body). With
 * `replaced`, a U+FFFD marks bytes that were not UTF-8. Paths are put together only for the
 * error: an ingest of 10,000 messages checks every value of every one.
 */
export function checkJson(value: unknown, at = '', replaced = false): void {
  const stack: [unknown, Place | undefined, number][] = [[value, undefined, 1]];
  const named = (place: Place | undefined) => fieldPath(place, at) || 'body';
  while (stack.length) {
    const [v, place, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (replaced && v.includes(REPLACEMENT)) throw new ServiceError(400, `${named(place)} is not valid UTF-8`);
      if (LONE_SURROGATE.test(v)) throw new ServiceError(400, `${named(place)} holds a lone UTF-16 surrogate: text must be valid Unicode`);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) throw new ServiceError(400, `body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], { parent: place, key: i }, depth + 1]);
      continue;
    }
    for (const key of Object.keys(v)) {
      const inner: Place = { parent: place, key };
      if (FORBIDDEN_KEYS.has(key)) throw new ServiceError(400, `${fieldPath(inner, at)}: the key ${key} is refused (it reaches an object's prototype); rename it`);
      if ((replaced && key.includes(REPLACEMENT)) || LONE_SURROGATE.test(key)) throw new ServiceError(400, `${named(place)} has a key that is not valid Unicode`);
      stack.push([(v as Record<string, unknown>)[key], inner, depth + 1]);
    }
  }
}

/** fastify's parser for application/json bodies (given as a Buffer). */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new ServiceError(400, 'body is empty: send a JSON value');
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    // Only where: V8's message may quote the body (and a key a client put in it).
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new ServiceError(400, `body is not valid JSON${at ? ` (at character ${at})` : ''}`);
  }
  const replaced = !isUtf8(raw);
  checkJson(value, '', replaced);
  // Bytes that are not UTF-8 outside any string would not have parsed; said all the same.
  if (replaced) throw new ServiceError(400, 'body is not valid UTF-8');
  return value;
}
