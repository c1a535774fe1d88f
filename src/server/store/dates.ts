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

/**
 * A given date-time (an import's) in the stored form, or null when it is not of the pattern: the
 * instant it names, kept within the years a store holds as a bound is.
 */
export function normaliseDateTime(text: string): string | null {
  // A text already in the stored form (an export's, a copy's: nearly every one an import gives)
  // is its own: it is the ISO string of the instant it names. Some 1 µs less a message than the
  // pattern's match, on the thread that writes.
  if (text.length === 24) {
    const ms = Date.parse(text);
    if (ms === ms && new Date(ms).toISOString() === text) return text;
  }
  return parseDateBound(text, 'start');
}

export const now = () => new Date().toISOString();
/** A given date in the one stored form (validation has already checked it parses). */
export const storedDate = (given: string | undefined, fallback: string) =>
  given === undefined ? fallback : (normaliseDateTime(given) ?? fallback);
