// The readable layout of `messages tail` on a terminal: a rule naming the session (and the day)
// whenever it changes, then one block per message: time, role, content wrapped to the width,
// and the tools it used and its rating. Colour through chalk, only when colour is on. With
// --fields, one line of those fields a message instead (fieldLine).
import { stdoutPaint } from '../base/color.js';
import type { ChatMessage } from '../../client/index.js';
import { millis } from '../../client/dates.js';
import { getPath } from './records.js';
import { displayWidth, padEnd, sanitize, truncate, wrap } from './text.js';

const pad2 = (n: number) => String(n).padStart(2, '0');
const localDay = (d: Date) => `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
const localTime = (d: Date) => `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;

const ROLE_W = 4;
const TIME_W = 8;
const GUTTER = TIME_W + 2 + ROLE_W + 2;
const UP = '▲ rated up';
const DOWN = '▼ rated down';

function roleLabel(role: string): string {
  if (role === 'userMessage') return 'user';
  if (role === 'apiMessage') return 'bot';
  return truncate(sanitize(role), ROLE_W);
}

/** One line of the chosen fields, for `--fields` on a terminal. */
export function fieldLine(m: ChatMessage, fields: string[]): string {
  return fields
    .map((f) => {
      const v = getPath(m, f);
      return v === null || v === undefined ? '' : sanitize(typeof v === 'object' ? JSON.stringify(v) : String(v));
    })
    .join('  ');
}

export class ChatView {
  private session: string | undefined;
  private day: string | undefined;

  constructor(private readonly opts: { width: number; color: boolean }) {}

  /** The lines of one message (with a rule before it when the session or day changed), ending in \n. */
  render(m: ChatMessage): string {
    const chalk = this.opts.color ? stdoutPaint() : undefined;
    const color = chalk !== undefined;
    const width = Math.max(40, this.opts.width);
    const out: string[] = [];
    const ts = millis(m.createdDate);
    const date = Number.isNaN(ts) ? undefined : new Date(ts);
    const day = date ? localDay(date) : '';
    const session = sanitize(String(m.sessionId || m.chatId || '-'));
    if (session !== this.session || day !== this.day) {
      const parts = [`session ${session}`];
      if (m.chatType) parts.push(sanitize(String(m.chatType)));
      if (day) parts.push(day);
      const text = truncate(parts.join(' · '), width - 4);
      const rule = `── ${text} ${'─'.repeat(Math.max(0, width - displayWidth(text) - 4))}`;
      if (this.session !== undefined) out.push('');
      out.push(color ? chalk.dim(rule) : rule);
      this.session = session;
      this.day = day;
    }
    const time = padEnd(date ? localTime(date) : '--:--:--', TIME_W);
    const role = padEnd(roleLabel(m.role), ROLE_W);
    const roleText = color ? (m.role === 'userMessage' ? chalk.cyan.bold(role) : m.role === 'apiMessage' ? chalk.green.bold(role) : chalk.bold(role)) : role;
    const textWidth = Math.max(20, width - GUTTER);
    const body = wrap(m.content ?? '', textWidth);
    const indent = ' '.repeat(GUTTER);
    out.push(`${color ? chalk.dim(time) : time}  ${roleText}  ${body[0]}`.trimEnd());
    for (const line of body.slice(1)) out.push(`${indent}${line}`.trimEnd());

    const extras: string[] = [];
    const tools = toolNames(m);
    if (tools.length) extras.push(`tools: ${tools.join(', ')}`);
    const docs = sources(m);
    if (docs.length) extras.push(`sources: ${docs.join(', ')}`);
    if (extras.length) {
      const line = truncate(extras.join('   '), textWidth);
      out.push(`${indent}${color ? chalk.dim(line) : line}`);
    }
    // The rating and its comment under the answer, the comment wrapped (it is what was wrong).
    const fb = m.feedback as { rating?: string; content?: string | null } | null | undefined;
    if (fb?.rating === 'THUMBS_UP' || fb?.rating === 'THUMBS_DOWN') {
      const label = fb.rating === 'THUMBS_UP' ? UP : DOWN;
      const lines = wrap(`${label}${fb.content ? ` "${fb.content}"` : ''}`, textWidth);
      lines.forEach((line, i) => {
        const text = color ? (i === 0 ? line.replace(label, fb.rating === 'THUMBS_UP' ? chalk.green(label) : chalk.red(label)) : chalk.dim(line)) : line;
        out.push(`${indent}${text}`);
      });
    }
    return `${out.join('\n')}\n`;
  }
}

export function toolNames(m: ChatMessage): string[] {
  const used = (m as { usedTools?: unknown }).usedTools;
  if (!Array.isArray(used)) return [];
  return used
    .map((t) => (t && typeof t === 'object' ? (t as { tool?: unknown }).tool : undefined))
    .filter((t): t is string => typeof t === 'string' && t !== '')
    .map((t) => sanitize(t));
}

/** The sources an answer cites (`sourceDocuments`): each document's source or title, once. */
export function sources(m: ChatMessage): string[] {
  const docs = (m as { sourceDocuments?: unknown }).sourceDocuments;
  if (!Array.isArray(docs)) return [];
  const names = docs.map((d) => {
    const meta = d && typeof d === 'object' ? ((d as { metadata?: Record<string, unknown> }).metadata ?? {}) : {};
    const name = meta.source ?? meta.title ?? meta.url;
    return typeof name === 'string' && name !== '' ? sanitize(name) : undefined;
  });
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}
