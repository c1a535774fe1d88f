// Flowise's session pages: with `feedback` set, `page=P&limit=L` answers every message of the P-th
// L sessions of those the filters match, the sessions in the order of their *last* message
// (`ORDER BY MAX(createdDate)`, docs/spec/flowise-versions.md 5 and its source), each message with
// a `feedback` property. It is how Flowise's own UI lists conversations, newest first; it cannot
// give a whole chatflow in date order (a chat that comes back over weeks spans many pages), which
// ./date-windows.ts does. Messages without a session are never in a page (`sessionId IN (…)` does
// not match NULL), but their group takes one place in the paging.
import type { ChatMessage } from '../schema/resources.js';
import type { HttpCore, Normalise, QueryInput } from './core.js';

export interface SessionPaging {
  /** `DESC`: the session that ended last first. */
  order: 'ASC' | 'DESC';
  /** Sessions a page. */
  limit: number;
}

/** Each page's messages (in date order within it), page after page, until the sessions run out. */
export async function* sessionPages(core: HttpCore, apiPath: string, query: QueryInput, paging: SessionPaging, normalise: Normalise<ChatMessage>): AsyncGenerator<ChatMessage[]> {
  const { order: _order, page: _page, limit: _limit, ...filters } = query;
  let short = false;
  for (let page = 1; ; page++) {
    const sessions = new Set<string>();
    const messages: ChatMessage[] = [];
    const q: QueryInput = { ...filters, feedback: true, ...(paging.order === 'DESC' ? { order: 'DESC' } : {}), page, limit: paging.limit };
    for await (const batch of core.streamBatches(apiPath, q, normalise)) {
      for (const m of batch) {
        if (m.sessionId != null) sessions.add(m.sessionId);
        messages.push(m);
      }
    }
    if (messages.length) yield messages;
    // A page short of more than the sessionless group's one place, or two short pages, end it.
    if (sessions.size < paging.limit - 1 || (short && sessions.size < paging.limit)) return;
    short = sessions.size < paging.limit;
  }
}
