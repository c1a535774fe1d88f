// `--start-date` / `--end-date` read on the client side, with the service's rules (SEMANTICS.md):
// a plain date is that whole UTC day (its start as a lower bound, its last millisecond as an
// upper bound), a date-time without a zone is UTC. Used where the CLI filters or buckets by
// itself (stats, tail), so that a server that ignores a bound (Flowise) gives the same answer.
import { UsageError } from './core/errors.js';

const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** Milliseconds since the epoch for a bound, or a usage error naming the flag. */
export function dateBound(text: string | undefined, bound: 'start' | 'end', flag: string): number | undefined {
  if (text === undefined) return undefined;
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
  throw new UsageError(`invalid ${flag} "${text}": give a date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`);
}

/** A record's date as milliseconds (NaN when missing or unreadable). */
export const millis = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN);
