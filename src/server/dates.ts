// Date filter bounds: ISO 8601 date-times and plain dates, both bounds inclusive.
const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_PART = /^(\d{4})-(\d{2})-(\d{2})/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when year-month-day names a day of the (proleptic Gregorian) calendar: no 02-30, no 13th month. */
function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `YYYY-MM-DDTHH:MM:SS.sssZ` naming a real instant: exactly what toISOString would write. */
function isCanonical(text: string): boolean {
  if (!CANONICAL.test(text)) return false;
  const at = (from: number) => Number(text.slice(from, from + 2));
  return isCalendarDay(Number(text.slice(0, 4)), at(5), at(8)) && at(11) < 24 && at(14) < 60 && at(17) < 60;
}
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * The instant a bound stands for, as the ISO string the stores compare against, or null when
 * the text is not a date. A plain date is the start of that day (UTC) as a lower bound and its
 * last millisecond as an upper bound; a date-time without a zone is taken as UTC.
 */
export function parseDateBound(text: string, bound: 'start' | 'end'): string | null {
  // The stored form itself (every date the service answers, so every date an import sends): as is.
  if (isCanonical(text)) return text;
  const plain = PLAIN_DATE.exec(text);
  if (plain) {
    const [year, month, day] = [Number(plain[1]), Number(plain[2]), Number(plain[3])];
    if (!isCalendarDay(year, month, day)) return null;
    const ms = new Date(0).setUTCFullYear(year, month - 1, day);
    return new Date(bound === 'end' ? ms + 86_400_000 - 1 : ms).toISOString();
  }
  if (!DATE_TIME.test(text)) return null;
  const [, y, m, d] = DATE_PART.exec(text)!;
  if (!isCalendarDay(Number(y), Number(m), Number(d))) return null;
  const zoned = /([Zz]|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  if (Number.isNaN(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  return year < 0 || year > 9999 ? null : new Date(ms).toISOString();
}

/** True when the text is a usable bound (the validator's `date-bound` format). */
export const isDateBound = (text: string) => parseDateBound(text, 'start') !== null;

/** Normalises a given date-time to the stored form, or null when it is not one. */
export function normaliseDateTime(text: string): string | null {
  return parseDateBound(text, 'start');
}
