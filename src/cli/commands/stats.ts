// `chatflow stats <chatflowId>`: messages per day or hour, sessions, thumbs up/down and the most
// used tools, computed on the client from the public list endpoints (any server), streaming: the
// memory used grows with the number of periods and tools, not with the number of messages.
import chalk from 'chalk';
import type { Command } from 'commander';
import type { ChatflowClient, ChatMessage, MessageListQuery } from '../../client/index.js';
import { bar, resample, sparkline, splitBar } from '../chart.js';
import { stdoutColor, stdoutColumns } from '../color.js';
import type { Context } from '../context.js';
import { dateBound, millis } from '../date-bounds.js';
import { DistinctCounter } from '../distinct.js';
import { UsageError } from '../exit.js';
import { collect, dataCommand, examples } from '../options.js';
import { action, parseNumber, plural } from '../run.js';
import { displayWidth, groupDigits, padEnd, padStart, truncate } from '../text.js';

export type Granularity = 'day' | 'hour';
const SPAN: Record<Granularity, number> = { day: 86_400_000, hour: 3_600_000 };
/** A range asked for with the flags is drawn whole up to this many periods; beyond, the data's range. */
const MAX_FLAG_PERIODS = 2000;
/** Up to this many periods the chart has one row per period; beyond, a sparkline. */
const MAX_ROWS = 48;

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

// ---------------------------------------------------------------- drawing

interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  bar(s: string): string;
  up(s: string): string;
  down(s: string): string;
}

function paint(color: boolean): Paint {
  const id = (s: string) => s;
  return color
    ? { bold: (s) => chalk.bold(s), dim: (s) => chalk.dim(s), bar: (s) => chalk.cyan(s), up: (s) => chalk.green(s), down: (s) => chalk.red(s) }
    : { bold: id, dim: id, bar: id, up: id, down: id };
}

const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;

