// `chatflow serve` handler: the service over HTTP, SQLite by default, PostgreSQL with --database-url.
import type { serve as def } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { UsageError } from '../base/errors.js';
import { serverKeysFromFile } from '../base/keys.js';
import { parseDuration } from '../base/dates.js';


/**
 * `--retain 90d --retain flow1=30d --retain flow2=forever` (and CHATFLOW_RETAIN, comma-separated,
 * read first so that flags win): the period for every chatflow, and each one's own.
 */
function retentionOf(given: readonly string[]): { keepMs?: number; chatflows: Record<string, number | null> } | undefined {
  let keepMs: number | undefined;
  const chatflows: Record<string, number | null> = {};
  for (const item of given) {
    const eq = item.lastIndexOf('=');
    const [id, period] = eq < 0 ? [undefined, item] : [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
    if (id === '') throw new UsageError(`invalid --retain "${item}": give a period (90d) or CHATFLOW_ID=period (flow1=30d, flow1=forever)`);
    const ms = period === 'forever' ? null : parseDuration(period, '--retain');
    if (id === undefined) {
      if (ms === null) throw new UsageError('--retain forever is the default: give a period (90d), or CHATFLOW_ID=forever to exempt one chatflow');
      keepMs = ms;
    } else chatflows[id] = ms;
  }
  return given.length ? { ...(keepMs !== undefined ? { keepMs } : {}), chatflows } : undefined;
}

const isLoopback = (host: string) => /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i.test(host);

function integer(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`invalid ${name} "${text}": give a whole number from ${min} to ${max}`);
  return n;
}

export async function serve(ctx: Context, opts: Flags<typeof def>): Promise<void> {
  const port = integer('--port', opts.port, 0, 65535);
  const bodyLimit = integer('--body-limit', opts.bodyLimit, 1024, 1024 ** 3);
  const poolSize = integer('--pool-size', opts.poolSize, 1, 1000);
  const fromFile = opts.apiKeyFile
    ? await serverKeysFromFile(opts.apiKeyFile, (key) =>
        ctx.out.note(`chatflow: generated an API key and saved it in ${opts.apiKeyFile} (mode 600); shown this once:\n${key}`),
      )
    : [];
  const keys = [
    ...(opts.apiKey ?? []),
    ...fromFile,
    ...(process.env.CHATFLOW_API_KEYS ?? '').split(',').map((k) => k.trim()),
  ].filter(Boolean);
  if (!isLoopback(opts.host) && keys.length === 0 && !opts.allowUnauthenticated) {
    throw new UsageError(
      `refusing to listen on ${opts.host} without an API key: give --api-key-file FILE (a new one gets a generated key) or CHATFLOW_API_KEYS, or --allow-unauthenticated on a trusted network`,
    );
  }
  const retention = retentionOf([...(process.env.CHATFLOW_RETAIN ?? '').split(',').map((r) => r.trim()).filter(Boolean), ...(opts.retain ?? [])]);
  const [{ startServer }, { openStore }, { defaultDbPath }] = await Promise.all([
    import('../../server/app.js'),
    import('../../server/open-store.js'),
    import('../../server/default-db.js'),
  ]);
  const dbPath = opts.db ?? defaultDbPath();
  const store = await openStore({ dbPath, databaseUrl: opts.databaseUrl, poolSize, otherFile: '--db or CHATFLOW_DB', withoutSqlite: 'use PostgreSQL with --database-url' });
  const log = opts.log ? (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`) : undefined;
  let server;
  try {
    const logRetention = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
    server = await startServer({ store, host: opts.host, port, apiKeys: keys, bodyLimit, log, ...(retention ? { retention: { ...retention, log: logRetention } } : {}) });
  } catch (err) {
    await store.close();
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(`port ${port} on ${opts.host} is already in use: stop the other process or choose another with --port (0 picks a free one)`);
    }
    if (code === 'EACCES') throw new UsageError(`not permitted to listen on port ${port}: choose a port above 1023 with --port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${opts.host}: no such local address`);
    throw err;
  }
  const where = opts.databaseUrl ? 'PostgreSQL' : dbPath;
  ctx.out.write(`chatflow service listening on ${server.url} (database: ${where}${keys.length ? ', API key required' : ''})\n`);
  if (retention) ctx.out.note(`retention: ${describeRetention(retention)}, checked at start and hourly`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      ctx.out.note(`${signal}: finishing requests and closing the database…`);
      server.close().then(resolve, (err: unknown) => {
        ctx.out.note(`error while stopping: ${(err as Error).message}`);
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

function describeRetention(r: NonNullable<ReturnType<typeof retentionOf>>): string {
  const units = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const;
  const days = (ms: number | null) => {
    if (ms === null) return 'for ever';
    const [unit, size] = units.find(([, size]) => ms % size === 0) ?? ['s', 1000];
    return `${ms / size}${unit}`;
  };
  const own = Object.entries(r.chatflows).map(([id, ms]) => `${id}: ${days(ms)}`);
  return [`messages kept ${r.keepMs !== undefined ? days(r.keepMs) : 'for ever'}`, ...own].join('; ');
}
