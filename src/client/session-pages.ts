// A whole chatflow's messages from Flowise in bounded pieces. Flowise answers `GET /chatmessage/F`
// only once it has built the whole list (page and limit ignored: 20 s and gigabytes of its memory
// at 200,000 messages), but pages by session when `feedback` is set (how its own UI pages): page P
// of L holds every message of the P-th L sessions, the sessions in the order of their last message
// (`ORDER BY MAX(createdDate)`, docs/spec/flowise-versions.md 5 and its source), each message with a
// `feedback` property. So the first rows come at once and neither side holds the whole list.
//
// - Sessions per page start small (a first row at once) and double, on a boundary that keeps the
//   offsets exact, until a page holds about PAGE_MESSAGES messages. One page is asked at a time.
// - Messages without a session are never in a page (`sessionId IN (…)` does not match NULL), but
//   their group takes a place in the paging: two one-session probes at the end tell whether there
//   is one (see `sessionless`), and then those messages come from the whole list, once.
// - In date order: newest first is exact (later pages hold only sessions that ended earlier, so a
//   page's earliest session end bounds everything after it). Oldest first is a look-ahead merge,
//   written as it is read: a later page can hold a session that began before what was already
//   written only if it is longer than every session seen before it; such messages are written as
//   they come and counted (`disorder`), and the caller says so. Where every chat spans the whole
//   list, the look-ahead holds the whole list (as the one request did) before its first row.
import type { ChatMessage } from '../schema/resources.js';
import type { HttpCore, Normalise, QueryInput } from './core.js';
import { millis } from './dates.js';

/** Sessions in the first page: its rows come at once. */
const FIRST_SESSIONS = 10;
/** The most sessions a page asks for (Flowise binds each in an `IN (…)`). */
const MAX_SESSIONS = 5000;
/**
 * About how many messages a page aims at once sessions are known: each page costs Flowise a scan
 * of the chatflow to group its sessions (fewer, larger pages cost it less), and the client one
 * page's answer in memory (Flowise writes it on one line: it is parsed whole).
 */
const PAGE_MESSAGES = 10_000;

export interface SessionPaging {
  /** Date order as asked (`ASC`/`DESC`), or any order (the cheapest: pages as they come). */
  order: 'ASC' | 'DESC' | 'any';
  /** Keep each message's `feedback` property (the caller asked for rated messages). */
  feedback: boolean;
  /** Called once at the end with how many messages came out of date order (oldest first only). */
  disorder?: (count: number) => void;
}

/** A message with its date read once (a merge compares each many times). */
type Held = { m: ChatMessage; t: number };
const held = (m: ChatMessage): Held => ({ m, t: millis(m.createdDate) });

/** Sorted messages taken from the front (an index, not a shift: pages are long). */
class Queue {
  private head = 0;
  constructor(private items: Held[] = []) {}
  get size() {
    return this.items.length - this.head;
  }
  peek(): Held | undefined {
    return this.items[this.head];
  }
  take(): Held {
    const m = this.items[this.head++]!;
    if (this.head > 4096 && this.head * 2 > this.items.length) (this.items = this.items.slice(this.head)), (this.head = 0);
    return m;
  }
  push(h: Held): void {
    this.items.push(h);
  }
  rest(): Held[] {
    return this.items.slice(this.head);
  }
}

