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

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/**
 * Bytes only checkJson would refuse, given that the body is UTF-8: a lone surrogate is written as
 * a `\u` escape, and so may be a key; a forbidden key otherwise appears as it is.
 */
const CHECKED = [Buffer.from('\\u'), ...[...FORBIDDEN_KEYS].map((key) => Buffer.from(key))];

/**
 * The byte ranges (start, end, start, end…) of the items of a body that is one JSON array nested
 * at most MAX_JSON_DEPTH deep, or undefined (then it is parsed whole). A scan of the structure
 * only, skipping strings by their closing quote: JSON.parse still checks each item.
 */
function arrayItems(raw: Buffer): number[] | undefined {
  const n = raw.length;
  let i = 0;
  while (isSpace(raw[i])) i++;
  if (raw[i] !== 0x5b) return undefined;
  const bounds: number[] = [];
  let depth = 0;
  let start = i + 1;
  // (Byte by byte: a loop of comparisons ran faster than looking for each closing quote.)
  for (; i < n; i++) {
    const c = raw[i];
    if (c === 0x22) {
      // A string, to its closing quote; an escape's next byte is never that quote.
      for (i++; ; i++) {
        const d = raw[i];
        if (d === 0x22) break;
        if (d === 0x5c) i++;
        else if (d === undefined) return undefined;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return undefined;
    } else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) {
        // (A mismatched inner one makes its item fail to parse; this one has no item.)
        if (c !== 0x5d) return undefined;
        bounds.push(start, i++);
        break;
      }
    } else if (c === 0x2c && depth === 1) {
      bounds.push(start, i);
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  for (; i < n; i++) if (!isSpace(raw[i])) return undefined;
  // `[]`: one empty item.
  if (bounds.length === 2 && raw.subarray(bounds[0], bounds[1]).every((c) => isSpace(c))) return [];
  return bounds;
}

/**
 * A JSON array item by item: each item decoded and parsed on its own. Decoding a body of
 * megabytes into one string (two bytes a character as soon as one is not Latin-1) and parsing it
 * took several times as long as the items one by one, most of an ingest's time in the service.
 * Undefined when an item does not parse (the whole body is then parsed, for the error's place).
 */
function parseItems(raw: Buffer, bounds: number[]): unknown[] | undefined {
  const items = new Array<unknown>(bounds.length / 2);
  try {
    for (let k = 0; k < bounds.length; k += 2) items[k / 2] = JSON.parse(raw.toString('utf8', bounds[k], bounds[k + 1]));
  } catch {
    return undefined;
  }
  return items;
}

/**
 * Whether `raw` holds at most MAX_JSON_DEPTH opening brackets, inside strings or not: then no
 * value in it is nested deeper (an exact bound, and a few searches of native code).
 */
function fewBrackets(raw: Buffer): boolean {
  let count = 0;
  for (const bracket of [0x7b, 0x5b]) {
    for (let i = raw.indexOf(bracket); i >= 0; i = raw.indexOf(bracket, i + 1)) if (++count > MAX_JSON_DEPTH) return false;
  }
  return true;
}

function parseWhole(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    // Only where: V8's message may quote the body (and a key a client put in it).
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new ServiceError(400, `body is not valid JSON${at ? ` (at character ${at})` : ''}`);
  }
}

/** fastify's parser for application/json bodies (given as a Buffer). */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new ServiceError(400, 'body is empty: send a JSON value');
  const replaced = !isUtf8(raw);
  // UTF-8 with nothing checkJson refuses is not walked again when its depth is bounded: an
  // array's by the scan (its items parsed one by one), any value's by its count of brackets (a
  // streamed ingest's line, one record: the walk took some 2 µs of its parsing thread's time).
  if (!replaced && !CHECKED.some((bytes) => raw.includes(bytes))) {
    const bounds = arrayItems(raw);
    const items = bounds && parseItems(raw, bounds);
    if (items) return items;
    if (!bounds && fewBrackets(raw)) return parseWhole(raw);
  }
  const value = parseWhole(raw);
  checkJson(value, '', replaced);
  // Bytes that are not UTF-8 outside any string would not have parsed; said all the same.
  if (replaced) throw new ServiceError(400, 'body is not valid UTF-8');
  return value;
}
