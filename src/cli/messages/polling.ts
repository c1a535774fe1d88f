// The polling of `chatflow messages tail <chatflowId>`: the latest messages of a chatflow and, with --follow,
// new ones as they arrive, by polling the list endpoint with a moving startDate. A readable chat
// layout on a terminal; one JSON object a line when piped.
//
// No duplicates, no gaps: startDate is inclusive, and several messages can share an instant, so
// each poll starts a little before the newest instant seen (LOOKBACK_MS: also catches a message
// committed late by another replica) and skips the ids already seen from that point on. Only ids
// newer than the start of that window are kept, so memory stays flat however long it runs.
import { ChatflowError, type ChatflowClient, type ChatMessage, type MessageListQuery } from '../../client/index.js';
import { UsageError } from '../base/errors.js';
import { millis } from '../../client/dates.js';

/** How far before the newest instant seen each poll starts again. */
const LOOKBACK_MS = 5000;

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
  // The CLI hands its filters over as instants (cli/core/filters.ts).
  const userStart = query.startDate === undefined ? undefined : millis(query.startDate);
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
