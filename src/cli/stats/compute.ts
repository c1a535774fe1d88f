// The figures of `chatflow stats <chatflowId>`: messages per day or hour, sessions, thumbs up/down and the most
// used tools, computed on the client from the public list endpoints (any server), streaming: the
// memory used grows with the number of periods and tools, not with the number of messages.
import type { ChatflowClient, ChatMessage, MessageListQuery } from '../../client/index.js';
import { millis } from '../../client/dates.js';
import { DistinctCounter } from './distinct.js';

export type Granularity = 'day' | 'hour';
const SPAN: Record<Granularity, number> = { day: 86_400_000, hour: 3_600_000 };
/** A range asked for with the flags is drawn whole up to this many periods; beyond, the data's range. */
const MAX_FLAG_PERIODS = 2000;

export interface PeriodStats {
  period: string;
  start: string;
  messages: number;
  sessions: number;
  up: number;
  down: number;
}

export interface ChatflowStats {
  chatflowId: string;
  by: Granularity;
  timeZone: 'UTC';
  startDate: string | null;
  endDate: string | null;
  messages: number;
  userMessages: number;
  apiMessages: number;
  sessions: number;
  sessionsApproximate?: true;
  feedback: { up: number; down: number; total: number; positiveRatio: number | null };
  tools: { tool: string; count: number }[];
  periods: PeriodStats[];
}

interface Bucket {
  messages: number;
  sessions: number;
  up: number;
  down: number;
}

