// The PostgreSQL store itself: migrations under concurrency, the same answers as SQLite for what
// the dialects do differently (dates, counts, upsert counts, sort order), outages, and messages
// that never show the connection string.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/app.js';
import { Conflict, NotFound } from '../../src/server/store/errors.js';
import { isUnavailable } from '../../src/server/store/failures.js';
import type { KyselyStore } from '../../src/server/store/kysely-store.js';
import type { ChatMessageIngest } from '../../src/schema/resources.js';
import { openPostgresStore, redactUrl } from '../../src/server/store/postgres/open.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import { ROW_SEPARATOR, type JoinedRows, type Listing } from '../../src/server/store/types.js';
import { call, expectError, ok } from '../helpers/http.js';
import { admin, createScratchDatabase, dropTestPgStore, openTestPgStore, terminateBackends, testDatabaseUrl } from '../helpers/pg.js';

/** kysely's migration lock id on PostgreSQL (node_modules/kysely/dist/esm/dialect/postgres/postgres-adapter.js). */
const KYSELY_LOCK_ID = '3853314791062309107';
const UNAVAILABLE = 'the database is unavailable; try again shortly';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function all<T>(listing: Listing<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of listing.rows) out.push(...batch);
  return out;
}

/** A listing's JSON texts, one a row (PostgreSQL's come a batch at a time, joined, as bytes). */
async function texts(listing: Listing<unknown>): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of listing.texts!) {
    if (Array.isArray(batch)) out.push(...(batch as string[]));
    else {
      const { count, joined } = batch as JoinedRows;
      // A JSON text holds no raw line feed: the separator is found only between rows.
      const rows = count === 0 ? [] : Buffer.concat(joined).toString().split(ROW_SEPARATOR);
      expect(rows).toHaveLength(count);
      out.push(...rows);
    }
  }
  return out;
}

