// A whole chatflow's messages from Flowise in bounded pieces. Flowise answers `GET /chatmessage/F`
// only once it has built the whole list (page and limit ignored: 20 s and gigabytes of its memory
// at 200,000 messages), but pages by session when `feedback` is set (how its own UI pages): page P
// of L holds every message of the P-th L sessions, the sessions in the order of their last message
// (`ORDER BY MAX(createdDate)`, flowise-versions.md 5 and its source), each message with a
// `feedback` property. So the first rows come at once and neither side holds the whole list.
//
// - Sessions per page start small (a first row at once) and double, on a boundary that keeps the
//   offsets exact, until a page holds about PAGE_MESSAGES messages.
// - Messages without a session are never in a page (`sessionId IN (…)` does not match NULL), but
//   their group takes a place in the paging: two one-session probes at the end tell whether there
//   is one (see `sessionless`), and then those messages come from the whole list, once.
// - In date order: newest first is exact (later pages hold only sessions that ended earlier, so a
//   page's earliest session end bounds everything after it). Oldest first is a look-ahead merge:
//   a later page can hold a session that began before what was already written if it is longer
//   than every session seen before it; such messages are written as they come and counted
//   (`disorder`), and the caller says so. Where every chat spans the whole list, the look-ahead
//   holds the whole list (as the one request did) before its first row.
import type { ChatMessage } from '../schema/resources.js';
import type { HttpCore, Normalise, QueryInput } from './core.js';
import { millis } from './dates.js';

/** Sessions in the first page: its rows come at once. */
const FIRST_SESSIONS = 10;
/** The most sessions a page asks for (Flowise binds each in an `IN (…)`). */
const MAX_SESSIONS = 1000;
/** About how many messages a page aims at once sessions are known. */
const PAGE_MESSAGES = 10_000;

export interface SessionPaging {
  /** Date order as asked (`ASC`/`DESC`), or any order (the cheapest: pages as they come). */
  order: 'ASC' | 'DESC' | 'any';
  /** Keep each message's `feedback` property (the caller asked for rated messages). */
  feedback: boolean;
  /** Called once at the end with how many messages came out of date order (oldest first only). */
  disorder?: (count: number) => void;
}

type Page = { messages: ChatMessage[]; sessions: Map<string, { first: number; last: number }> };

const at = (m: ChatMessage) => millis(m.createdDate);

/** Two sorted lists as one (stable: `a` first on equal dates). */
function merge(a: ChatMessage[], b: ChatMessage[], desc: boolean): ChatMessage[] {
  const out: ChatMessage[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const before = desc ? at(a[i]!) >= at(b[j]!) : at(a[i]!) <= at(b[j]!);
    out.push(before ? a[i++]! : b[j++]!);
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

export async function* sessionPages(core: HttpCore, apiPath: string, query: QueryInput, paging: SessionPaging, normalise: Normalise<ChatMessage>): AsyncGenerator<ChatMessage[]> {
  const desc = paging.order === 'DESC';
  const base: QueryInput = { ...query, feedback: true, order: undefined, page: undefined, limit: undefined };
  const strip = (m: ChatMessage): ChatMessage => {
    if (paging.feedback) return m;
    const { feedback: _f, ...rest } = m as ChatMessage & { feedback?: unknown };
    return rest as ChatMessage;
  };
  const fetch = async (page: number, limit: number, reverse = false): Promise<Page> => {
    const messages: ChatMessage[] = [];
    const sessions: Page['sessions'] = new Map();
    for await (const batch of core.streamBatches(apiPath, { ...base, ...(desc !== reverse ? { order: 'DESC' } : {}), page, limit }, normalise)) {
      for (const m of batch) {
        messages.push(strip(m));
        if (m.sessionId == null) continue;
        const t = at(m);
        const s = sessions.get(m.sessionId);
        if (!s) sessions.set(m.sessionId, { first: t, last: t });
        else (s.first = Math.min(s.first, t)), (s.last = Math.max(s.last, t));
      }
    }
    return { messages, sessions };
  };

  let limit = FIRST_SESSIONS;
  let consumed = 0;
  let seen = 0;
  let messages = 0;
  let gap = false;
  let short = false;
  let longest = 0;
  let held: ChatMessage[] = [];
  let written: number | undefined;
  let disorder = 0;
  const write = (batch: ChatMessage[]) => {
    for (const m of batch) {
      const t = at(m);
      if (written !== undefined && (desc ? t > written : t < written)) disorder++;
      written = written === undefined ? t : desc ? Math.min(written, t) : Math.max(written, t);
    }
    return batch;
  };

  // The next page is asked while this one is written; a caller that stops early leaves it unread.
  const ahead = (page: number, size: number) => {
    const p = fetch(page, size);
    p.catch(() => undefined);
    return p;
  };
  let next: Promise<Page> | undefined = ahead(1, limit);
  while (next) {
    const page = await next;
    const count = page.sessions.size;
    consumed += limit;
    seen += count;
    messages += page.messages.length;
    // A page short of sessions followed by more held the sessionless group.
    if (count === 0) next = undefined;
    else {
      if (short) gap = true;
      short = count < limit;
      const perSession = messages / Math.max(seen, 1);
      if (consumed % (2 * limit) === 0 && limit < MAX_SESSIONS && 2 * limit * perSession <= PAGE_MESSAGES) limit *= 2;
      next = ahead(consumed / limit + 1, limit);
    }
    if (paging.order === 'any') {
      if (page.messages.length) yield page.messages;
      continue;
    }
    for (const s of page.sessions.values()) longest = Math.max(longest, s.last - s.first);
    held = merge(held, page.messages, desc);
    if (!next) break;
    // What later pages can still hold: newest first, nothing after this page's earliest session
    // end; oldest first, nothing before its latest session end less the longest session seen.
    const ends = [...page.sessions.values()].map((s) => s.last);
    const bound = desc ? Math.min(...ends) : Math.max(...ends) - longest;
    let n = 0;
    while (n < held.length && (desc ? at(held[n]!) > bound : at(held[n]!) < bound)) n++;
    if (n > 0) yield write(held.splice(0, n));
  }

  // Sessionless messages: their group is in the paging if a one-session page past the sessions
  // seen finds another group, or the group at the far end (paged the other way) answers nothing.
  if (!gap) {
    const past = await fetch(seen + 1, 1);
    gap = past.messages.length > 0 || (await fetch(1, 1, true)).messages.length === 0;
  }
  if (gap) {
    const whole: QueryInput = { ...base, feedback: undefined, ...(desc ? { order: 'DESC' } : {}) };
    const rest: ChatMessage[] = [];
    for await (const batch of core.streamBatches(apiPath, { ...whole, ...(paging.feedback ? { feedback: true } : {}) }, normalise)) {
      for (const m of batch) if (m.sessionId == null) rest.push(m);
    }
    if (paging.order === 'any') {
      if (rest.length) yield rest;
    } else held = merge(held, rest, desc);
  }
  if (held.length) yield write(held);
  if (disorder > 0) paging.disorder?.(disorder);
}
