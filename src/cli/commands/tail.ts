// `chatflow messages tail <chatflowId>`: the latest messages of a chatflow and, with --follow,
// new ones as they arrive, by polling the list endpoint with a moving startDate. A readable chat
// layout on a terminal; one JSON object a line when piped.
//
// No duplicates, no gaps: startDate is inclusive, and several messages can share an instant, so
// each poll starts a little before the newest instant seen (LOOKBACK_MS: also catches a message
// committed late by another replica) and skips the ids already seen from that point on. Only ids
// newer than the start of that window are kept, so memory stays flat however long it runs.
import type { Command } from 'commander';
import { ChatflowError, type ChatflowClient, type ChatMessage, type MessageListQuery } from '../../client/index.js';
import { ChatView } from '../chat-view.js';
import { stdoutColor, stdoutColumns } from '../color.js';
import type { Context } from '../context.js';
import { dateBound, millis } from '../date-bounds.js';
import { UsageError } from '../exit.js';
import { messageFilterFlags, messageQuery, type MessageFilterFlags } from '../filters.js';
import { dataCommand, examples } from '../options.js';
import { getPath, printNote, printWarning, writeRecords } from '../output.js';
import { action, parseNumber } from '../run.js';
import { sanitize } from '../text.js';

/** How far before the newest instant seen each poll starts again. */
export const LOOKBACK_MS = 5000;

/** `2s`, `200ms`, `1.5s`, `1m`, or a plain number of seconds; at least 50ms. */
export function parseInterval(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/i.exec(text);
  const n = m ? Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 's').toLowerCase() as 'ms' | 's' | 'm']) : Number.NaN;
  if (!Number.isFinite(n) || n < 50 || n > 3_600_000) throw new UsageError(`invalid --interval "${text}": give a duration from 50ms to 1h, e.g. 2s or 500ms`);
  return Math.round(n);
}

/** Waits `ms`, or less when the signal fires. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** A failed poll worth trying again: the server is away for a moment. */
function transient(err: unknown): boolean {
  if (!(err instanceof ChatflowError)) return false;
  return err.kind === 'network' || err.kind === 'timeout' || err.status === 429 || err.status === 502 || err.status === 503 || err.status === 504;
}

const byDate = (a: { ts: number; id: string }, b: { ts: number; id: string }) => a.ts - b.ts || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export interface TailOptions {
  lines: number;
  follow: boolean;
  intervalMs: number;
  signal: AbortSignal;
  lookbackMs?: number;
  /** The latest are out; following starts. */
  onCaughtUp?: () => void;
  /** A poll failed for a moment (the loop goes on); `null` when polls work again. */
  onTransient?: (err: ChatflowError | null) => void;
}

/**
 * The latest `lines` messages oldest first, then (with `follow`) each new message once, until the
 * signal fires. The latest are read newest first (`order=DESC`, which Flowise honours, read only
 * as far as needed); a server that ignores the order is still read right, to the end.
 */
export async function* tailMessages(client: ChatflowClient, chatflowId: string, query: MessageListQuery, opts: TailOptions): AsyncGenerator<ChatMessage> {
  const lookback = opts.lookbackMs ?? LOOKBACK_MS;
  const userStart = dateBound(query.startDate, 'start', '--start-date');
  /** Ids seen with their instants, for instants at or after `newest - lookback`. */
  const seen = new Map<string, number>();
  let newest: number | undefined;
  const prune = () => {
    if (newest === undefined) return;
    for (const [id, ts] of seen) if (ts < newest - lookback) seen.delete(id);
  };

  // The latest N, kept sorted oldest first.
  const latest: { ts: number; id: string; m: ChatMessage }[] = [];
  let descending = true;
  let previous: number | undefined;
  for await (const m of client.messages.stream(chatflowId, { ...query, order: 'desc' })) {
    const ts = millis(m.createdDate);
    if (Number.isNaN(ts)) continue;
    if (previous !== undefined && ts > previous) descending = false;
    previous = ts;
    if (newest === undefined || ts > newest) {
      newest = ts;
      prune();
    }
    if (ts >= newest - lookback) seen.set(m.id, ts);
    if (opts.lines > 0) {
      const entry = { ts, id: m.id, m };
      if (latest.length < opts.lines) {
        latest.push(entry);
        latest.sort(byDate);
      } else if (byDate(entry, latest[0]!) > 0) {
        latest[0] = entry;
        latest.sort(byDate);
      }
    }
    // Newest first: once past the window and with N in hand, the rest is older.
    if (descending && ts < newest - lookback && latest.length >= opts.lines) break;
  }
  for (const e of latest) {
    if (opts.signal.aborted) return;
    yield e.m;
  }
  latest.length = 0;
  if (!opts.follow) return;
  opts.onCaughtUp?.();

  let failing = false;
  while (!opts.signal.aborted) {
    await sleep(opts.intervalMs, opts.signal);
    if (opts.signal.aborted) return;
    const cutoff = newest === undefined ? userStart : Math.max(newest - lookback, userStart ?? -Infinity);
    let pollNewest = newest;
    try {
      for await (const m of client.messages.stream(chatflowId, { ...query, startDate: cutoff === undefined ? query.startDate : new Date(cutoff).toISOString() })) {
        const ts = millis(m.createdDate);
        if (Number.isNaN(ts) || (cutoff !== undefined && ts < cutoff)) continue; // a server that ignored startDate
        if (seen.has(m.id)) continue;
        seen.set(m.id, ts);
        if (pollNewest === undefined || ts > pollNewest) pollNewest = ts;
        yield m;
      }
      if (failing) opts.onTransient?.(null);
      failing = false;
    } catch (err) {
      if (!transient(err)) throw err;
      if (!failing) opts.onTransient?.(err as ChatflowError);
      failing = true;
    }
    // Messages yielded before a failure are in `seen`, so moving on is safe either way.
    if (pollNewest !== newest) {
      newest = pollNewest;
      prune();
    }
  }
}