describe('migrations on PostgreSQL', () => {
  it('wait for kysely’s advisory lock: a replica does not migrate while another holds it', async () => {
    const scratch = await createScratchDatabase();
    const holder = new pg.Client({ connectionString: scratch.url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${KYSELY_LOCK_ID})`);
      let opened = false;
      const opening = openPostgresStore(scratch.url).then((s) => {
        opened = true;
        return s;
      });
      await sleep(700);
      expect(opened).toBe(false);
      const before = await holder.query(`SELECT to_regclass('public.variable') AS t`);
      expect(before.rows[0].t).toBeNull();
      await holder.query(`SELECT pg_advisory_unlock(${KYSELY_LOCK_ID})`);
      const store = await opening;
      const after = await holder.query(`SELECT to_regclass('public.variable') AS t`);
      expect(after.rows[0].t).toBe('variable');
      await store.close();
    } finally {
      await holder.end();
      await scratch.drop();
    }
  });

  it('four replicas starting together on an empty database migrate it exactly once', async () => {
    const scratch = await createScratchDatabase();
    try {
      const stores = await Promise.all([1, 2, 3, 4].map(() => openPostgresStore(scratch.url, { poolSize: 2 })));
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      const { rows } = await client.query('SELECT name FROM kysely_migration ORDER BY name');
      await client.end();
      expect(rows).toEqual([{ name: '0001_initial' }, { name: '0002_list_indexes' }, { name: '0003_feedback_key_kept_by_the_store' }, { name: '0004_no_index_for_few_valued_filters' }, { name: '0005_postgres_filter_indexes_without_order' }, { name: '0006_postgres_filter_indexes_ordered_again' }, { name: '0007_chatflow_definitions' }, { name: '0008_flowise_message_columns' }]);
      // Every replica works on the one set of tables.
      const v = await stores[0]!.variables.create({ name: 'shared' });
      for (const s of stores) expect((await all(await s.variables.list({}))).map((x) => x.id)).toEqual([v.id]);
      await Promise.all(stores.map((s) => s.close()));
    } finally {
      await scratch.drop();
    }
  });

  it('each schema gets its own tables and migration record, even when another schema has them', async () => {
    const a = await openTestPgStore();
    const b = await openTestPgStore();
    try {
      const { rows } = await admin().query(
        `SELECT table_schema, count(*)::int AS n FROM information_schema.tables
          WHERE table_schema = ANY($1) AND table_name IN ('variable', 'kysely_migration') GROUP BY 1 ORDER BY 1`,
        [[a.schema, b.schema].sort()],
      );
      expect(rows).toEqual([a.schema, b.schema].sort().map((s) => ({ table_schema: s, n: 2 })));
      await a.variables.create({ name: 'only-in-a' });
      expect(await all(await b.variables.list({}))).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a store opens and migrates while other schemas of the database are dropped', async () => {
    // Other replicas' or applications' schemas come and go in a shared database: kysely's own
    // introspection read every table of every schema by name, and failed on one dropped meanwhile.
    let churning = true;
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const other = `t_churn_${process.pid}_${i}`;
        await admin().query(`CREATE SCHEMA ${other}; CREATE TABLE ${other}.a (id serial primary key, x text); CREATE TABLE ${other}.b (id serial primary key)`);
        await admin().query(`DROP SCHEMA ${other} CASCADE`);
      }
    })();
    try {
      for (let i = 0; i < 15; i++) {
        const store = await openTestPgStore();
        await store.close();
        await dropTestPgStore({ schema: store.schema });
      }
    } finally {
      churning = false;
      await churn;
    }
  });

  it('keys compare byte by byte (collation "C"), as on SQLite, whatever the server locale', async () => {
    const s = await openTestPgStore();
    await s.close();
    const { rows } = await admin().query(
      `SELECT table_name, column_name, collation_name FROM information_schema.columns
        WHERE table_schema = $1 AND data_type = 'character varying' AND collation_name IS DISTINCT FROM 'C'
          AND table_name NOT LIKE 'kysely_%'`,
      [s.schema],
    );
    expect(rows).toEqual([]);
  });
});

describe('PostgreSQL answers as SQLite does', () => {
  let dir: string;
  let sqlite: KyselyStore;
  let postgres: KyselyStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatflow-pg-cmp-'));
    sqlite = await openSqliteStore(join(dir, 'c.db'));
    postgres = await openTestPgStore();
  });
  afterAll(async () => {
    await sqlite?.close();
    await postgres?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `fn` on both stores and expects the same result. */
  async function same<T>(fn: (s: KyselyStore) => Promise<T>): Promise<T> {
    const [a, b] = [await fn(sqlite), await fn(postgres)];
    expect(b).toEqual(a);
    return b;
  }

  it('keeps dates to the millisecond, in the ISO form, across the whole year range', async () => {
    const dates = [
      '2026-01-10T10:00:05Z',
      '2026-01-10T10:00:05.123Z',
      '2026-01-10T12:00:05.5+02:00',
      '0001-01-01T00:00:00.000Z',
      '0099-06-01T00:00:00.123Z',
      '1969-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59.999Z',
    ];
    const listed = await same(async (s) => {
      await s.messages.ingest('dates', dates.map((d, i) => ({ id: `d${i}`, role: 'userMessage' as const, createdDate: d })));
      return (await all(await s.messages.list({ chatflowid: 'dates' }, 'asc', {}))).map((m) => [m.id, m.createdDate]);
    });
    expect(Object.fromEntries(listed)).toEqual({
      d0: '2026-01-10T10:00:05.000Z',
      d1: '2026-01-10T10:00:05.123Z',
      d2: '2026-01-10T10:00:05.500Z',
      d3: '0001-01-01T00:00:00.000Z',
      d4: '0099-06-01T00:00:00.123Z',
      d5: '1969-12-31T23:59:59.999Z',
      d6: '9999-12-31T23:59:59.999Z',
    });
    // Inclusive bounds at the exact millisecond.
    await same(async (s) =>
      (await all(await s.messages.list({ chatflowid: 'dates', start: '2026-01-10T10:00:05.000Z', end: '2026-01-10T10:00:05.123Z' }, 'asc', {}))).map((m) => m.id),
    );
  });

  it('streams more than one batch in keyset order, ties broken by id byte order, both ways', async () => {
    // 2,500 rows (the stream fetches 1,000 at a time) on 7 distinct instants: the cursor lands
    // inside runs of equal dates. Ids mix case and punctuation so a locale collation would differ.
    const ids = Array.from({ length: 2500 }, (_, i) => `${['a', 'B', '_', '-', 'z', 'Ä'][i % 6]}${String(i).padStart(4, '0')}`);
    const counts = await same((s) =>
      s.messages.ingest(
        'stream',
        ids.map((id, i) => ({ id, role: 'apiMessage' as const, createdDate: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 7)).toISOString() })),
      ),
    );
    expect(counts).toBe(2500);
    for (const order of ['asc', 'desc'] as const) {
      const listed = await same(async (s) => (await all(await s.messages.list({ chatflowid: 'stream' }, order, {}))).map((m) => m.id));
      expect(listed).toHaveLength(2500);
      expect(new Set(listed).size).toBe(2500);
    }
    // A page and its total: count(*) is a string in pg, a number here.
    const page = await same(async (s) => {
      const l = await s.messages.list({ chatflowid: 'stream', chatType: ['INTERNAL'] }, 'desc', { page: 3, limit: 7 });
      return { total: l.total, ids: [...(l.rows as Iterable<{ id: string }[]>)].flat().map((m) => m.id) };
    });
    expect(page.total).toBe(2500);
    expect(page.ids).toHaveLength(7);
  });

  it('streams JSON texts that are JSON.stringify of the rows, byte for byte, whatever the characters, filters included', async () => {
    // PostgreSQL's texts come through COPY with the filter's values written into the statement:
    // quotes, backslashes, control characters and non-Latin text must come out as they went in.
    const odd = `it's "quoted" \\ back\\slash\t tab\n line\u0001 ctl \u2028 ‖ ✓ 😀 $1 $$ '); select 1; --`;
    const messages = Array.from({ length: 2300 }, (_, i) => ({
      id: `t${String(i).padStart(4, '0')}${i % 3 ? '' : odd.slice(0, 9)}`,
      role: 'apiMessage' as const,
      content: i % 2 ? odd : `plain ${i}`,
      sessionId: i % 4 ? odd : 's',
      chatId: `c${i % 13}`,
      usedTools: i % 5 ? null : [{ tool: odd, toolInput: { q: odd }, toolOutput: [1, 2.5, null, true] }],
      leadEmail: i % 7 ? null : 'a@b.c',
      createdDate: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 11)).toISOString(),
    }));
    await same((s) => s.messages.ingest('texts', messages));
    for (const filter of [{ chatflowid: 'texts' }, { chatflowid: 'texts', sessionId: odd, chatType: ['INTERNAL' as const], start: '2026-01-01T00:00:01.000Z' }]) {
      for (const order of ['asc', 'desc'] as const) {
        const listed = await same(async (s) => texts(await s.messages.list(filter, order, {})));
        const rows = await all(await postgres.messages.list(filter, order, {}));
        expect(listed).toEqual(rows.map((r) => JSON.stringify(r)));
        expect(listed.length).toBe(filter.sessionId ? messages.filter((m) => m.sessionId === odd && !m.createdDate.endsWith(':00.000Z')).length : 2300);
      }
    }
  });

  it('a batch larger than one buffer (4 MB) comes in several pieces, byte for byte the rows, none split', async () => {
    // 300 messages of 40 KB (12 MB in the first batch), and three of 5 MB (each larger than a buffer).
    const big = (n: number, i: number) => `${i}:` + '✓ "x"\\\n'.repeat(n);
    const messages = [
      ...Array.from({ length: 300 }, (_, i) => ({ id: `p${String(i).padStart(4, '0')}`, role: 'apiMessage' as const, content: big(4_000, i), createdDate: new Date(Date.UTC(2026, 1, 1, 0, 0, i)).toISOString() })),
      ...[0, 1, 2].map((i) => ({ id: `q${i}`, role: 'userMessage' as const, content: big(500_000, i), createdDate: new Date(Date.UTC(2026, 1, 2, 0, 0, i)).toISOString() })),
    ];
    await same((s) => s.messages.ingest('pieces', messages));
    const listing = await postgres.messages.list({ chatflowid: 'pieces' }, 'asc', {});
    let pieces = 0;
    const listed: string[] = [];
    for await (const batch of listing.texts!) {
      const { count, joined } = batch as JoinedRows;
      pieces += joined.length;
      // Each piece ends where a row ends: its last bytes close a row's object.
      for (const piece of joined) expect(piece.subarray(-1).toString()).toBe('}');
      if (count > 0) listed.push(...Buffer.concat(joined).toString().split(ROW_SEPARATOR));
    }
    expect(pieces).toBeGreaterThan(3);
    const rows = await all(await postgres.messages.list({ chatflowid: 'pieces' }, 'asc', {}));
    expect(listed).toEqual(rows.map((r) => JSON.stringify(r)));
    expect(rows.map((r) => r.id)).toEqual(messages.map((m) => m.id));
  });

  it('counts only new rows on ingest (ON CONFLICT DO NOTHING), in and across calls', async () => {
    await same((s) => s.messages.ingest('dup', [{ id: 'x1', role: 'userMessage' }, { id: 'x2', role: 'userMessage' }]));
    const n = await same((s) =>
      s.messages.ingest('dup', [{ id: 'x2', role: 'userMessage' }, { id: 'x3', role: 'userMessage' }, { id: 'x3', role: 'apiMessage' }]),
    );
    expect(n).toBe(1);
    const u = await same(async (s) => [
      await s.upsertHistory.ingest('dup', [{ id: 'u1' }, { id: 'u2', date: '2026-01-05' }]),
      await s.upsertHistory.ingest('dup', [{ id: 'u2' }, { id: 'u3' }]),
      await s.upsertHistory.softDelete('dup', ['u1', 'u1', 'nope']),
      await s.upsertHistory.softDelete(undefined, ['u1']),
    ]);
    expect(u).toEqual([2, 1, 1, 0]);
    await same(async (s) => (await all(await s.upsertHistory.list({ chatflowid: 'dup' }, 'asc', {}))).map((r) => [r.id, r.date]).slice(0, 1));
  });

  it('answers updated rows (RETURNING) with ISO dates and the same shape', async () => {
    for (const s of [sqlite, postgres]) {
      const v = await s.variables.create({ name: 'k', value: '1' });
      await sleep(3);
      const u = await s.variables.update(v.id, { value: '2' });
      expect(u).toEqual({ ...v, value: '2', updatedDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
      expect(u.updatedDate > v.updatedDate).toBe(true);
      await expect(s.variables.update('00000000-0000-4000-8000-000000000000', { value: '3' })).rejects.toBeInstanceOf(NotFound);
      const a = await s.assistants.create({ details: { name: 'a' } });
      const b = await s.assistants.update(a.id, { details: { temperature: 1 } });
      expect(b).toMatchObject({ id: a.id, createdDate: a.createdDate, details: { name: 'a', temperature: 1 } });
      expect(typeof b.updatedDate).toBe('string');
      await s.messages.ingest('fb', [{ id: `fbm-${s.kind}`, role: 'apiMessage', chatId: 'c' }]);
      const f = await s.feedback.create({ messageId: `fbm-${s.kind}`, rating: 'THUMBS_UP' });
      await expect(s.feedback.create({ messageId: `fbm-${s.kind}`, rating: 'THUMBS_DOWN' })).rejects.toBeInstanceOf(Conflict);
      const g = await s.feedback.update(f.id, { rating: 'THUMBS_DOWN' });
      expect(g).toEqual({ ...f, rating: 'THUMBS_DOWN' });
      const withFb = await all(await s.messages.list({ chatflowid: 'fb', withFeedback: true }, 'asc', {}));
      expect(withFb[0]?.feedback).toEqual(g);
    }
    await same(async (s) => (await s.listChatflows()).map((c) => c.id));
  });
});

/**
 * Runs `list` on a store over a scratch database holding `messages` of chatflow `flow`, and
 * answers the index entries of chat_message it read, by index. `prepare` runs on the database
 * first. The store's connections report their statistics as they exit: it is closed, then the
 * figures are polled until `settled` says they are all in.
 */
async function indexReads(
  messages: ChatMessageIngest[],
  prepare: (client: pg.Client, name: string) => Promise<unknown>,
  list: (store: KyselyStore) => Promise<void>,
  settled: (read: (index: string) => number) => boolean,
): Promise<(index: string) => number> {
  const scratch = await createScratchDatabase();
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  try {
    const loading = await openPostgresStore(scratch.url);
    await loading.messages.ingest('flow', messages);
    await loading.close();
    await prepare(client, scratch.name);
    const reads = async () => {
      const { rows } = await client.query(`SELECT indexrelname AS name, idx_tup_read AS n FROM pg_stat_user_indexes WHERE relname = 'chat_message'`);
      return new Map(rows.map((r: { name: string; n: string }) => [r.name, Number(r.n)]));
    };
    const before = await reads();
    const store = await openPostgresStore(scratch.url);
    await list(store);
    await store.close();
    let after = before;
    const read = (index: string) => (after.get(index) ?? 0) - (before.get(index) ?? 0);
    for (let tries = 0; tries < 50 && !settled(read); tries++) {
      await sleep(200);
      after = await reads();
    }
    return read;
  } finally {
    await client.end();
    await scratch.drop();
  }
}

describe('streaming on PostgreSQL when the planner misjudges', () => {
  it('reads each row of the index once: no batch rescans and sorts every row after it', async () => {
    const N = 5000;
    const ids = Array.from({ length: N }, (_, i) => `m${String(i).padStart(5, '0')}`);
    const read = await indexReads(
      ids.map((id, i) => ({ id, role: 'userMessage' as const, createdDate: new Date(Date.UTC(2025, 2, 1) + i * 60_000).toISOString() })),
      // Right after a restore, before autovacuum has looked at the table, the planner guesses its
      // rows from its size alone, and a bitmap scan and a sort of what it takes for a few rows look
      // cheaper than walking the index (a million messages then took 170 s to export, not 10).
      // At this size, an index read priced high makes the planner see it so.
      (client, name) => client.query(`ALTER DATABASE ${name} SET random_page_cost = 1000`),
      async (store) => {
        expect((await all(await store.messages.list({ chatflowid: 'flow' }, 'asc', {}))).map((m) => m.id)).toEqual(ids);
        // And the JSON texts a streamed answer sends (read another way: COPY).
        const listed = await texts(await store.messages.list({ chatflowid: 'flow' }, 'asc', {}));
        expect(listed.map((t) => (JSON.parse(t) as { id: string }).id)).toEqual(ids);
      },
      (r) => r('chat_message_flow_date') >= 2 * N,
    );
    // Five batches of a thousand, twice: one pass over the index reads N entries; a scan and a
    // sort of every remaining row per batch read none of it (a sequential scan) or some 15,000
    // (bitmap).
    expect(read('chat_message_flow_date')).toBeGreaterThanOrEqual(2 * N);
    expect(read('chat_message_flow_date')).toBeLessThan(2 * N + 200);
  });

  it('a session’s or a chat’s list reads only its own messages, through its filter’s index, not the chatflow’s every date', async () => {
    const read = await indexReads(
      Array.from({ length: 5000 }, (_, i) => ({
        id: `m${String(i).padStart(5, '0')}`,
        role: 'userMessage' as const,
        sessionId: `s-${Math.floor(i / 10)}`,
        chatId: `c-${Math.floor(i / 10)}`,
        createdDate: new Date(Date.UTC(2025, 2, 1) + i * 60_000).toISOString(),
      })),
      // Statistics from before the messages came, as right after an import.
      async () => {},
      async (store) => {
        const range = { start: '2025-03-01T00:00:00.000Z', end: '2025-04-01T00:00:00.000Z' };
        for (const filter of [{ sessionId: 's-70' }, { chatId: 'c-70', ...range }]) {
          const listing = await store.messages.list({ chatflowid: 'flow', ...filter }, 'asc', {});
          const ids = (await texts(listing)).map((t) => (JSON.parse(t) as { id: string }).id);
          expect(ids).toEqual(Array.from({ length: 10 }, (_, i) => `m00${700 + i}`));
        }
      },
      (r) => r('chat_message_flow_session') >= 10 && r('chat_message_flow_chat') >= 10,
    );
    // Ten entries of each filter's index; none of the chatflow's date index (which the planner
    // walked when the filter's index held no order: every message of the chatflow).
    expect(read('chat_message_flow_session')).toBe(10);
    expect(read('chat_message_flow_chat')).toBe(10);
    expect(read('chat_message_flow_date')).toBe(0);
  });
});

describe('feedback and message deletes racing on PostgreSQL (the store keeps the key)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let store: KyselyStore;
  let other: pg.Client;
  beforeAll(async () => {
    scratch = await createScratchDatabase();
    store = await openPostgresStore(scratch.url);
    other = new pg.Client({ connectionString: scratch.url });
    await other.connect();
  });
  afterAll(async () => {
    await other?.end();
    await store?.close();
    await scratch?.drop();
  });
  const feedbackOf = async (flow: string) => (await all(await store.feedback.list({ chatflowid: flow }, 'asc', {}))).map((f) => f.messageId);

  it('a delete waits for feedback being written on its message, then takes that feedback too', async () => {
    await store.messages.ingest('race1', [{ id: 'r1', role: 'apiMessage' }, { id: 'r2', role: 'apiMessage' }]);
    await store.feedback.ingest([{ messageId: 'r2', rating: 'THUMBS_UP' }]);
    // Another replica rating r1, its transaction still open.
    await other.query('BEGIN');
    await other.query(`SELECT id FROM chat_message WHERE id = 'r1' FOR KEY SHARE`);
    await other.query(`INSERT INTO chat_message_feedback (id, "chatflowid", "chatId", "messageId", rating, "createdDate") VALUES ('f-r1', 'race1', 'c', 'r1', 'THUMBS_UP', now())`);
    let done = false;
    const deleting = store.messages.delete({ chatflowid: 'race1' }).then((n) => ((done = true), n));
    await sleep(300);
    expect(done).toBe(false);
    await other.query('COMMIT');
    expect(await deleting).toBe(2);
    expect(await feedbackOf('race1')).toEqual([]);
  });

  it('feedback on a message being deleted waits, then finds no message (a batch: a bad reference), nothing written', async () => {
    await store.messages.ingest('race2', [{ id: 's1', role: 'apiMessage' }]);
    await other.query('BEGIN');
    await other.query(`DELETE FROM chat_message WHERE id = 's1'`);
    let settled = 0;
    const refusal = (p: Promise<unknown>) => p.then(() => 'written', (e: Error) => e.name).finally(() => settled++);
    const one = refusal(store.feedback.create({ messageId: 's1', rating: 'THUMBS_DOWN' }));
    const batch = refusal(store.feedback.ingest([{ messageId: 's1', rating: 'THUMBS_UP' }]));
    await sleep(300);
    expect(settled).toBe(0);
    await other.query('COMMIT');
    expect([await one, await batch]).toEqual(['NotFound', 'BadReference']);
    expect(await feedbackOf('race2')).toEqual([]);
  });
});

describe('PostgreSQL limits SQLite does not have', () => {
  let store: Awaited<ReturnType<typeof openTestPgStore>>;
  let server: RunningServer;
  beforeAll(async () => {
    store = await openTestPgStore();
    server = await startServer({ store, port: 0 });
  });
  afterAll(() => server?.close());

  it('a NUL character in text is a 400 naming the reason, and nothing is stored', async () => {
    expectError(await call('POST', `${server.url}/api/v1/variables`, { name: 'a\u0000b' }), 400, 'NUL character');
    expectError(await call('POST', `${server.url}/api/v1/chatmessage/f`, [{ role: 'userMessage', content: 'ok' }, { role: 'userMessage', content: '\u0000' }]), 400, 'NUL');
    expect(ok(await call('GET', `${server.url}/api/v1/variables`))).toEqual([]);
    expect(ok(await call('GET', `${server.url}/api/v1/chatmessage/f`))).toEqual([]);
  });

  it('a NUL character in a filter of a list is the same 400, not a database failure', async () => {
    // Lists send their values inside the query text (one round trip a batch), not as parameters.
    for (const path of ['/feedback/%00', '/chatmessage/f?sessionId=a%00b', '/chatmessage/a%00b', '/upsert-history/%00']) {
      expectError(await call('GET', `${server.url}/api/v1${path}`), 400, 'NUL character');
    }
    expect(ok(await call('GET', `${server.url}/api/v1/variables`))).toEqual([]);
  });
});

describe('a connection the server cuts mid-query', () => {
  it('fails that query as unavailable and is never handed out again', async () => {
    const store = await openTestPgStore({ poolSize: 1 });
    const db = (store as unknown as { db: Kysely<unknown> }).db;
    try {
      for (let round = 0; round < 5; round++) {
        const slow = sql`select pg_sleep(5)`.execute(db).then(
          () => undefined,
          (e: unknown) => e,
        );
        // Wait until the backend runs it, then cut it.
        for (let i = 0; i < 100; i++) {
          const { rows } = await admin().query(
            `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'select pg_sleep%' AND state = 'active'`,
            [store.applicationName],
          );
          if (rows.length) break;
          await sleep(20);
        }
        await terminateBackends(store.applicationName);
        const err = await slow;
        expect(isUnavailable(err), String(err)).toBe(true);
        // At once, on the one-connection pool: a fresh connection, not the dead one.
        expect(await store.variables.list({ page: 1, limit: 1 })).toMatchObject({ total: 0 });
      }
    } finally {
      await store.close();
    }
  });
});

/** A TCP relay in front of PostgreSQL that a test can cut, black-hole and restore. */
class Relay {
  private server?: net.Server;
  private sockets = new Set<net.Socket>();
  mode: 'forward' | 'blackhole' = 'forward';
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}
  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      if (this.mode === 'blackhole') return;
      const upstream = net.connect(this.target.port, this.target.host);
      this.sockets.add(upstream);
      upstream.on('close', () => {
        this.sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }
  /** The database "goes away": no new connections, every open one cut. */
  async stop(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

describe('a PostgreSQL outage', () => {
  const password = 'pw-s3cret-9c1';
  let relay: Relay;
  let server: RunningServer;
  let api: string;
  let lost = 0;
  beforeAll(async () => {
    const base = new URL(testDatabaseUrl());
    relay = new Relay({ host: base.hostname, port: Number(base.port || 5432) });
    await relay.start();
    const seed = await openTestPgStore();
    await seed.close();
    const url = new URL(base.toString());
    url.port = String(relay.port);
    url.username = url.username || 'postgres';
    url.password = password; // trust auth ignores it; it must show nowhere
    const store = await openPostgresStore(url.toString(), {
      schema: seed.schema,
      poolSize: 3,
      connectTimeoutMs: 800,
      onConnectionError: () => lost++,
    });
    server = await startServer({ store, port: 0 });
    api = `${server.url}/api/v1`;
  });
  afterAll(async () => {
    await server?.close();
    await relay?.stop();
  });

  const unavailable = (reply: { status: number; text: string }) => {
    expectError(reply as never, 503, UNAVAILABLE);
    expect(reply.text).not.toMatch(/postgres|select|insert|s3cret|127\.0\.0\.1/i);
  };

  it('answers 503 while the database is gone and works again when it is back', async () => {
    const v = ok(await call('POST', `${api}/variables`, { name: 'before' }));
    // Fill the pool with idle connections, so that the cut hits them.
    await Promise.all([1, 2, 3].map(() => call('GET', `${api}/variables`)));
    await relay.stop();
    await sleep(100);
    expect(lost).toBeGreaterThan(0); // idle connections lost: reported, not a crash
    unavailable(await call('GET', `${api}/variables`));
    unavailable(await call('POST', `${api}/variables`, { name: 'during' }));
    unavailable(await call('POST', `${api}/chatmessage/f`, [{ role: 'userMessage' }]));
    unavailable(await call('PUT', `${api}/variables/${v.id}`, { value: 'x' }));

    await relay.start(); // same port
    expect(ok(await call('GET', `${api}/variables`)).map((x: { name: string }) => x.name)).toEqual(['before']);
    ok(await call('POST', `${api}/variables`, { name: 'after' }));
  });

  it('answers 503 within the connect timeout when the database does not answer at all', async () => {
    await relay.stop();
    relay.mode = 'blackhole';
    await relay.start();
    const started = Date.now();
    unavailable(await call('GET', `${api}/variables`));
    expect(Date.now() - started).toBeLessThan(5000);
    await relay.stop();
    relay.mode = 'forward';
    await relay.start();
    expect(ok(await call('GET', `${api}/variables`))).toHaveLength(2);
  });
});

describe('PostgreSQL start-up errors never show the credentials', () => {
  const secret = 'hunter2-xyz';
  it.each([
    ['refused', `postgres://bob:${secret}@127.0.0.1:1/db`, /127\.0\.0\.1:1\/db: connection refused/],
    ['unknown host', `postgres://bob:${secret}@nosuchhost.invalid:5432/db`, /unknown host/],
    ['unknown role', '', /role "nobody_[0-9a-f]+" does not exist/],
    ['unparseable', `postgres://bob:${secret}@[::1/db`, /cannot be parsed|Invalid URL/],
    ['not a postgres URL', `mysql://bob:${secret}@127.0.0.1/db`, /must start with postgres:\/\//],
  ])('%s', async (_name, given, message) => {
    let url = given;
    if (!url) {
      const u = new URL(testDatabaseUrl());
      u.username = `nobody_${Date.now().toString(16)}`;
      u.password = secret;
      url = u.toString();
    }
    const err = await openPostgresStore(url, { connectTimeoutMs: 3000 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(message);
    expect(err!.message).not.toContain(secret);
    expect(JSON.stringify(err)).not.toContain(secret);
    expect(String(err!.stack)).not.toContain(secret);
  });

  it('redactUrl hides user and password', () => {
    expect(redactUrl(`postgres://bob:${secret}@db:5432/x?sslmode=require`)).toBe('postgres://***@db:5432/x?sslmode=require');
    expect(redactUrl('postgresql://db/x')).toBe('postgresql://db/x');
    expect(redactUrl('postgres://u:p@ss@db/x')).toBe('postgres://***@db/x');
  });
});
