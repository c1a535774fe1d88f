// A chatflow's chats (one summary per chatId, newest activity first) and one chat's transcript.
// Our service sums them up itself (GET /chats/F, one query a page). Flowise has no such list: its
// session pages (`feedback=true&page&limit&order=DESC`, the view of its own "View Messages") give
// the sessions newest first with their messages and ratings; the chats are grouped in each page and
// given out once no later page can hold a chat that moved after them. Sessionless chats are never
// in a page, but their group takes a place in the paging (see session-pages.ts): from the first
// page short of sessions on, each page's date window is read for messages without a session, and
// each such chat is then read whole by its chat filter. Nothing asks Flowise for the whole list.
import type { ChatSummary } from '../schema/chats.js';
import type { ChatMessage, Feedback } from '../schema/resources.js';
import type { RouteQuery } from '../schema/routes.js';
import { CHATS_PAGE_SIZE } from '../schema/limits.js';
import { routePath } from '../schema/paths.js';
import type { HttpCore, QueryInput } from './core.js';
import { millis } from './dates.js';
import type { Dialect } from './dialect/index.js';
import { ofChatflow, plannedStream } from './listing.js';
import { normaliseMessage } from './messages.js';

export type { ChatSummary } from '../schema/chats.js';
export type ChatListQuery = Omit<RouteQuery<'listChats'>, 'chatType' | 'page' | 'limit'> & { chatType?: string | string[] };

/**
 * Sessions in the first page (a first screen at once), or one more than the chats a page of the
 * list needs (each page costs Flowise a scan: the first screen in one request); doubled up to
 * MAX_SESSIONS.
 */
const FIRST_SESSIONS = 10;
const MAX_SESSIONS = 200;

/** A chat's summary, built from its messages as they come. */
class Chat {
  first = Infinity;
  last = -Infinity;
  count = 0;
  question: { t: number; text: string } | undefined;
  head: ChatMessage | undefined;
  up = 0;
  down = 0;
  found = false;
  constructor(readonly chatId: string) {}
  add(m: ChatMessage, search: string | undefined): void {
    const t = millis(m.createdDate);
    this.count++;
    if (t < this.first) (this.first = t), (this.head = m);
    this.last = Math.max(this.last, t);
    if (m.role === 'userMessage' && (!this.question || t < this.question.t)) this.question = { t, text: m.content };
    const rating = m.feedback?.rating;
    if (rating === 'THUMBS_UP') this.up++;
    else if (rating === 'THUMBS_DOWN') this.down++;
    if (search !== undefined && !this.found) this.found = (m.content ?? '').toLowerCase().includes(search);
  }
  summary(): ChatSummary {
    return {
      chatId: this.chatId,
      sessionId: this.head?.sessionId ?? null,
      chatType: this.head?.chatType ?? '',
      firstDate: new Date(this.first).toISOString(),
      lastDate: new Date(this.last).toISOString(),
      messages: this.count,
      firstQuestion: this.question?.text ?? null,
      up: this.up,
      down: this.down,
    };
  }
}

/** Newest activity first; ties by chat id, descending, as our service orders them. */
const newestFirst = (a: Chat, b: Chat) => b.last - a.last || (a.chatId < b.chatId ? 1 : a.chatId > b.chatId ? -1 : 0);

