// A date filter bound is read by one match of the pattern (schema/dates.ts#boundInstant): the
// instant it names is the one Date.parse gives the same text (a plain date the whole UTC day),
// for every form the pattern takes: years 0 to 9999, `T`, `t` or a space, seconds and fractions or
// none, UTC, `z` or an offset with or without its colon.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundInstant, DATE_BOUND_PATTERN } from '../../src/schema/dates.js';
import { isStoredForm, normaliseDateTime, parseDateBound } from '../../src/server/store/dates.js';

const two = (n: number) => String(n).padStart(2, '0');

const dateTime = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    sep: fc.constantFrom('T', 't', ' '),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.option(fc.integer({ min: 0, max: 59 })),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,9}$/)),
    zone: fc.constantFrom('', 'Z', 'z', '+01:00', '-05:30', '+0130', '-2359', '+23:59'),
  })
  .map(({ year, month, day, sep, hour, minute, second, fraction, zone }) => {
    const seconds = second === null ? '' : `:${two(second)}${fraction === null ? '' : `.${fraction}`}`;
    return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}${sep}${two(hour)}:${two(minute)}${seconds}${zone}`;
  });

/** What Date.parse makes of the text, read as UTC where it names no zone. */
const parsed = (text: string) => Date.parse((/([Zz]|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`).toUpperCase().replace(' ', 'T'));

describe('a date bound, read once', () => {
  it('names the instant Date.parse gives the same text, for every form of the pattern', () => {
    fc.assert(
      fc.property(dateTime, (text) => {
        expect(text).toMatch(new RegExp(DATE_BOUND_PATTERN));
        expect(boundInstant(text, 'start')).toBe(parsed(text));
        expect(boundInstant(text, 'end')).toBe(parsed(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('a plain date is its whole UTC day; a text off the pattern is none; the stored form is kept as it is', () => {
    expect(boundInstant('2024-02-29', 'start')).toBe(Date.parse('2024-02-29T00:00:00.000Z'));
    expect(boundInstant('2024-02-29', 'end')).toBe(Date.parse('2024-02-29T23:59:59.999Z'));
    expect(boundInstant('0099-12-31', 'start')).toBe(Date.parse('0099-12-31T00:00:00.000Z'));
    for (const text of ['2023-02-29', '2026-1-01', '2026-01-01T24:00', '2026-01-01T10:00+24:00', ' 2026-01-01']) expect(boundInstant(text, 'start')).toBeUndefined();
    expect(parseDateBound('2026-03-01T10:20:30.456Z', 'start')).toBe('2026-03-01T10:20:30.456Z');
    expect(parseDateBound('0000-01-01T00:30:00+01:00', 'start')).toBe('0000-01-01T00:00:00.000Z');
  });

  it('the stored form is told by its characters exactly as a round trip through Date tells it', () => {
    // Every digit anywhere its place allows, so that days past a month's end, February 29 of
    // every kind of year, hour 24 and second 60 come up often.
    const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
    const shaped = fc
      .tuple(digits(4, 9999), digits(2, 19), digits(2, 39), digits(2, 29), digits(2, 69), digits(2, 69), digits(3, 999))
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
    const roundTrip = (text: string) => {
      const ms = Date.parse(text);
      return ms === ms && new Date(ms).toISOString() === text;
    };
    fc.assert(
      fc.property(shaped, (text) => {
        expect(isStoredForm(text)).toBe(roundTrip(text));
        expect(normaliseDateTime(text)).toBe(roundTrip(text) ? text : parseDateBound(text, 'start'));
      }),
      { numRuns: 20_000 },
    );
    for (const text of ['2024-02-29T00:00:00.000Z', '2000-02-29T23:59:59.999Z', '0000-02-29T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) expect(isStoredForm(text)).toBe(true);
    for (const text of ['1900-02-29T00:00:00.000Z', '2023-02-29T00:00:00.000Z', '2026-04-31T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:00:60.000Z', '2026-01-01T00:00:00.000z', '2026-01-01 00:00:00.000Z', '+02026-01-01T00:00:00.000Z'])
      expect(isStoredForm(text)).toBe(roundTrip(text));
  });
});
