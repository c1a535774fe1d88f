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
const HOUR = '[01][0-9]|2[0-3]';
const MINUTE = '[0-5][0-9]';
const ZONE = `[Zz]|[+-](?:${HOUR}):?${MINUTE}`;
/** A time of day, each part through `part`: a group that captures (BOUND) or only groups (the pattern). */
const timeOfDay = (part: (p: string) => string) =>
  `[Tt ]${part(HOUR)}:${part(MINUTE)}(?::${part(MINUTE)}(?:\\.${part('[0-9]{1,9}')})?)?${part(ZONE)}?`;
export const DATE_BOUND_PATTERN = `^${CALENDAR_DAY}(?:${timeOfDay((p) => `(?:${p})`)})?$`;

/** The pattern again, its parts captured: a bound is read by one match. */
const BOUND = new RegExp(`^(${CALENDAR_DAY})(?:${timeOfDay((p) => `(${p})`)})?$`);
export const DAY_MS = 86_400_000;

/**
 * The instant (ms) a bound names, or undefined when the text is not of the pattern: read by one
 * match, its parts as the match gives them. A plain date is the start of that day (UTC), or its
 * last millisecond as an upper bound; a date-time without a zone is UTC; a fraction of a second
 * counts to the millisecond (as Date.parse counts it: the rest dropped).
 */
export function boundInstant(text: string, bound: 'start' | 'end'): number | undefined {
  const parts = BOUND.exec(text);
  if (!parts) return undefined;
  const [, day = '', hour, minute, second, fraction, zone] = parts;
  // (setUTCFullYear, not Date.UTC, which takes years 0-99 for 1900-1999.)
  const midnight = new Date(0).setUTCFullYear(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
  if (hour === undefined) return bound === 'end' ? midnight + DAY_MS - 1 : midnight;
  const offset = !zone || zone.length === 1 ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  const ms = fraction === undefined ? 0 : Number(`${fraction}00`.slice(0, 3));
  return midnight + ((Number(hour) * 60 + Number(minute) - offset) * 60 + Number(second ?? 0)) * 1000 + ms;
}
