// A whole chatflow's messages from Flowise by date windows (`startDate`/`endDate`), in exact date
// order, oldest or newest first. Flowise answers a whole list only once it has built all of it (20 s
// and gigabytes of its memory at 200,000 messages), but a window costs what it returns plus a scan
// of the chatflow's rows (docs/spec/flowise-versions.md 5) and comes ordered by `createdDate` in
// SQL, messages without a session included. So: one window at a time, each sized from what the last
// one held (about TARGET messages), and no message held back.
//
// Bounds. Flowise compares dates as text on SQLite, the bound rendered `YYYY-MM-DD HH:MM:SS.SSS`,
// while some rows are stored without milliseconds (`… 12:00:00` sorts before `… 12:00:00.000`):
// a window [a, b] holds a row stored with milliseconds at t when a ≤ t ≤ b, and one stored without
// at second S when a < S ≤ b. Adjacent windows therefore share their boundary millisecond: [a, b]
// then [b, c]. A row without milliseconds is in exactly one of them; one with milliseconds at b, in
// both, and the second answer's copy is dropped (its id seen at b). On PostgreSQL (exact
// timestamps, some with microseconds) the same holds. Nothing is missed and nothing comes twice.
//
// Ends. The first window begins at the caller's start (or has none: nothing before it can be
// missed) and ends at the first message of the chatflow's earliest-ending session, found by one
// session page of one session (./session-pages.ts: cheap, and in real traffic near the first
// message). From there windows move forward until one would pass now (or the caller's end): that
// one is the last, open at the top when the caller gave no end (a message stamped later still
// comes). Newest first mirrors it: from the last message of the latest-ending session (the first
// window open at the top), backward, until a window would pass the first session's start: the
// last one is open at the bottom. Where no message has a session (no session page holds any), one
// request asks for the whole range.
import type { ChatMessage } from '../schema/resources.js';
import type { HttpCore, Normalise, QueryInput } from './core.js';
import { millis } from './dates.js';
import { sessionPages } from './session-pages.js';

/**
 * About how many messages a window aims at: each request costs Flowise a scan of the chatflow (0.2 s
 * at 200,000 messages), so fewer, larger windows cost it less; an answer is built whole in its
 * memory and parsed here as it comes, so never more than about 10,000 (a window's density varies).
 */
const TARGET = 8000;
/** The span of the first sized window; later ones grow or shrink by what the last held. */
const FIRST_SPAN = 60_000;
/** A start this close to now is read in one window (tail's polls). */
const RECENT = 10 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The next span from the last one and how many messages it held. */
function resize(span: number, count: number): number {
  // None say nothing about the density: grow, not so fast as to leap over a busy stretch.
  const factor = count === 0 ? 8 : Math.min(Math.max(TARGET / count, 1 / 8), 16);
  return Math.max(1, Math.round(span * factor));
}

/**
 * The first message of the session that ends first (`ASC`), or the last of the one that ends last
 * (`DESC`): one session page of one session (two where the sessionless group takes the first place).
 */
async function sessionEdge(core: HttpCore, apiPath: string, query: QueryInput, order: 'ASC' | 'DESC', normalise: Normalise<ChatMessage>): Promise<number | undefined> {
  for await (const page of sessionPages(core, apiPath, query, { order, limit: 1 }, normalise)) {
    const times = page.map((m) => millis(m.createdDate)).filter((t) => !Number.isNaN(t));
    if (times.length) return order === 'ASC' ? Math.min(...times) : Math.max(...times);
  }
  return undefined;
}

/**
 * The messages `query` selects between the instants `lo` and `hi` (its `startDate`/`endDate` as
 * sent to Flowise, both inclusive), a window's worth of batches at a time, in date order
 * (`order: 'DESC'`: newest first).
 */
export async function* dateWindows(
  core: HttpCore,
  apiPath: string,
  query: QueryInput,
  { from: lo, to: hi }: { from?: number | undefined; to?: number | undefined },
  normalise: Normalise<ChatMessage>,
): AsyncGenerator<ChatMessage[]> {
  const desc = String(query.order ?? '').toUpperCase() === 'DESC';
  const { startDate: _start, endDate: _end, ...filters } = query;
  const now = Date.now();
  const ask = (from: number | undefined, to: number | undefined): QueryInput => ({
    ...filters,
    ...(from !== undefined ? { startDate: iso(from) } : {}),
    ...(to !== undefined ? { endDate: iso(to) } : {}),
  });
  /** Ids of the messages at the boundary millisecond the next window shares. */
  let seen = new Set<string>();
  /** One window: its messages less those the last one had, in batches; answers how many came. */
  async function* window(from: number | undefined, to: number | undefined, edge: number | undefined): AsyncGenerator<ChatMessage[], number> {
    const next = new Set<string>();
    let count = 0;
    for await (const batch of core.streamBatches(apiPath, ask(from, to), normalise)) {
      count += batch.length;
      const fresh = seen.size ? batch.filter((m) => !seen.has(m.id)) : batch;
      if (edge !== undefined) for (const m of fresh) if (millis(m.createdDate) === edge) next.add(m.id);
      if (fresh.length) yield fresh;
    }
    seen = next;
    return count;
  }

  if (!desc) {
    // Oldest first: from the caller's start (a recent one, as tail's polls have, in one window), or
    // up to the first session's first message.
    let from = lo;
    if (lo === undefined || now - lo > RECENT) {
      const first = await sessionEdge(core, apiPath, query, 'ASC', normalise);
      if (first === undefined || (hi !== undefined && first >= hi)) return void (yield* window(lo, hi, undefined));
      yield* window(lo, first, first);
      from = first;
    }
    let span = FIRST_SPAN;
    for (;;) {
      const start = from!;
      let to: number | undefined = start + span;
      const last = to >= Math.min(hi ?? Infinity, now);
      if (last) to = hi;
      const count = yield* window(start, to, to);
      if (last) return;
      span = resize(span, count);
      from = to;
    }
  }
  // Newest first: from the last message of the latest-ending session (its window open at the top,
  // or up to the caller's end), back to the first session's first message: below it, one window.
  const latest = await sessionEdge(core, apiPath, query, 'DESC', normalise);
  if (latest === undefined) return void (yield* window(lo, hi, undefined));
  yield* window(latest, hi, latest);
  // Asked once the first rows are out: where the windows stop.
  const first = (await sessionEdge(core, apiPath, query, 'ASC', normalise)) ?? latest;
  let to = latest;
  let span = FIRST_SPAN;
  for (;;) {
    let from: number | undefined = to - span;
    const last = from <= first;
    if (last) from = lo;
    const count = yield* window(from, to, from);
    if (last) return;
    span = resize(span, count);
    to = from!;
  }
}
