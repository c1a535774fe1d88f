// The rule for a date filter bound, which the client (client/dates.ts) and the service
// (server/store/dates.ts) both read by: a plain module, so that the client loads no schema library.
// Both bounds are inclusive (docs/spec/SEMANTICS.md).

/**
 * A date filter bound, as a pattern that says exactly which texts the server takes (it enforces
 * this very pattern): a day of the calendar (29 February only in leap years), optionally with a
 * time (seconds and fraction optional) and a zone (UTC when absent). `[0-9]`, not `\d`: in a
 * Python regex (test tools generate from this pattern) `\d` takes any script's digits.
 */
const CALENDAR_DAY =
  '(?:[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)' +
  '|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';
const TIME_OF_DAY = '[Tt ](?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,9})?)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])?';
export const DATE_BOUND_PATTERN = `^${CALENDAR_DAY}(?:${TIME_OF_DAY})?$`;

const BOUND = new RegExp(DATE_BOUND_PATTERN);
const ZONED = /([Zz]|[+-]\d{2}:?\d{2})$/;
export const DAY_MS = 86_400_000;

/**
 * The instant (ms) a bound names, or undefined when the text is not of the pattern. A plain date
 * is the start of that day (UTC), or its last millisecond as an upper bound; a date-time without
 * a zone is UTC.
 */
export function boundInstant(text: string, bound: 'start' | 'end'): number | undefined {
  if (!BOUND.test(text)) return undefined;
  if (text.length === 10) {
    const ms = new Date(0).setUTCFullYear(Number(text.slice(0, 4)), Number(text.slice(5, 7)) - 1, Number(text.slice(8, 10)));
    return bound === 'end' ? ms + DAY_MS - 1 : ms;
  }
  const ms = Date.parse((ZONED.test(text) ? text : `${text}Z`).toUpperCase().replace(' ', 'T'));
  return Number.isNaN(ms) ? undefined : ms;
}
