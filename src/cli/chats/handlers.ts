// `chatflow chats list|show` handlers: the client's chats (client/chats.ts), a table of them, and
// one chat as tail's layout (render/chat-view.ts), Markdown or JSON.
import type { ChatListQuery, ChatMessage, ChatSummary, ChatflowClient } from '../../client/index.js';
import { millis } from '../../client/dates.js';
import type { chats } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { messageQuery } from '../core/filters.js';
import { pick, type Named } from '../base/names.js';
import { redactJson } from '../base/redact.js';
import { chatMarkdown } from '../render/chat-markdown.js';
import { ChatView } from '../render/chat-view.js';
import type { ListView } from '../render/list-table.js';
import { plural } from '../render/text.js';
import { parseInterval, tailMessages } from '../messages/polling.js';
import { pageFlags, sayIfNoChatflow } from '../core/handler-common.js';

type ListFlags = Flags<typeof chats, 'list'>;

/**
 * With --follow, the messages since the transcript's last are read first (those already printed
 * skipped): one that came between the two reads is printed, not lost.
 */
const FOLLOW_CATCH_UP = 1000;


/** How long ago, as a person says it: `now`, `5m`, `3h`, `2d`, then the date. */
export function ago(iso: unknown, now = Date.now()): string {
  const t = millis(String(iso));
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, (now - t) / 1000);
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  if (s < 30 * 86400) return `${Math.floor(s / 86400)}d ago`;
  return String(iso).slice(0, 10);
}

const CHAT_TABLE: ListView = {
  columns: [
    { key: 'chatId', kind: 'id' },
    { key: 'lastDate', header: 'last', kind: 'label', cell: ago },
    { key: 'firstDate', header: 'started', kind: 'label', cell: ago },
    { key: 'messages', header: 'msgs', kind: 'label' },
    { key: 'firstQuestion', header: 'first question', kind: 'text' },
    { key: 'up', header: '▲', kind: 'label', cell: (v) => (v ? `▲ ${String(v)}` : '') },
    { key: 'down', header: '▼', kind: 'label', cell: (v) => (v ? `▼ ${String(v)}` : '') },
    { key: 'chatType', kind: 'label' },
  ],
  priority: ['chatId', 'lastDate', 'firstQuestion', 'down', 'up', 'messages', 'firstDate', 'chatType'],
};

function chatQuery(ctx: Context, opts: ListFlags): ChatListQuery {
  const f = messageQuery(opts, ctx.out.zone);
  return { chatType: f.chatType, sessionId: f.sessionId, startDate: f.startDate, endDate: f.endDate, feedbackType: f.feedbackType, search: opts.search };
}

export async function list(ctx: Context, chatflowId: string, opts: ListFlags): Promise<void> {
  const client = await ctx.client();
  const page = pageFlags(opts);
  const { items, total } = await client.chats.list(chatflowId, chatQuery(ctx, opts), { page: page.page, limit: page.limit });
  // -q: the chat ids, one a line (what `chats show` and `messages list --chat-id` take).
  const n = ctx.flags.quiet ? (ctx.out.write(items.map((c) => `${c.chatId}\n`).join('')), items.length) : await ctx.printList(items, 'chats', CHAT_TABLE);
  if (n > 0 && total !== undefined && total > n) ctx.out.note(`${plural(total, 'chat')} in all (--limit, --page for more)`);
  if (n === 0) await sayIfNoChatflow(ctx, chatflowId);
}

/** The chat `text` names: an id, or the one id starting with it (names.ts's rule). */
async function chatOf(client: ChatflowClient, chatflowId: string, text: string): Promise<string> {
  // A whole id is one chat filter (cheap on every server); a start of one walks the chats (on
  // Flowise, every session page: give the whole id there on a big chatflow).
  for await (const _ of client.messages.stream(chatflowId, { chatId: text, limit: 1 })) return text;
  const kind: Named<ChatSummary> = { noun: 'chat', all: (c) => c.chats.stream(chatflowId, { chatIdStart: text }), id: (c) => c.chatId, name: () => undefined };
  const found: ChatSummary[] = [];
  for await (const c of kind.all(client)) found.push(c);
  return pick(kind, found, text).chatId;
}

export async function show(ctx: Context, chatflowId: string, chat: string, opts: Flags<typeof chats, 'show'>): Promise<void> {
  const client = await ctx.client();
  const chatId = await chatOf(client, chatflowId, chat);
  const intervalMs = opts.follow ? parseInterval(opts.interval ?? '2s') : 0;
  const clean = (m: ChatMessage): ChatMessage => (opts.redact ? (JSON.parse(redactJson(JSON.stringify(m))) as ChatMessage) : m);
  const messages: ChatMessage[] = [];
  for await (const m of client.chats.transcript(chatflowId, chatId)) messages.push(clean(m));
  const format = ctx.out.format;
  const view = new ChatView({ width: ctx.out.columns, color: ctx.out.color });
  if (opts.markdown) ctx.out.write(chatMarkdown(chatflowId, chatId, messages));
  else if (format === 'table' && !ctx.flags.quiet) await ctx.out.writePaged(messages.map((m) => view.render(m)).join(''));
  else if (!opts.follow) await ctx.print(messages);
  if (!opts.follow) return;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  try {
    const last = messages.at(-1)?.createdDate;
    const seen = new Set(messages.map((m) => m.id));
    const json = format !== 'table' || opts.markdown;
    if (json && !opts.markdown) for (const m of messages) ctx.out.write(`${JSON.stringify(m)}\n`);
    if (process.stderr.isTTY) ctx.out.note(`following chat ${chatId} every ${opts.interval ?? '2s'}; Ctrl-C to stop`);
    for await (const m of tailMessages(client, chatflowId, { chatId, ...(last ? { startDate: last } : {}) }, { lines: FOLLOW_CATCH_UP, follow: true, intervalMs, signal: stop.signal })) {
      if (seen.has(m.id)) continue;
      seen.add(m.id);
      const shown = clean(m);
      ctx.out.write(opts.markdown ? chatMarkdown(chatflowId, chatId, [shown]).split('\n').slice(3).join('\n') : json ? `${JSON.stringify(shown)}\n` : view.render(shown));
    }
  } finally {
    process.off('SIGINT', onSignal);
  }
}
