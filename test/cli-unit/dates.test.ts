// One named zone: filters read in the zone the tables print in; relative times; the zone named.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatInstant, parseWhen, timeZone, zoneNote } from '../../src/cli/base/dates.js';
import { queryDates } from '../../src/cli/core/filters.js';
import { UsageError } from '../../src/cli/base/errors.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

const iso = (ms: number) => new Date(ms).toISOString();
// 2026-10-30 15:30 UTC: 11:30 in New York (EDT, UTC-4), 00:30 on the 31st in Tokyo (UTC+9).
const NOW = Date.parse('2026-10-30T15:30:00.000Z');

describe('the zone', () => {
  it('is the local one, named, or UTC with --utc', () => {
    vi.stubEnv('TZ', 'America/New_York');
    expect(timeZone()).toEqual({ utc: false, name: 'America/New_York' });
    expect(zoneNote(timeZone())).toBe('Times in America/New_York (local; --utc for UTC).');
    expect(timeZone({ utc: true })).toEqual({ utc: true, name: 'UTC' });
    expect(zoneNote(timeZone({ utc: true }))).toBe('Times in UTC.');
    vi.stubEnv('TZ', 'Etc/UTC');
    expect(timeZone()).toEqual({ utc: true, name: 'UTC' });
  });

  it('formats instants in the zone', () => {
    vi.stubEnv('TZ', 'America/New_York');
    expect(formatInstant('2026-10-30T15:30:59.000Z', timeZone())).toBe('2026-10-30 11:30');
    expect(formatInstant('2026-10-30T15:30:59.000Z', timeZone({ utc: true }))).toBe('2026-10-30 15:30');
    expect(formatInstant('2026-10-30T15:30:59+02:00', timeZone({ utc: true }))).toBe('2026-10-30 13:30');
    expect(formatInstant('not a date', timeZone())).toBe('not a date');
  });

  it('formats rows in date order minute by minute, across the hour the clocks go back', () => {
    vi.stubEnv('TZ', 'America/New_York');
    const z = timeZone();
    const rows = ['2026-11-01T05:59:00.000Z', '2026-11-01T05:59:59.999Z', '2026-11-01T06:00:00.000Z', '2026-11-01T06:00:30.000Z', '2026-11-01T06:01:00.000Z'];
    expect(rows.map((r) => formatInstant(r, z))).toEqual(['2026-11-01 01:59', '2026-11-01 01:59', '2026-11-01 01:00', '2026-11-01 01:00', '2026-11-01 01:01']);
    vi.stubEnv('TZ', 'Asia/Tokyo');
    expect(formatInstant('2026-11-01T06:01:00.000Z', timeZone())).toBe('2026-11-01 15:01');
    expect(formatInstant('2026-11-01T06:01:10.000Z', timeZone({ utc: true }))).toBe('2026-11-01 06:01');
  });
});

