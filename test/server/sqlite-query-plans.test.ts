// The chat-message filters must stay index range scans on SQLite. With an exact-match filter
// (sessionId, chatId) and a date range, the index that starts with that filter must be used: the
// date index instead scans every message of the range (bench/messages-filter.js at 1,000,000
// messages: sessionId + 30 days ≈ 260 ms a request instead of ≈ 3 ms; a one-year range ≈ 5 s).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyStore } from '../../src/server/store/kysely-store.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { Database as Tables } from '../../src/server/store/tables.js';
import type { MessageFilter, PageRequest } from '../../src/server/store/types.js';
import { openSqliteFile } from '../helpers/sqlite-file.js';

const FLOW = 'plan-flow';

describe('SQLite query plans of message lists', () => {
  let dir: string;
  let path: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatflow-plans-'));
    path = join(dir, 'chatflow.db');
    const store = await openSqliteStore(path);
    const start = Date.UTC(2025, 0, 1);
    const messages = Array.from({ length: 4000 }, (_, i) => ({
      id: `m-${i}`,
      role: 'apiMessage' as const,
      sessionId: `s-${i % 80}`,
      chatId: `c-${i % 80}`,
      chatType: i % 5 ? 'INTERNAL' : 'EXTERNAL',
      memoryType: 'bufferMemory',
      createdDate: new Date(start + ((i * 7919) % 4000) * 7_884_000).toISOString(),
    }));
    await store.messages.ingest(FLOW, messages);
    await store.close();
    // Opened and closed again, as a restarted service would (room for open-time maintenance).
    await (await openSqliteStore(path)).close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The plan of every query the store runs for this list (SQL captured from kysely's log). */
  async function plans(filter: Omit<MessageFilter, 'chatflowid'>, page: PageRequest = {}, streamed: 'rows' | 'texts' = 'rows'): Promise<string[]> {
    const queries: { sql: string; parameters: readonly unknown[] }[] = [];
    const sqlite = openSqliteFile(path, { readonly: true });
    const db = new Kysely<Tables>({
      dialect: new SqliteDialect({ database: sqlite }),
      log: (event) => {
        if (event.level === 'query') queries.push({ sql: event.query.sql, parameters: event.query.parameters });
      },
    });
    const listing = await new KyselyStore(db, 'sqlite').messages.list({ chatflowid: FLOW, ...filter }, 'asc', page);
    for await (const batch of listing[streamed]!) {
      // Texts come as the UTF-8 bytes of the batch, joined as the answer sends them.
      if (streamed === 'texts') expect((batch as { joined: unknown[] }).joined.every((b) => Buffer.isBuffer(b))).toBe(true);
      break;
    }
    const explained = queries.map((q) =>
      (sqlite.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(q.parameters) as { detail: string }[]).map((r) => r.detail).join(' | '),
    );
    await db.destroy();
    return explained;
  }

  const range = { start: '2025-02-01T00:00:00.000Z', end: '2025-11-30T23:59:59.999Z' };

  it('sessionId alone uses the session index', async () => {
    for (const plan of await plans({ sessionId: 's-1' })) expect(plan).toMatch(/INDEX chat_message_flow_session \(chatflowid=\? AND sessionId=\?/);
  });

  it('sessionId with a date range still uses the session index', async () => {
    for (const plan of await plans({ sessionId: 's-1', ...range })) {
      expect(plan).toMatch(/INDEX chat_message_flow_session \(chatflowid=\? AND sessionId=\?/);
    }
  });

  it('chatId with a date range uses the chat index', async () => {
    for (const plan of await plans({ chatId: 'c-1', ...range })) expect(plan).toMatch(/INDEX chat_message_flow_chat \(chatflowid=\? AND "?chatId"?=\?/);
  });

  // A whole list sent as JSON: SQLite writes each batch's rows and joins them itself (one blob a
  // batch for the driver to hand over, not a string a row), walking the index in the list's order
  // with no sort, not even of the joined rows.
  it('a whole list as JSON is joined by SQLite a batch at a time, off the date index, unsorted', async () => {
    for (const plan of await plans({}, {}, 'texts')) {
      expect(plan).toMatch(/^CO-ROUTINE b \| SEARCH m USING INDEX chat_message_flow_date \(chatflowid=\?\) \| SCAN b$/);
    }
  });

  it('a date range alone, paged, uses the date index for the rows and the count', async () => {
    const found = await plans(range, { page: 1, limit: 50 });
    expect(found).toHaveLength(2);
    for (const plan of found) expect(plan).toMatch(/INDEX chat_message_flow_date \(chatflowid=\? AND createdDate>\? AND createdDate<\?\)/);
  });
});

// A delete of a million messages spends its time in the B-trees: each step's messages are read
// off the filter's index with their rowids, and deleted by rowid. By id, every one of them would
// be looked up again in the id index (random UUIDs: a page anywhere in it), some 25% more work.
describe('SQLite plans of a message delete', () => {
  it('deletes each step of messages by rowid, not by looking their ids up again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatflow-plans-'));
    try {
      const path = join(dir, 'chatflow.db');
      const store = await openSqliteStore(path);
      await store.messages.ingest(FLOW, Array.from({ length: 30 }, (_, i) => ({ id: `m-${i}`, role: 'userMessage' as const, sessionId: `s-${i % 3}` })));
      await store.close();
      const statements: { sql: string; parameters: readonly unknown[] }[] = [];
      const sqlite = openSqliteFile(path);
      const db = new Kysely<Tables>({
        dialect: new SqliteDialect({ database: sqlite }),
        log: (event) => {
          if (event.level === 'query' && /^(delete from "chat_message" |select "m"\."id")/.test(event.query.sql)) statements.push(event.query);
        },
      });
      const explained: string[] = [];
      const deleting = new KyselyStore(db, 'sqlite');
      const explain = (q: { sql: string; parameters: readonly unknown[] }) =>
        (sqlite.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(q.parameters) as { detail: string }[]).map((r) => r.detail).join(' | ');
      expect(await deleting.messages.delete({ chatflowid: FLOW, sessionId: 's-1' })).toBe(10);
      const steps = statements.splice(0).filter((q) => q.sql.startsWith('select'));
      for (const q of statements) explained.push(explain(q));
      // A session's messages found on the session index in its order; the rest of the chatflow's
      // on the date index, in the order they were appended (not on another index of the chatflow).
      for (const q of steps) expect(explain(q)).toMatch(/COVERING INDEX chat_message_flow_session \(chatflowid=\? AND sessionId=\?\)$/);
      expect(await deleting.messages.delete({ chatflowid: FLOW })).toBe(20);
      for (const q of statements.filter((q) => q.sql.startsWith('select'))) expect(explain(q)).toMatch(/COVERING INDEX chat_message_flow_date \(chatflowid=\?\)$/);
      for (const q of statements.filter((q) => q.sql.startsWith('delete'))) explained.push(explain(q));
      await db.destroy();
      expect(explained.length).toBeGreaterThan(0);
      for (const plan of explained) {
        expect(plan).toMatch(/SEARCH chat_message USING INTEGER PRIMARY KEY \(rowid=\?\)/);
        expect(plan).not.toMatch(/sqlite_autoindex_chat_message_1 \(id=/);
      }
      const check = await openSqliteStore(path);
      const left = await check.messages.list({ chatflowid: FLOW }, 'asc', { page: 1, limit: 100 });
      expect(left.total).toBe(0);
      await check.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