/** Two sorted lists as one (stable: `a` first on equal dates). */
function merge(a: Held[], b: Held[], desc: boolean): Held[] {
  const out: Held[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const before = desc ? a[i]!.t >= b[j]!.t : a[i]!.t <= b[j]!.t;
    out.push(before ? a[i++]! : b[j++]!);
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

export async function* sessionPages(core: HttpCore, apiPath: string, query: QueryInput, paging: SessionPaging, normalise: Normalise<ChatMessage>): AsyncGenerator<ChatMessage[]> {
  const desc = paging.order === 'DESC';
  const any = paging.order === 'any';
  const base: QueryInput = { ...query, feedback: true, order: undefined, page: undefined, limit: undefined };
  const strip = (m: ChatMessage): ChatMessage => {
    if (paging.feedback) return m;
    const { feedback: _f, ...rest } = m as ChatMessage & { feedback?: unknown };
    return rest as ChatMessage;
  };
  const pageQuery = (page: number, limit: number, reverse = false): QueryInput => ({ ...base, ...(desc !== reverse ? { order: 'DESC' } : {}), page, limit });
  /** How many messages one page of `limit` sessions holds (a probe's). */
  const probe = async (page: number, reverse = false): Promise<number> => {
    let n = 0;
    for await (const batch of core.streamBatches(apiPath, pageQuery(page, 1, reverse), normalise)) n += batch.length;
    return n;
  };

  let limit = FIRST_SESSIONS;
  let consumed = 0;
  let seen = 0;
  let messages = 0;
  let gap = false;
  let short = false;
  let longest = 0;
  /** Read, not yet written (sorted): of earlier pages, and of this one. */
  let waiting = new Queue();
  let written: number | undefined;
  let disorder = 0;
  const write = (batch: Held[]): ChatMessage[] =>
    batch.map(({ m, t }) => {
      if (written !== undefined && (desc ? t > written : t < written)) disorder++;
      written = written === undefined ? t : desc ? Math.min(written, t) : Math.max(written, t);
      return m;
    });

  for (;;) {
    /** This page's sessions, and in date order each one's first and last message. */
    const sessions = new Set<string>();
    const spans = new Map<string, { first: number; last: number }>();
    const page = new Queue();
    for await (const batch of core.streamBatches(apiPath, pageQuery(consumed / limit + 1, limit), normalise)) {
      if (any) {
        const out = batch.map(strip);
        messages += out.length;
        for (const m of out) if (m.sessionId != null) sessions.add(m.sessionId);
        if (out.length) yield out;
        continue;
      }
      let latest = 0;
      for (const raw of batch) {
        const h = held(strip(raw));
        messages++;
        latest = h.t;
        if (h.m.sessionId != null) {
          sessions.add(h.m.sessionId);
          const s = spans.get(h.m.sessionId);
          if (!s) spans.set(h.m.sessionId, { first: h.t, last: h.t });
          else (s.first = Math.min(s.first, h.t)), (s.last = Math.max(s.last, h.t)), (longest = Math.max(longest, s.last - s.first));
        }
        page.push(h);
      }
      if (desc || batch.length === 0) continue;
      // Oldest first: a page comes in date order, and later pages hold only sessions that end after
      // the latest message read, so nothing before it less the longest session seen.
      const bound = latest - longest;
      const out: Held[] = [];
      while (true) {
        const a = waiting.peek();
        const b = page.peek();
        const next = a && (!b || a.t <= b.t) ? a : b;
        if (!next || next.t >= bound) break;
        out.push(next === a ? waiting.take() : page.take());
      }
      if (out.length) yield write(out);
    }
    const count = sessions.size;
    consumed += limit;
    seen += count;
    if (!any) waiting = new Queue(merge(waiting.rest(), page.rest(), desc));
    if (count === 0) break;
    // A page short of sessions followed by more held the sessionless group.
    if (short) gap = true;
    short = count < limit;
    if (desc) {
      // Newest first: later pages hold only sessions that ended before every one of this page.
      const bound = Math.min(...[...spans.values()].map((s) => s.last));
      const out: Held[] = [];
      while (waiting.size && waiting.peek()!.t > bound) out.push(waiting.take());
      if (out.length) yield write(out);
    }
    const perSession = messages / Math.max(seen, 1);
    if (consumed % (2 * limit) === 0 && limit < MAX_SESSIONS && 2 * limit * perSession <= PAGE_MESSAGES) limit *= 2;
  }

  // Sessionless messages: their group is in the paging if a one-session page past the sessions
  // seen finds another group, or the group at the far end (paged the other way) answers nothing.
  if (!gap) gap = (await probe(seen + 1)) > 0 || (await probe(1, true)) === 0;
  if (gap) {
    const whole: QueryInput = { ...base, feedback: paging.feedback ? true : undefined, ...(desc ? { order: 'DESC' } : {}) };
    const rest: ChatMessage[] = [];
    for await (const batch of core.streamBatches(apiPath, whole, normalise)) {
      for (const m of batch) if (m.sessionId == null) rest.push(m);
    }
    if (any) {
      if (rest.length) yield rest;
    } else waiting = new Queue(merge(waiting.rest(), rest.map(held), desc));
  }
  if (waiting.size) yield write(waiting.rest());
  if (disorder > 0) paging.disorder?.(disorder);
}