describe('filters in the zone', () => {
  it('a plain date is a local day, both bounds inclusive (the issue: New York started at 20:00 the day before)', () => {
    vi.stubEnv('TZ', 'America/New_York');
    const z = timeZone();
    expect(iso(parseWhen('2026-10-30', 'start', '--start-date', z))).toBe('2026-10-30T04:00:00.000Z');
    expect(iso(parseWhen('2026-10-30', 'end', '--end-date', z))).toBe('2026-10-31T03:59:59.999Z');
    // The day the clocks go back is 25 hours long.
    expect(iso(parseWhen('2026-11-01', 'end', '--end-date', z))).toBe('2026-11-02T04:59:59.999Z');
    const utc = timeZone({ utc: true });
    expect(iso(parseWhen('2026-10-30', 'start', '--start-date', utc))).toBe('2026-10-30T00:00:00.000Z');
    expect(iso(parseWhen('2026-10-30', 'end', '--end-date', utc))).toBe('2026-10-30T23:59:59.999Z');
  });

  it('a date-time without a zone is in the zone; with one, exactly that instant', () => {
    vi.stubEnv('TZ', 'Asia/Tokyo');
    const z = timeZone();
    expect(iso(parseWhen('2026-10-30T09:00', 'start', '--start-date', z))).toBe('2026-10-30T00:00:00.000Z');
    expect(iso(parseWhen('2026-10-30 09:00:30.5', 'start', '--start-date', z))).toBe('2026-10-30T00:00:30.500Z');
    expect(iso(parseWhen('2026-10-30T09:00:00Z', 'start', '--start-date', z))).toBe('2026-10-30T09:00:00.000Z');
    expect(iso(parseWhen('2026-10-30T09:00:00+02:00', 'end', '--end-date', z))).toBe('2026-10-30T07:00:00.000Z');
  });

  it('today, yesterday, now and times ago', () => {
    vi.stubEnv('TZ', 'Asia/Tokyo');
    const z = timeZone();
    // In Tokyo it is already the 31st.
    expect(iso(parseWhen('today', 'start', '--start-date', z, NOW))).toBe('2026-10-30T15:00:00.000Z');
    expect(iso(parseWhen('Today', 'end', '--end-date', z, NOW))).toBe('2026-10-31T14:59:59.999Z');
    expect(iso(parseWhen('yesterday', 'start', '--start-date', z, NOW))).toBe('2026-10-29T15:00:00.000Z');
    expect(iso(parseWhen('now', 'end', '--end-date', z, NOW))).toBe('2026-10-30T15:30:00.000Z');
    expect(iso(parseWhen('24h', 'start', '--since', z, NOW))).toBe('2026-10-29T15:30:00.000Z');
    expect(iso(parseWhen('-2h', 'start', '--start-date', z, NOW))).toBe('2026-10-30T13:30:00.000Z');
    expect(iso(parseWhen('7d', 'start', '--since', z, NOW))).toBe('2026-10-23T15:30:00.000Z');
    expect(iso(parseWhen('30m', 'start', '--since', z, NOW))).toBe('2026-10-30T15:00:00.000Z');
    expect(iso(parseWhen('1w', 'start', '--since', z, NOW))).toBe('2026-10-23T15:30:00.000Z');
    // Yesterday across a month's end.
    expect(iso(parseWhen('yesterday', 'start', '--since', timeZone({ utc: true }), Date.parse('2026-03-01T10:00:00Z')))).toBe(
      '2026-02-28T00:00:00.000Z',
    );
  });

  it('a wrong value is a usage error naming the flag and the forms', () => {
    const z = timeZone({ utc: true });
    for (const bad of ['2026-02-30', '2026-13-01', 'tomorrow', '3 days', '2026-10-30T25:00', '']) {
      expect(() => parseWhen(bad, 'start', '--since', z)).toThrow(UsageError);
    }
    expect(() => parseWhen('soon', 'end', '--end-date', z)).toThrow(
      'invalid --end-date "soon": give 2026-10-01, 2026-10-01T12:00, today, yesterday, now, or a time ago: 24h, 7d, -2h',
    );
  });

  it('queryDates: instants for the client, --since as --start-date, --until as --end-date, contradictions refused', () => {
    vi.stubEnv('TZ', 'America/New_York');
    const z = timeZone();
    expect(queryDates({ since: '2026-10-30', endDate: 'now' }, z, NOW)).toEqual({
      startDate: '2026-10-30T04:00:00.000Z',
      endDate: '2026-10-30T15:30:00.000Z',
    });
    expect(queryDates({}, z)).toEqual({});
    expect(() => queryDates({ since: '1d', startDate: '2026-01-01' }, z)).toThrow(/--since and --start-date/);
    // --until is --end-date, through the end of a day given alone.
    expect(queryDates({ since: '2026-10-29', until: '2026-10-29' }, z, NOW)).toEqual({
      startDate: '2026-10-29T04:00:00.000Z',
      endDate: '2026-10-30T03:59:59.999Z',
    });
    expect(() => queryDates({ until: '1d', endDate: '2026-01-01' }, z)).toThrow(/--until and --end-date/);
    expect(() => queryDates({ since: '2026-10-31', until: '2026-10-30' }, z)).toThrow('--since 2026-10-31 is after --until 2026-10-30: nothing can match');
    expect(() => queryDates({ startDate: '2026-10-31', endDate: '2026-10-30' }, z)).toThrow(
      '--start-date 2026-10-31 is after --end-date 2026-10-30: nothing can match',
    );
  });
});
