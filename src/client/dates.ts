// Date filter bounds read as SEMANTICS.md decides: ISO 8601 date-times and plain dates, both bounds
// inclusive; a plain date is that whole UTC day (its start as a lower bound, its last millisecond
// as an upper bound); a date-time without a zone is UTC. The client reads them itself so that it
// can say what a bound means to a server that reads it otherwise (Flowise takes a plain date as
// midnight) and so that an unreadable date is refused on every server (Flowise ignores it).
import { ChatflowError } from './errors.js';

const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** Milliseconds since the epoch a bound stands for, or undefined when the text is not a date. */
function boundInstant(text: string, bound: 'start' | 'end'): number | undefined {
  const t = text.trim();
  const plain = PLAIN_DATE.exec(t);
  if (plain) {
    const ms = Date.UTC(Number(plain[1]), Number(plain[2]) - 1, Number(plain[3]));
    const d = new Date(ms);
    if (d.getUTCDate() === Number(plain[3]) && d.getUTCMonth() === Number(plain[2]) - 1) return bound === 'end' ? ms + 86_400_000 - 1 : ms;
  } else if (DATE_TIME.test(t)) {
    const zoned = /([Zz]|[+-]\d{2}:?\d{2})$/.test(t) ? t : `${t}Z`;
    const ms = Date.parse(zoned.replace(' ', 'T'));
    if (!Number.isNaN(ms)) return ms;
  }
  return undefined;
}

/** The instants of a query's `startDate`/`endDate`; an unreadable one is a usage error (exit 2). */
export function dateRange(q: { startDate?: string | undefined; endDate?: string | undefined }): { start?: number; end?: number } {
  const read = (text: string | undefined, bound: 'start' | 'end', name: string) => {
    if (text === undefined) return undefined;
    const ms = boundInstant(text, bound);
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
