// `chatflow privacy find|erase`: one person's chats across chatflows. A person is found by lead
// e-mail (not a list filter of the interface: each chatflow's messages are streamed and compared
// here, holding only the chat ids found), by session id or by chat id (list filters, asked of the
// server). A chat found is taken whole, and erased by one exact delete by its chat id.
import type { Chatflow, ChatflowClient, ChatMessage } from '../../client/index.js';
import { chatflowScope } from '../core/chatflow-scope.js';
import type { privacy } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { UsageError } from '../base/errors.js';
import { plural } from '../render/text.js';
import { confirmOrRefuse } from '../core/handler-common.js';
import { planDelete } from '../messages/handlers.js';

/** Who is searched for, and where: find's flags (erase's are these and more). */
type WhoFlags = Flags<typeof privacy, 'find'>;


/** A chat holding the person's data: its messages and feedback. */
interface Chat {
  chatflowId: string;
  name: string;
  chatId: string;
  messages: number;
  feedback: number;
  first?: string;
  last?: string;
}

const CHAT_COLUMNS = ['chatflowId', 'name', 'chatId', 'messages', 'feedback', 'first', 'last'];

function criterion(opts: WhoFlags): Record<string, string> {
  const given = (['leadEmail', 'sessionId', 'chatId'] as const).filter((k) => opts[k] !== undefined);
  if (given.length !== 1) throw new UsageError('say whose data: one of --lead-email ADDRESS, --session-id ID or --chat-id ID');
  return { [given[0]!]: opts[given[0]!]! };
}

/** The chat ids of a chatflow that hold the person's data. */
async function chatIds(client: ChatflowClient, flow: string, opts: WhoFlags): Promise<Set<string>> {
  if (opts.chatId !== undefined) return new Set([opts.chatId]);
  const found = new Set<string>();
  const email = opts.leadEmail?.trim().toLowerCase();
  const source = client.messages.stream(flow, opts.sessionId !== undefined ? { sessionId: opts.sessionId } : {});
  for await (const m of source) {
    if (email === undefined || (typeof m.leadEmail === 'string' && m.leadEmail.trim().toLowerCase() === email)) found.add(m.chatId);
  }
  return found;
}

/** Each chat found, whole: its messages (by chat id) and its feedback. */
async function* chatsOf(client: ChatflowClient, flow: Chatflow, opts: WhoFlags): AsyncGenerator<Chat> {
  const ids = await chatIds(client, flow.id, opts);
  if (ids.size === 0) return;
  const feedback = new Map<string, number>();
  for await (const f of client.feedback.stream(flow.id)) if (ids.has(f.chatId)) feedback.set(f.chatId, (feedback.get(f.chatId) ?? 0) + 1);
  for (const chatId of ids) {
    const chat: Chat = { chatflowId: flow.id, name: flow.name, chatId, messages: 0, feedback: feedback.get(chatId) ?? 0 };
    for await (const m of client.messages.stream(flow.id, { chatId }) as AsyncIterable<ChatMessage>) {
      chat.messages++;
      chat.first ??= m.createdDate;
      chat.last = m.createdDate;
    }
    if (chat.messages > 0) yield chat;
  }
}

async function* everyChat(client: ChatflowClient, flows: Chatflow[], opts: WhoFlags): AsyncGenerator<Chat> {
  for (const flow of flows) yield* chatsOf(client, flow, opts);
}

export async function find(ctx: Context, opts: WhoFlags): Promise<void> {
  criterion(opts);
  const client = await ctx.client();
  const flows = await chatflowScope(client, opts, { all: true });
  let chats = 0;
  let messages = 0;
  const counted = async function* () {
    for await (const chat of everyChat(client, flows, opts)) {
      chats++;
      messages += chat.messages;
      yield chat;
    }
  };
  await ctx.printList(counted(), 'chats holding that data', CHAT_COLUMNS);
  if (chats) ctx.out.note(`${plural(chats, 'chat')}, ${plural(messages, 'message')} in ${plural(flows.length, 'chatflow')} searched`);
}

export async function erase(ctx: Context, opts: Flags<typeof privacy, 'erase'>): Promise<void> {
  const who = criterion(opts);
  const client = await ctx.client();
  const flows = await chatflowScope(client, opts, { all: true });
  const found: Chat[] = [];
  for await (const chat of everyChat(client, flows, opts)) found.push(chat);
  const total = found.reduce((n, c) => n + c.messages, 0);
  const byFlow = (chats: Chat[], count: (c: Chat) => number) =>
    flows
      .map((f) => {
        const own = chats.filter((c) => c.chatflowId === f.id);
        return { chatflowId: f.id, name: f.name, chats: own.length, messages: own.reduce((n, c) => n + count(c), 0), feedback: own.reduce((n, c) => n + c.feedback, 0) };
      })
      .filter((r) => r.chats > 0);
  if (opts.dryRun) {
    await ctx.print(found, { columns: CHAT_COLUMNS });
    return ctx.out.note(`${plural(found.length, 'chat')}, ${plural(total, 'message')} would be erased (dry run ${await ctx.target()}: nothing deleted)`);
  }
  if (found.length === 0) ctx.out.note(`No chats hold that data in ${plural(flows.length, 'chatflow')}; nothing was erased.`);
  else {
    if (!opts.yes) for (const c of byFlow(found, (c) => c.messages)) ctx.out.note(`  ${c.name === c.chatflowId ? c.chatflowId : `${c.name} (${c.chatflowId})`}: ${plural(c.chats, 'chat')}, ${plural(c.messages, 'message')}, ${c.feedback} feedback`);
    await confirmOrRefuse(`Erase ${plural(found.length, 'chat')} (${plural(total, 'message')} and their feedback)?`, opts.yes, await ctx.target());
  }
  const deleted = new Map<Chat, number>();
  for (const chat of found) {
    const plan = await planDelete(client, chat.chatflowId, { chatId: chat.chatId });
    deleted.set(chat, plan.matched ? (await client.messages.delete(chat.chatflowId, plan)).affected : 0);
  }
  const chatflows = byFlow(found, (c) => deleted.get(c) ?? 0);
  const report = {
    erasedAt: new Date().toISOString(),
    matching: who,
    chatflowsSearched: flows.length,
    chatflows,
    chats: found.map((c) => ({ chatflowId: c.chatflowId, chatId: c.chatId, messages: deleted.get(c) ?? 0, feedback: c.feedback })),
    total: { chats: found.length, messages: [...deleted.values()].reduce((a, b) => a + b, 0), feedback: found.reduce((n, c) => n + c.feedback, 0) },
  };
  // JSON and YAML: the whole report, one document to keep; a table: the counts per chatflow.
  if (ctx.out.format === 'json' || ctx.out.format === 'yaml') await ctx.print(report, { single: true });
  else await ctx.print(chatflows, { columns: ['chatflowId', 'name', 'chats', 'messages', 'feedback'] });
  if (found.length) {
    ctx.out.note(`erased ${plural(found.length, 'chat')}, ${plural(report.total.messages, 'message')} and ${report.total.feedback} feedback from ${plural(chatflows.length, 'chatflow')} at ${report.erasedAt}`);
  }
}
