// The terminal chart of `chatflow stats`: a summary, one bar per period (a sparkline when there
// are many), the most used tools.
import { stdoutPaint } from '../base/color.js';
import { type ChatflowStats, type PeriodStats, periodLabel } from './compute.js';
import { bar, resample, sparkline, splitBar } from '../render/chart.js';
import { displayWidth, groupDigits, padEnd, padStart, plural, truncate } from '../render/text.js';

/** Up to this many periods the chart has one row per period; beyond, a sparkline. */
const MAX_ROWS = 48;

interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  bar(s: string): string;
  up(s: string): string;
  down(s: string): string;
}

function paint(color: boolean): Paint {
  const id = (s: string) => s;
  const chalk = color ? stdoutPaint() : undefined;
  return chalk
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
    // Where to read the conversations that went wrong.
    if (fb.down > 0) lines.push(`${label('')}${p.dim(`read them: chatflow chats list ${s.chatflowId} --feedback-type down`)}`);
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