/** The terminal chart: a summary, one bar per period (a sparkline when there are many), top tools. */
export function renderStats(s: ChatflowStats, opts: { width: number; color: boolean; top: number }): string {
  const p = paint(opts.color);
  // One cell short of the width: a line that fills the terminal exactly wraps on some of them.
  const width = Math.max(40, opts.width) - 1;
  const lines: string[] = [];
  const unit = s.by === 'day' ? 'day' : 'hour';
  const first = s.periods[0]?.period;
  const last = s.periods[s.periods.length - 1]?.period;
  const range = first ? (first === last ? first : `${first} → ${last}`) : 'no messages';
  lines.push(p.bold(truncate(`${s.chatflowId} · ${range} · per ${unit} (UTC)`, width)));
  lines.push('');

  const label = (t: string) => p.dim(padEnd(t, 10));
  const sessions = `${groupDigits(s.sessions)}${s.sessionsApproximate ? ' (about)' : ''}`;
  lines.push(
    `${label('Messages')}${p.bold(groupDigits(s.messages))} (${groupDigits(s.userMessages)} from users, ${groupDigits(s.apiMessages)} answers) in ${sessions} ${s.sessions === 1 ? 'session' : 'sessions'}`,
  );
  const fb = s.feedback;
  if (fb.total === 0) lines.push(`${label('Feedback')}none`);
  else {
    const text = `▲ ${groupDigits(fb.up)} up  ▼ ${groupDigits(fb.down)} down  ${percent(fb.positiveRatio!)} positive`;
    const room = Math.min(30, width - 10 - displayWidth(text) - 2);
    const [u, d] = splitBar(fb.up, fb.down, room);
    lines.push(
      `${label('Feedback')}${p.up(`▲ ${groupDigits(fb.up)}`)} up  ${p.down(`▼ ${groupDigits(fb.down)}`)} down  ${p.bold(percent(fb.positiveRatio!))} positive${room > 0 ? `  ${p.up(u)}${p.down(d)}` : ''}`,
    );
  }
  const busiest = s.periods.reduce<PeriodStats | undefined>((best, x) => (x.messages > (best?.messages ?? 0) ? x : best), undefined);
  if (busiest) {
    const active = s.periods.filter((x) => x.messages > 0).length;
    lines.push(`${label('Busiest')}${busiest.period}, ${plural(busiest.messages, 'message')} · ${active} of ${plural(s.periods.length, unit)} active`);
  }
  lines.push('');

  if (s.periods.length > 0 && s.periods.length <= MAX_ROWS) lines.push(...periodRows(s, width, p));
  else if (s.periods.length > MAX_ROWS) lines.push(...periodSparkline(s, width, p));

  lines.push('');
  const tools = s.tools.slice(0, opts.top);
  if (tools.length === 0) lines.push(`${label('Tools')}none used`);
  else {
    lines.push(p.bold(`Top tools${s.tools.length > tools.length ? ` (${tools.length} of ${s.tools.length})` : ''}`));
    const nameW = Math.min(24, Math.max(...tools.map((t) => displayWidth(t.tool))));
    const countW = Math.max(...tools.map((t) => groupDigits(t.count).length));
    const barW = Math.max(5, width - 2 - nameW - 2 - countW - 2);
    const max = tools[0]!.count;
    for (const t of tools) {
      lines.push(`  ${padEnd(truncate(t.tool, nameW), nameW)}  ${padStart(groupDigits(t.count), countW)}  ${p.bar(bar(t.count, max, barW))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function periodRows(s: ChatflowStats, width: number, p: Paint): string[] {
  const labelW = s.by === 'day' ? 10 : 16;
  const num = (key: 'messages' | 'sessions' | 'up' | 'down', head: string) =>
    Math.max(head.length, ...s.periods.map((x) => groupDigits(x[key]).length));
  const mW = num('messages', 'msgs');
  const sW = num('sessions', 'sess');
  const uW = num('up', '▲');
  const dW = num('down', '▼');
  const fixed = labelW + 2 + mW + 2 + sW + 2 + uW + 2 + dW + 2;
  const barW = Math.max(5, width - fixed);
  const max = s.periods.reduce((m, x) => Math.max(m, x.messages), 0);
  const out = [
    p.dim(`${padEnd(s.by, labelW)}  ${padStart('msgs', mW)}  ${padStart('sess', sW)}  ${padStart('▲', uW)}  ${padStart('▼', dW)}`),
  ];
  for (const x of s.periods) {
    const cells = [
      padEnd(x.period, labelW),
      padStart(groupDigits(x.messages), mW),
      padStart(groupDigits(x.sessions), sW),
      x.up ? p.up(padStart(groupDigits(x.up), uW)) : padStart('·', uW),
      x.down ? p.down(padStart(groupDigits(x.down), dW)) : padStart('·', dW),
    ];
    const b = bar(x.messages, max, barW);
    out.push(`${cells.join('  ')}${b ? `  ${p.bar(b)}` : ''}`);
  }
  return out;
}

function periodSparkline(s: ChatflowStats, width: number, p: Paint): string[] {
  const { values, per } = resample(
    s.periods.map((x) => x.messages),
    width,
  );
  const unit = s.by;
  const peak = values.reduce((m, v) => Math.max(m, v), 0);
  const scale = per === 1 ? `1 column = 1 ${unit}` : `1 column = ${per} ${unit}s`;
  const out = [p.dim(`Messages per ${unit}, ${groupDigits(s.periods.length)} ${unit}s, ${scale}, peak ${groupDigits(peak)}`)];
  out.push(p.bar(sparkline(values)).replace(/\s+$/, ''));
  const from = s.periods[0]!.period;
  const to = s.periods[s.periods.length - 1]!.period;
  const gap = Math.max(1, Math.min(width, values.length) - from.length - to.length);
  out.push(p.dim(`${from}${' '.repeat(gap)}${to}`));
  return out;
}

// ---------------------------------------------------------------- the command

interface StatsFlags {
  startDate?: string;
  endDate?: string;
  by?: string;
  top?: string;
  chatType?: string[];
}

function granularity(value: string | undefined): Granularity {
  const v = (value ?? 'day').toLowerCase();
  if (v === 'day' || v === 'days' || v === 'd') return 'day';
  if (v === 'hour' || v === 'hours' || v === 'h') return 'hour';
  throw new UsageError(`invalid --by "${value}": use day or hour`);
}

export function registerStats(program: Command): void {
  dataCommand(
    program
      .command('stats')
      .description('messages per day or hour, sessions, thumbs up/down and the most used tools of a chatflow')
      .argument('<chatflowId>'),
  )
    .option('--start-date <date>', 'from this date or date-time, inclusive (a plain date is a UTC day)')
    .option('--end-date <date>', 'until this date or date-time, inclusive (a plain date means the whole day)')
    .option('--by <period>', 'one row per day or per hour (UTC)', 'day')
    .option('--chat-type <type>', 'only this chat type, e.g. EXTERNAL (repeatable)', collect)
    .option('--top <n>', 'how many tools to show in the chart', '5')
    .addHelpText(
      'after',
      examples([
        'chatflow stats <chatflowId>                                   # a chart on a terminal, JSON when piped',
        'chatflow stats <chatflowId> --start-date 2026-10-01 --end-date 2026-10-31',
        'chatflow stats <chatflowId> --by hour --start-date 2026-10-30',
        'chatflow stats <chatflowId> -o json | jq .feedback',
        'chatflow stats <chatflowId> -o csv > per-day.csv               # one row per period',
      ]) +
        '\nRatings are counted in the period of the rated message. Everything is computed from the list\n' +
        'endpoints as they stream, so it works against any server.\n',
    )
    .action(
      action(async (ctx: Context, chatflowId: string, opts: StatsFlags) => {
        const by = granularity(opts.by);
        const start = dateBound(opts.startDate, 'start', '--start-date');
        const end = dateBound(opts.endDate, 'end', '--end-date');
        if (start !== undefined && end !== undefined && start > end) throw new UsageError('--start-date is after --end-date');
        const top = parseNumber('--top', opts.top, { integer: true, min: 1, max: 100 }) ?? 5;
        const format = await ctx.format();
        const stats = await computeStats(await ctx.client(), chatflowId, { by, start, end, chatType: opts.chatType });
        if (format === 'table' && !ctx.globals.quiet && !ctx.globals.fields) {
          process.stdout.write(renderStats(stats, { width: stdoutColumns(), color: stdoutColor(), top }));
        } else if (format === 'csv' || format === 'ndjson' || ctx.globals.quiet) {
          await ctx.print(stats.periods, { idField: 'period' });
        } else {
          await ctx.print(stats, { single: true, idField: 'chatflowId' });
        }
      }),
    );
}
