// The other lists stay index scans on SQLite too (messages: sqlite-query-plans.test.ts): feedback
// by chat with or without dates, assistants with or without a type, upsert history, variables.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyStore } from '../../src/server/store/kysely-store.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { Database as Tables } from '../../src/server/store/tables.js';
import type { Listing } from '../../src/server/store/types.js';
import { openSqliteFile } from '../helpers/sqlite-file.js';

describe('SQLite query plans of the other lists', () => {
  let dir: string;
  let path: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatflow-list-plans-'));
    path = join(dir, 'chatflow.db');
    await (await openSqliteStore(path)).close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The plan of every query a listing runs (SQL captured from kysely's log), one string each. */
  async function plans(list: (store: KyselyStore) => Promise<Listing<unknown>>): Promise<string[]> {
    const queries: { sql: string; parameters: readonly unknown[] }[] = [];
    const sqlite = openSqliteFile(path, { readonly: true });
    const db = new Kysely<Tables>({
      dialect: new SqliteDialect({ database: sqlite }),
      log: (event) => {
        if (event.level === 'query') queries.push({ sql: event.query.sql, parameters: event.query.parameters });
      },
    });
    for await (const batch of (await list(new KyselyStore(db, 'sqlite'))).rows) void batch;
    const explained = queries.map((q) =>
      (sqlite.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(q.parameters) as { detail: string }[]).map((r) => r.detail).join(' | '),
    );
    await db.destroy();
    expect(explained.length).toBeGreaterThan(0);
    return explained;
  }
  const range = { start: '2025-02-01T00:00:00.000Z', end: '2025-11-30T23:59:59.999Z' };

  it('feedback by chat, with a date range too, uses the (chatflow, chat) index', async () => {
    for (const filter of [{}, range]) {
      for (const plan of await plans((s) => s.feedback.list({ chatflowid: 'f', chatId: 'c', ...filter }, 'asc', {}))) {
        expect(plan).toMatch(/INDEX feedback_flow_chat \(chatflowid=\? AND "?chatId"?=\?/);
        expect(plan).not.toContain('TEMP B-TREE');
      }
    }
  });

  it('feedback of a chatflow by date uses the date index', async () => {
    for (const plan of await plans((s) => s.feedback.list({ chatflowid: 'f', ...range }, 'desc', {}))) {
      expect(plan).toMatch(/INDEX feedback_flow_date \(chatflowid=\? AND createdDate>\? AND createdDate<\?\)/);
    }
  });

  it('assistants, with or without a type, need no sort', async () => {
    for (const plan of await plans((s) => s.assistants.list('CUSTOM', {}))) expect(plan).toMatch(/INDEX assistant_type \(type=\?\)/);
    for (const plan of await plans((s) => s.assistants.list(undefined, {}))) {
      expect(plan).toMatch(/INDEX assistant_created/);
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });

  it('upsert history and variables use their indexes', async () => {
    for (const plan of await plans((s) => s.upsertHistory.list({ chatflowid: 'f', ...range }, 'asc', {}))) expect(plan).toMatch(/INDEX upsert_flow_date/);
    for (const plan of await plans((s) => s.upsertHistory.list(range, 'desc', {}))) expect(plan).toMatch(/INDEX upsert_date/);
    for (const plan of await plans((s) => s.variables.list({}))) {
      expect(plan).toMatch(/INDEX variable_updated/);
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });
});