export function chatsApi(core: HttpCore, dialect: () => Promise<Dialect>) {
  
  /** The chat's messages (the date filters applied), oldest first, each with its rating. */
  async function* transcript(flow: string, chatId: string, q: { startDate?: string; endDate?: string } = {}): AsyncGenerator<ChatMessage> {
    const d = await dialect();
    const ratings = new Map<string, Feedback>();
    for await (const f of plannedStream(core, routePath('listFeedback', flow), ofChatflow(d, flow, d.feedbackList({ chatId })))) ratings.set(f.messageId, f);
    const plan = ofChatflow(d, flow, d.messageList({ chatId, ...q }));
    for await (const m of plannedStream(core, routePath('listMessages', flow), plan, normaliseMessage)) {
      const { feedback: _f, ...rest } = m;
      yield { ...rest, feedback: ratings.get(m.id) ?? null } as ChatMessage;
    }
  }

  /** Flowise: the chats newest first, built from session pages (see the top of this file). */
  async function* flowiseChats(flow: string, d: Dialect, q: ChatListQuery, screen = 0): AsyncGenerator<ChatSummary> {
    const { search: rawSearch, feedbackType, chatIdStart, ...filters } = q;
    const search = rawSearch?.toLowerCase();
    const plan = ofChatflow(d, flow, d.messageList(filters));
    if (plan.none) return;
    // Rated chats come from the feedback list: only they are kept, and the walk ends with the last.
    let rated: Set<string> | undefined;
    if (feedbackType) {
      rated = new Set();
      for await (const f of plannedStream(core, routePath('listFeedback', flow), ofChatflow(d, flow, d.feedbackList({})))) if (f.rating === feedbackType) rated.add(f.chatId);
      if (rated.size === 0) return;
    }
    const wanted = (c: Chat) =>
      (rated === undefined || rated.has(c.chatId)) && (search === undefined || c.found) && (chatIdStart === undefined || c.chatId.startsWith(chatIdStart));
    const give = (c: Chat) => {
      rated?.delete(c.chatId);
      return c.summary();
    };
    const read = async (query: QueryInput, into: (m: ChatMessage) => void) => {
      for await (const batch of core.streamBatches(routePath('listMessages', flow), query, normaliseMessage)) for (const m of batch) if (!plan.keep || plan.keep(m)) into(m);
    };
    const userStart = filters.startDate !== undefined ? millis(filters.startDate) : -Infinity;
    const userEnd = filters.endDate !== undefined ? millis(filters.endDate) : Infinity;
    /** Sessionless chats with a message in [from, to]: each read whole, by its chat filter. */
    const seenSessionless = new Set<string>();
    const sessionless = async (from: number, to: number): Promise<Chat[]> => {
      const start = Math.max(from, userStart);
      const end = Math.min(to, userEnd);
      if (start > end) return [];
      const window = ofChatflow(d, flow, d.messageList({ ...filters, ...(start > -Infinity ? { startDate: new Date(start).toISOString() } : {}), ...(end < Infinity ? { endDate: new Date(end).toISOString() } : {}) }));
      const ids: string[] = [];
      // One request, not date windows: the span is between two pages' bounds.
      for await (const m of plannedStream(core, routePath('listMessages', flow), { ...window, windows: undefined }, normaliseMessage)) {
        if (m.sessionId == null && !seenSessionless.has(m.chatId)) seenSessionless.add(m.chatId), ids.push(m.chatId);
      }
      const chats: Chat[] = [];
      for (const chatId of ids) {
        if (rated && !rated.has(chatId)) continue;
        const chat = new Chat(chatId);
        // Sent as is: `feedback` here only adds each message's rating (a chat filter pages nothing).
        await read({ ...plan.query, chatId, feedback: true }, (m) => chat.add(m, search));
        if (chat.count > 0) chats.push(chat);
      }
      return chats;
    };

    if (filters.sessionId !== undefined) {
      // One session: its messages cost what they are; no session pages.
      const chats = new Map<string, Chat>();
      await read({ ...plan.query, feedback: true }, (m) => {
        let c = chats.get(m.chatId);
        if (!c) chats.set(m.chatId, (c = new Chat(m.chatId)));
        c.add(m, search);
      });
      for (const c of [...chats.values()].sort(newestFirst)) if (wanted(c)) yield give(c);
      return;
    }

    // (Any first size keeps the offsets exact: a page's size doubles only at a multiple of twice it.)
    let limit = Math.min(Math.max(FIRST_SESSIONS, screen + 1), MAX_SESSIONS);
    let consumed = 0;
    let seen = 0;
    let messages = 0;
    let tracking = false;
    let above = Infinity;
    let held: Chat[] = [];
    for (;;) {
      const chats = new Map<string, Chat>();
      const ends = new Map<string, number>();
      await read({ ...plan.query, feedback: true, order: 'DESC', page: consumed / limit + 1, limit }, (m) => {
        messages++;
        let c = chats.get(m.chatId);
        if (!c) chats.set(m.chatId, (c = new Chat(m.chatId)));
        c.add(m, search);
        const t = millis(m.createdDate);
        if (m.sessionId != null) ends.set(m.sessionId, Math.max(ends.get(m.sessionId) ?? -Infinity, t));
      });
      const count = ends.size;
      consumed += limit;
      seen += count;
      const bound = count > 0 ? Math.min(...ends.values()) : -Infinity;
      // A page short of sessions holds the sessionless group, or is the last: from here on each
      // page's window is read for sessionless chats too.
      if (count < limit) tracking = true;
      const found = tracking ? await sessionless(bound, above) : [];
      held = [...held, ...chats.values(), ...found].sort(newestFirst);
      const out: Chat[] = [];
      while (held.length && held[0]!.last > bound) out.push(held.shift()!);
      for (const c of out) if (wanted(c)) yield give(c);
      if (rated && rated.size === 0) return;
      if (count === 0) break;
      above = bound;
      const perSession = messages / Math.max(seen, 1);
      if (consumed % (2 * limit) === 0 && limit < MAX_SESSIONS && 2 * limit * perSession <= 5000) limit *= 2;
    }
    for (const c of held) if (wanted(c)) yield give(c);
  }

  /** The chats newest first, one by one (Flowise: read as they are given out; stop any time). */
  async function* stream(flow: string, q: ChatListQuery = {}): AsyncGenerator<ChatSummary> {
    const d = await dialect();
    if (d.kind === 'flowise') return yield* flowiseChats(flow, d, q);
    for (let page = 1; ; page++) {
      const { items } = await core.list<ChatSummary>(routePath('listChats', flow), { ...q, page, limit: 100 } as QueryInput);
      yield* items;
      if (items.length < 100) return;
    }
  }

  return {
    stream,
    /** One page of the chats; `total` where the server counts them (our service). */
    list: async (flow: string, q: ChatListQuery = {}, page: { page?: number; limit?: number } = {}): Promise<{ items: ChatSummary[]; total?: number }> => {
      const d = await dialect();
      const p = page.page ?? 1;
      const limit = page.limit ?? CHATS_PAGE_SIZE;
      if (d.kind !== 'flowise') return core.list<ChatSummary>(routePath('listChats', flow), { ...q, page: p, limit } as QueryInput);
      const items: ChatSummary[] = [];
      let skip = (p - 1) * limit;
      for await (const c of flowiseChats(flow, d, q, p * limit)) {
        if (skip > 0) {
          skip--;
          continue;
        }
        items.push(c);
        if (items.length === limit) break;
      }
      return { items };
    },
    transcript,
  };
}

export type ChatsApi = ReturnType<typeof chatsApi>;
