// Date filter bounds read by the service's own rule (schema/dates.ts): ISO 8601 date-times and
// plain dates, both bounds inclusive. The client reads them itself so that it
// can say what a bound means to a server that reads it otherwise (Flowise takes a plain date as
// midnight) and so that an unreadable date is refused on every server (Flowise ignores it).
import { boundInstant } from '../schema/dates.js';
import { ChatflowError } from './errors.js';

/** The instants of a query's `startDate`/`endDate`; an unreadable one is a usage error (exit 2). */
export function boundInstants(q: { startDate?: string | undefined; endDate?: string | undefined }): { start?: number; end?: number } {
  const read = (text: string | undefined, bound: 'start' | 'end', name: string) => {
    if (text === undefined) return undefined;
    const ms = boundInstant(text.trim(), bound);
    if (ms === undefined) {
      throw new ChatflowError('refused', `invalid ${name} "${text}": give a date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`, {
        code: 'INVALID_DATE',
      });
    }
    return ms;
  };
  const start = read(q.startDate, 'start', 'startDate');
  const end = read(q.endDate, 'end', 'endDate');
  return { ...(start !== undefined ? { start } : {}), ...(end !== undefined ? { end } : {}) };
}

/** A record's date as milliseconds (NaN when missing or unreadable). */
export const millis = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN);