interface TailFlags extends MessageFilterFlags {
  follow?: boolean;
  interval?: string;
  lines?: string;
}

/** Writes and waits for 'drain' when stdout's buffer is full. */
function write(chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.stdout.write(chunk)) return resolve();
    const onDrain = () => {
      process.stdout.off('error', onError);
      resolve();
    };
    const onError = (err: unknown) => {
      process.stdout.off('drain', onDrain);
      reject(err);
    };
    process.stdout.once('drain', onDrain);
    process.stdout.once('error', onError);
  });
}

/** One line of the chosen fields, for `--fields` on a terminal. */
function fieldLine(m: ChatMessage, fields: string[]): string {
  return fields
    .map((f) => {
      const v = getPath(m, f);
      return v === null || v === undefined ? '' : sanitize(typeof v === 'object' ? JSON.stringify(v) : String(v));
    })
    .join('  ');
}

export function registerTail(group: Command): void {
  messageFilterFlags(
    dataCommand(
      group
        .command('tail')
        .description('show the latest messages of a chatflow and, with --follow, new ones as they arrive')
        .argument('<chatflowId>'),
    ),
  )
    .option('-f, --follow', 'keep polling and print new messages as they arrive (Ctrl-C stops)')
    .option('--interval <duration>', 'time between polls with --follow, e.g. 2s or 500ms', '2s')
    .option('-n, --lines <n>', 'how many of the latest messages to show first', '20')
    .addHelpText(
      'after',
      examples([
        'chatflow messages tail <chatflowId>                       # the last 20 messages',
        'chatflow messages tail <chatflowId> -f                    # and new ones as they arrive',
        'chatflow messages tail <chatflowId> -f --session-id s1 -n 0',
        'chatflow messages tail <chatflowId> -f --interval 500ms | jq -r .content   # one JSON object a line',
      ]),
    )
    .action(
      action(async (ctx: Context, chatflowId: string, opts: TailFlags) => {
        const lines = parseNumber('--lines', opts.lines, { integer: true, min: 0, max: 100_000 }) ?? 20;
        const intervalMs = parseInterval(opts.interval ?? '2s');
        const filters = messageQuery(opts);
        dateBound(filters.startDate, 'start', '--start-date');
        const query: MessageListQuery = { ...filters, feedback: filters.feedbackType !== undefined ? true : undefined };
        let format = await ctx.format();
        // Piped, a never-ending list is one JSON object a line; -o json without --follow is an array.
        if (format === 'json' && (opts.follow || (!ctx.globals.output && !ctx.globals.json))) format = 'ndjson';
        const client = await ctx.client();

        const stop = new AbortController();
        const onSignal = () => {
          stop.abort();
          // A poll stuck on a server that does not answer must not keep Ctrl-C waiting.
          setTimeout(() => process.exit(0), 1500).unref();
        };
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        // A reader that went away (`| head`): stop quietly.
        const onStdoutError = (err: NodeJS.ErrnoException) => {
          if (err.code === 'EPIPE') stop.abort();
        };
        process.stdout.on('error', onStdoutError);
        const messages = tailMessages(client, chatflowId, query, {
          lines,
          follow: opts.follow === true,
          intervalMs,
          signal: stop.signal,
          onCaughtUp: () => {
            if (process.stderr.isTTY) printNote(`following ${chatflowId} every ${opts.interval ?? '2s'}; Ctrl-C to stop`);
          },
          onTransient: (err) =>
            err ? printWarning(`${err.message}; trying again every ${opts.interval ?? '2s'}`) : printNote('reconnected'),
        });
        try {
          if (format === 'table' && !ctx.globals.quiet) {
            const fields = ctx.globals.fields?.split(',').map((f) => f.trim()).filter(Boolean);
            const view = new ChatView({ width: stdoutColumns(), color: stdoutColor() });
            let n = 0;
            for await (const m of messages) {
              await write(fields?.length ? `${fieldLine(m, fields)}\n` : view.render(m));
              n++;
            }
            if (n === 0 && !opts.follow) printNote('No messages found.');
          } else {
            const n = await writeRecords(messages, {
              format,
              fields: ctx.globals.fields?.split(',').map((f) => f.trim()).filter(Boolean),
              quiet: ctx.globals.quiet,
              columns: ['createdDate', 'role', 'sessionId', 'content', 'id'],
            });
            if (n === 0 && !opts.follow && format !== 'json') printNote('No messages found.');
          }
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EPIPE' || stop.signal.aborted) return;
          throw err;
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          process.stdout.off('error', onStdoutError);
        }
      }),
    );
}
