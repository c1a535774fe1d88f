// Dates for people, in one named time zone: the zone tables print in is the zone date filters are
// read in. By default that is the local zone (the process's, so TZ decides), as `git log --since`
// reads dates; `--utc` switches both to UTC. Machine formats (json, ndjson, csv, yaml) never go
// through here: they keep the server's ISO 8601 UTC strings.
//
// A filter value is turned into an exact instant here, before it reaches the client, so a server
// never has to guess the zone of a plain date:
//   2026-10-01                 that day in the zone (from 00:00 as a start, to 23:59:59.999 as an end)
//   2026-10-01T12:00 / 12:00:00 that time in the zone;  ...Z or ...+02:00: exactly that instant
//   today, yesterday           that day in the zone, like a plain date
//   now                        this instant
//   24h, 7d, -2h, 30m, 2w      that long ago (s, m = minutes, h, d = 24 hours, w = 7 days)
import { UsageError } from './errors.js';

export interface Zone {
  /** UTC (`--utc`), else the local zone. */
  utc: boolean;
  /** The zone's name, as a person reads it: `UTC`, `Europe/Paris`. */
  name: string;
}

/**
 * The zone of this run: UTC with `--utc`, else the process's local zone (TZ decides). Looked up on
 * first use: asking Intl for the local zone loads the time zone data, tens of milliseconds that
 * a command printing JSON never needs.
 */
export function timeZone(opts: { utc?: boolean } = {}): Zone {
  if (opts.utc) return { utc: true, name: 'UTC' };
  let local: Zone | undefined;
  const zone = () => (local ??= localZone());
  return {
    get utc() {
      return zone().utc;
    },
    get name() {
      return zone().name;
    },
  };
}

function localZone(): Zone {
  const local = Intl.DateTimeFormat().resolvedOptions().timeZone;
  // A process whose local zone is UTC prints UTC, whatever alias it came by (Etc/UTC, UTC0...).
  const utc = /^(Etc\/)?(UTC|GMT|Universal|Zulu)$/i.test(local ?? '') || local === undefined;
  return { utc, name: utc ? 'UTC' : local! };
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

// The last local minute formatted: a table's rows come in date order, many in the same minute.
// Its local text follows from its UTC minute (`2026-01-02T03:04`) in any zone whose offsets are
// whole minutes, as every zone's have been since 1973 (Monrovia's were -0:44:30 until 1972).
let lastZone: Zone | undefined;
let lastMinute = '';
let lastText = '';

/**
 * An instant as `2026-01-02 03:04` in the zone; text that is not a date is given back as it is.
 * Called for every date cell of a table, so UTC takes a path without Date objects, and a local
 * zone one Date a minute.
 */
export function formatInstant(iso: string, zone: Zone): string {
  const utcIso = iso.length >= 17 && iso[10] === 'T' && iso.endsWith('Z');
  if (zone.utc && utcIso) return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  const cached = !zone.utc && utcIso && iso >= '1973';
  if (cached && zone === lastZone && iso.startsWith(lastMinute)) return lastText;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const text = zone.utc
    ? `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`
    : `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  if (cached) [lastZone, lastMinute, lastText] = [zone, iso.slice(0, 16), text];
  return text;
}

/** The line that names the zone under a table. */
export function zoneNote(zone: Zone): string {
  return zone.utc ? 'Times in UTC.' : `Times in ${zone.name} (local; --utc for UTC).`;
}

const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const AGO = /^-?\d+[smhdw]$/;
const DURATION = /^(\d+)(s|m|h|d|w)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `90d`, `12h`: milliseconds, or NaN when the text is not a length of time. */
function durationMs(text: string): number {
  const m = DURATION.exec(text.trim().toLowerCase());
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : Number.NaN;
}

/** `90d`, `12h`, `2w`: a length of time in milliseconds (s, m = minutes, h, d = 24 hours, w = 7 days). */
export function parseDuration(text: string, flag: string): number {
  const ms = durationMs(text);
  if (!(ms > 0)) throw new UsageError(`invalid ${flag} "${text}": give a length of time, e.g. 90d, 12h or 2w`);
  return ms;
}

/** Milliseconds of a wall-clock time in the zone; NaN when a field is out of range. */
function wallClock(zone: Zone, y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return Number.NaN;
  const t = zone.utc ? Date.UTC(y, mo - 1, d, h, mi, s, ms) : new Date(y, mo - 1, d, h, mi, s, ms).getTime();
  // Date rolls 2026-02-30 over to March: a day that does not exist is an error, not another day.
  const check = new Date(t);
  const day = zone.utc ? check.getUTCDate() : check.getDate();
  return day === d ? t : Number.NaN;
}

/** A whole day in the zone, as the bound asks: its first or its last millisecond. */
function day(zone: Zone, y: number, mo: number, d: number, bound: 'start' | 'end'): number {
  const start = wallClock(zone, y, mo, d);
  if (Number.isNaN(start) || bound === 'start') return start;
  // The next day's start, less a millisecond: a day across a daylight-saving change is not 24 hours.
  return (zone.utc ? Date.UTC(y, mo - 1, d + 1) : new Date(y, mo - 1, d + 1).getTime()) - 1;
}

/** The calendar date of an instant in the zone. */
function ymd(zone: Zone, t: number): [number, number, number] {
  const d = new Date(t);
  return zone.utc ? [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()] : [d.getFullYear(), d.getMonth() + 1, d.getDate()];
}

/** The forms a date filter takes, for help texts and errors. */
const WHEN_FORMS = '2026-10-01, 2026-10-01T12:00, today, yesterday, now, or a time ago: 24h, 7d, -2h';

/**
 * A date filter's value as milliseconds since the epoch, or a usage error naming the flag. A day
 * (plain date, today, yesterday) is its first millisecond as a `start` bound and its last as an
 * `end` bound, so that both bounds are inclusive.
 */
export function parseWhen(text: string, bound: 'start' | 'end', flag: string, zone: Zone, now = Date.now()): number {
  const t = text.trim().toLowerCase();
  let ms = Number.NaN;
  if (t === 'now') ms = now;
  else if (t === 'today' || t === 'yesterday') {
    const [y, mo, d] = ymd(zone, now);
    // Yesterday is the day of the last millisecond before today began.
    const [yy, ymo, yd] = t === 'today' ? [y, mo, d] : ymd(zone, day(zone, y, mo, d, 'start') - 1);
    ms = day(zone, yy, ymo, yd, bound);
  } else {
    const ago = AGO.test(t);
    const plain = PLAIN_DATE.exec(t);
    const dt = DATE_TIME.exec(text.trim());
    if (ago) ms = now - durationMs(t.replace(/^-/, ''));
    else if (plain) ms = day(zone, Number(plain[1]), Number(plain[2]), Number(plain[3]), bound);
    else if (dt && dt[8]) {
      ms = Date.parse(`${text.trim().slice(0, 10)}T${text.trim().slice(11)}`.replace(/z$/, 'Z'));
    } else if (dt) {
      const frac = dt[7] ? Number(dt[7].slice(0, 3).padEnd(3, '0')) : 0;
      ms = wallClock(zone, Number(dt[1]), Number(dt[2]), Number(dt[3]), Number(dt[4]), Number(dt[5]), Number(dt[6] ?? 0), frac);
    }
  }
  if (Number.isNaN(ms)) throw new UsageError(`invalid ${flag} "${text}": give ${WHEN_FORMS}`);
  return ms;
}

