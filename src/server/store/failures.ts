// Database failures that are not the request's fault: those that may pass (answered 503) and a full
// disk (507); never answered with SQL.
const UNAVAILABLE_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN', // DNS lookup failed for now
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
]);

export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  // SQLite's extended codes: SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY, SQLITE_LOCKED_SHAREDCACHE…
  if (e.code && /^SQLITE_(BUSY|LOCKED)_/.test(e.code)) return true;
  // pg's own errors carry no code: a connection lost or timed out, a pool that could not hand one out.
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable|timeout exceeded when trying to connect/i.test(
    e.message ?? '',
  );
}

/** The database cannot grow: SQLite's SQLITE_FULL, PostgreSQL's disk_full (53100). */
export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'SQLITE_FULL' || code === '53100';
}
