// Date filter bounds and given date-times (the texts of schema/dates.ts's rule, which validation
// enforces) turned into the ISO strings the stores keep and compare. Pure: a streamed ingest's
// parsing thread makes rows with them too (message-row.ts).
import { boundInstant, DAY_MS } from '../../schema/dates.js';

/** The first and last instant a stored date may hold: years 0 to 9999. */
const FIRST = new Date(0).setUTCFullYear(0, 0, 1);
const LAST = new Date(0).setUTCFullYear(9999, 11, 31) + DAY_MS - 1;

/**
 * The inclusive bound a filter text stands for, as the ISO string the stores compare against, or
 * null when the text is not of the pattern. Every text of the pattern is a bound: one beyond the
 * years a store keeps (0000-01-01T00:00+01:00) is clamped to them, which selects the same rows.
 */
export function parseDateBound(text: string, bound: 'start' | 'end'): string | null {
  const ms = boundInstant(text, bound);
  if (ms === undefined) return null;
  return new Date(Math.min(LAST, Math.max(FIRST, ms))).toISOString();
}

/** The digits' places in the stored form, `YYYY-MM-DDTHH:mm:ss.sssZ`. */
const DIGIT_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];
const SEPARATORS: readonly [number, string][] = [[4, '-'], [7, '-'], [10, 'T'], [13, ':'], [16, ':'], [19, '.'], [23, 'Z']];
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether `text` is the stored form of an instant: the very text `toISOString` gives for it (a
 * real day of the proleptic Gregorian calendar, years 0 to 9999, as Date counts them). Read off
 * its characters: a round trip through Date took some 1.4 µs a message on the ingest's thread.
 */
export function isStoredForm(text: string): boolean {
  if (text.length !== 24) return false;
  for (const [i, c] of SEPARATORS) if (text[i] !== c) return false;
  for (const i of DIGIT_AT) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  const n = (at: number, digits: number) => Number(text.slice(at, at + digits));
  const year = n(0, 4);
  const month = n(5, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return days !== undefined && n(8, 2) >= 1 && n(8, 2) <= days && n(11, 2) < 24 && n(14, 2) < 60 && n(17, 2) < 60;
}

/**
 * A given date-time (an import's) in the stored form, or null when it is not of the pattern: the
 * instant it names, kept within the years a store holds as a bound is. A text already in the
 * stored form (an export's, a copy's: nearly every one an import gives) is its own.
 */
export function normaliseDateTime(text: string): string | null {
  return isStoredForm(text) ? text : parseDateBound(text, 'start');
}

export const now = () => new Date().toISOString();
/** A given date in the one stored form (validation has already checked it parses). */
export const storedDate = (given: string | undefined, fallback: string) =>
  given === undefined ? fallback : (normaliseDateTime(given) ?? fallback);
