// `--start-date` / `--end-date` read on the client side, with the service's rules (SEMANTICS.md,
// src/client/dates.ts): checked as flags are parsed, and read where the CLI filters or buckets
// by itself (stats, tail).
import { boundInstant } from '../client/dates.js';
import { UsageError } from './core/errors.js';

export { millis } from '../client/dates.js';

/** Milliseconds since the epoch for a bound, or a usage error naming the flag. */
export function dateBound(text: string | undefined, bound: 'start' | 'end', flag: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = boundInstant(text, bound);
  if (ms === undefined) throw new UsageError(`invalid ${flag} "${text}": give a date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`);
  return ms;
}