export function periodLabel(start: number, by: Granularity): string {
  const iso = new Date(start).toISOString();
  return by === 'day' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00`;
}

const sessionOf = (m: ChatMessage): string | undefined => m.sessionId || m.chatId || undefined;

/** Tool names of a message's `usedTools` (an array of `{tool}`; anything else is skipped). */
function toolsOf(m: ChatMessage): string[] {
  const used = (m as { usedTools?: unknown }).usedTools;
  if (!Array.isArray(used)) return [];
  const out: string[] = [];
  for (const t of used) {
    const name = t && typeof t === 'object' ? (t as { tool?: unknown }).tool : undefined;
    if (typeof name === 'string' && name !== '') out.push(name);
  }
  return out;
}

/** Everything counted while the lists stream by; nothing of a message is kept after it is counted. */
class Aggregate {
  readonly buckets = new Map<number, Bucket>();
  readonly sessions = new DistinctCounter();
  readonly tools = new Map<string, number>();
  messages = 0;
  user = 0;
  api = 0;
  up = 0;
  down = 0;
  // Sessions per period: both servers list oldest first, so one period's set at a time.
  private current: number | undefined;
  private currentSessions = new Set<string>();

  constructor(
    readonly by: Granularity,
    readonly start: number | undefined,
    readonly end: number | undefined,
  ) {}

  private inRange(ts: number): boolean {
    return !Number.isNaN(ts) && (this.start === undefined || ts >= this.start) && (this.end === undefined || ts <= this.end);
  }

  private bucket(key: number): Bucket {
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = { messages: 0, sessions: 0, up: 0, down: 0 }));
    return b;
  }

  private closePeriod(): void {
    if (this.current !== undefined) this.bucket(this.current).sessions += this.currentSessions.size;
    this.currentSessions = new Set();
  }

  message(m: ChatMessage): void {
    const ts = millis(m.createdDate);
    if (!this.inRange(ts)) return; // a server that ignored a bound
    const key = Math.floor(ts / SPAN[this.by]);
    if (key !== this.current) {
      this.closePeriod();
      this.current = key;
    }
    this.bucket(key).messages++;
    this.messages++;
    if (m.role === 'userMessage') this.user++;
    else if (m.role === 'apiMessage') this.api++;
    const session = sessionOf(m);
    if (session !== undefined) {
      this.sessions.add(session);
      this.currentSessions.add(session);
    }
    for (const tool of toolsOf(m)) this.tools.set(tool, (this.tools.get(tool) ?? 0) + 1);
  }

  /** A message listed with its feedback: counted in the period of the message. */
  rated(m: ChatMessage): void {
    const rating = (m.feedback as { rating?: unknown } | null | undefined)?.rating;
    if (rating !== 'THUMBS_UP' && rating !== 'THUMBS_DOWN') return;
    const ts = millis(m.createdDate);
    if (!this.inRange(ts)) return;
    const b = this.bucket(Math.floor(ts / SPAN[this.by]));
    if (rating === 'THUMBS_UP') {
      b.up++;
      this.up++;
    } else {
      b.down++;
      this.down++;
    }
  }

  finish(chatflowId: string): ChatflowStats {
    this.closePeriod();
    const span = SPAN[this.by];
    let dataFirst: number | undefined;
    let dataLast: number | undefined;
    for (const k of this.buckets.keys()) {
      if (dataFirst === undefined || k < dataFirst) dataFirst = k;
      if (dataLast === undefined || k > dataLast) dataLast = k;
    }
    let first = this.start !== undefined ? Math.floor(this.start / span) : dataFirst;
    let last = this.end !== undefined ? Math.floor(this.end / span) : dataLast;
    // An open end stops at the data (or now): no run of empty periods into the future.
    if (this.end !== undefined && dataLast !== undefined) last = Math.min(last!, Math.max(dataLast, Math.floor(Date.now() / span)));
    if (first !== undefined && last !== undefined && last - first + 1 > MAX_FLAG_PERIODS) {
      first = dataFirst;
      last = dataLast;
    }
    const periods: PeriodStats[] = [];
    if (first !== undefined && last !== undefined) {
      for (let k = first; k <= last; k++) {
        const b = this.buckets.get(k) ?? { messages: 0, sessions: 0, up: 0, down: 0 };
        periods.push({ period: periodLabel(k * span, this.by), start: new Date(k * span).toISOString(), ...b });
      }
    }
    const total = this.up + this.down;
    const stats: ChatflowStats = {
      chatflowId,
      by: this.by,
      timeZone: 'UTC',
      startDate: this.start !== undefined ? new Date(this.start).toISOString() : (periods[0]?.start ?? null),
      endDate:
        this.end !== undefined
          ? new Date(this.end).toISOString()
          : last !== undefined
            ? new Date((last + 1) * span - 1).toISOString()
            : null,
      messages: this.messages,
      userMessages: this.user,
      apiMessages: this.api,
      sessions: this.sessions.size,
      feedback: { up: this.up, down: this.down, total, positiveRatio: total ? Math.round((this.up / total) * 1000) / 1000 : null },
      tools: [...this.tools.entries()].map(([tool, count]) => ({ tool, count })).sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool)),
      periods,
    };
    if (this.sessions.approximate) stats.sessionsApproximate = true;
    return stats;
  }
}

/**
 * The stats of a chatflow from two streams read side by side: every message (counts, sessions,
 * tools) and the messages that have feedback (ratings, in the period of the rated message, as
 * Flowise's own dashboard counts them).
 */
export async function computeStats(
  client: ChatflowClient,
  chatflowId: string,
  opts: { by: Granularity; start?: number; end?: number; chatType?: string[] },
): Promise<ChatflowStats> {
  const agg = new Aggregate(opts.by, opts.start, opts.end);
  const query: MessageListQuery = {
    startDate: opts.start !== undefined ? new Date(opts.start).toISOString() : undefined,
    endDate: opts.end !== undefined ? new Date(opts.end).toISOString() : undefined,
    chatType: opts.chatType,
  };
  await Promise.all([
    (async () => {
      for await (const m of client.messages.stream(chatflowId, query)) agg.message(m);
    })(),
    (async () => {
      for await (const m of client.messages.stream(chatflowId, { ...query, feedback: true })) agg.rated(m);
    })(),
  ]);
  return agg.finish(chatflowId);
}
