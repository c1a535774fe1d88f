// Date filter bounds and given date-times: the texts DATE_BOUND_PATTERN takes (the schema's, which
// validation enforces), turned into the ISO strings the stores keep and compare.
import { DATE_BOUND_PATTERN } from '../schema/common.js';

const BOUND = new RegExp(DATE_BOUND_PATTERN);
const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ZONED = /([Zz]|[+-]\d{2}:?\d{2})$/;
const DAY_MS = 86_400_000;
/** The first and last instant a stored date may hold: years 0 to 9999. */
const FIRST = new Date(0).setUTCFullYear(0, 0, 1);
const LAST = new Date(0).setUTCFullYear(9999, 11, 31) + DAY_MS - 1;
/** `YYYY-MM-DDTHH:MM:SS.sssZ`: the stored form itself (every date the service answers). */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The instant a text of the pattern names, in ms. A plain date is the start of that day (UTC), or
 * its last millisecond as an upper bound; a date-time without a zone is taken as UTC.
 */
function instant(text: string, bound: 'start' | 'end'): number {
  if (PLAIN_DATE.test(text)) {
    const ms = new Date(0).setUTCFullYear(Number(text.slice(0, 4)), Number(text.slice(5, 7)) - 1, Number(text.slice(8, 10)));
    return bound === 'end' ? ms + DAY_MS - 1 : ms;
  }
  const zoned = ZONED.test(text) ? text : `${text}Z`;
  return Date.parse(zoned.toUpperCase().replace(' ', 'T'));
}

/**
 * The inclusive bound a filter text stands for, as the ISO string the stores compare against, or
 * null when the text is not of the pattern. Every text of the pattern is a bound: one beyond the
 * years a store keeps (0000-01-01T00:00+01:00) is clamped to them, which selects the same rows.
 */
export function parseDateBound(text: string, bound: 'start' | 'end'): string | null {
  if (!BOUND.test(text)) return null;
  if (CANONICAL.test(text)) return text;
  return new Date(Math.min(LAST, Math.max(FIRST, instant(text, bound)))).toISOString();
}

/**
 * A given date-time (an import's) in the stored form, or null when it is not of the pattern: the
 * instant it names, kept within the years a store holds as a bound is.
 */
export const normaliseDateTime = (text: string): string | null => parseDateBound(text, 'start');
