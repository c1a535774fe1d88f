// Two replicas of the service on one PostgreSQL schema: what one writes the other sees, concurrent
// writes through both lose nothing, a replica restarts without loss, and a lost connection heals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/app.js';
import { call, expectError, ok } from '../helpers/http.js';
import { openTestPgStore, terminateBackends, type TestPgStore } from '../helpers/pg.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Replica {
  server: RunningServer;
  store: TestPgStore;
  api: string;
}

async function startReplica(schema?: string): Promise<Replica> {
  const store = await openTestPgStore({ schema, poolSize: 5 });
  const server = await startServer({ store, port: 0 });
  return { server, store, api: `${server.url}/api/v1` };
}

describe('two replicas on one PostgreSQL schema', () => {
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    // Started together on an empty schema: kysely's advisory lock lets one of them migrate.
    const first = await openTestPgStore({ poolSize: 5 });
    await first.close();
    [a, b] = await Promise.all([startReplica(first.schema), startReplica(first.schema)]);
  });
  afterAll(async () => {
    await a?.server.close();
    await b?.server.close();
  });

  const variables = async (r: Replica) => ok(await call('GET', `${r.api}/variables`)) as { id: string; name: string; value: string }[];

  it('a record created through one is listed, updated and deleted through the other', async () => {
    const v = ok(await call('POST', `${a.api}/variables`, { name: 'SHARED', value: '1' }));
    expect((await variables(b)).find((x) => x.id === v.id)).toEqual(v);
    const u = ok(await call('PUT', `${b.api}/variables/${v.id}`, { value: '2' }));
    expect(u).toMatchObject({ id: v.id, value: '2', createdDate: v.createdDate });
    expect((await variables(a)).find((x) => x.id === v.id)).toEqual(u);
    expect(ok(await call('DELETE', `${b.api}/variables/${v.id}`))).toEqual({ affected: 1 });
    expect((await variables(a)).find((x) => x.id === v.id)).toBeUndefined();
    expectError(await call('DELETE', `${a.api}/variables/${v.id}`), 404);

    // Messages and their feedback, across replicas too.
    ok(await call('POST', `${a.api}/chatmessage/flow-r`, { id: 'r-m1', role: 'apiMessage', chatId: 'c1', createdDate: '2026-01-10T10:00:05Z' }));
    const fb = ok(await call('POST', `${b.api}/feedback`, { messageId: 'r-m1', rating: 'THUMBS_UP' }));
    expectError(await call('POST', `${a.api}/feedback`, { messageId: 'r-m1', rating: 'THUMBS_DOWN' }), 409);
    const listed = ok(await call('GET', `${a.api}/chatmessage/flow-r?feedback=true`));
    expect(listed).toEqual([expect.objectContaining({ id: 'r-m1', createdDate: '2026-01-10T10:00:05.000Z', feedback: fb })]);
  });

  it('2×50 concurrent creates through both replicas lose nothing and make no duplicate ids', async () => {
    const before = (await variables(a)).length;
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call('POST', `${(i % 2 ? b : a).api}/variables`, { name: `C${i}`, value: String(i) })),
    );
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const ids = replies.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(100);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    for (const r of [a, b]) {
      const listed = await variables(r);
      expect(listed).toHaveLength(before + 100);
      expect(new Set(listed.map((x) => x.id)).size).toBe(listed.length);
      expect(listed.map((x) => x.id)).toEqual(expect.arrayContaining(ids));
    }
    const page = await call('GET', `${b.api}/variables?page=1&limit=10`);
    expect(page.headers.get('x-total-count')).toBe(String(before + 100));
  });

  it('the same messages ingested through both replicas at once are stored once, and counted once', async () => {
    const batch = Array.from({ length: 200 }, (_, i) => ({ id: `same-${i}`, role: 'userMessage', chatId: 'c' }));
    const [ra, rb] = await Promise.all([a, b].map((r) => call('POST', `${r.api}/chatmessage/flow-same`, batch)));
    expect(ra!.status, ra!.text).toBe(200);
    expect(rb!.status, rb!.text).toBe(200);
    expect(ra!.body.affected + rb!.body.affected).toBe(200);
    expect(ok(await call('GET', `${b.api}/chatmessage/flow-same`))).toHaveLength(200);
  });

  it('a replica restart (close, start again) loses nothing, while the other keeps writing', async () => {
    const before = await variables(b);
    let writing = true;
    const written: string[] = [];
    const writer = (async () => {
      while (writing) {
        const r = await call('POST', `${b.api}/variables`, { name: 'during-restart' });
        expect(r.status, r.text).toBe(200);
        written.push(r.body.id);
      }
    })();
    const schema = a.store.schema;
    await a.server.close();
    a = await startReplica(schema);
    ok(await call('POST', `${a.api}/variables`, { name: 'after-restart' }));
    writing = false;
    await writer;
    expect(written.length).toBeGreaterThan(0);
    const after = await variables(a);
    expect(after.map((x) => x.id)).toEqual(expect.arrayContaining([...before.map((x) => x.id), ...written]));
    expect(after).toHaveLength(before.length + written.length + 1);
  });

  it('after its connections are killed (pg_terminate_backend), the next request is 503 or succeeds, and the pool reconnects', async () => {
    // Both replicas have idle pooled connections now.
    await Promise.all([a, b, a, b, a, b].map((r) => call('GET', `${r.api}/variables?page=1&limit=1`)));
    for (let round = 0; round < 3; round++) {
      const killed = await terminateBackends(a.store.applicationName); // both replicas share it
      expect(killed).toBeGreaterThan(0);
      for (const r of [a, b]) {
        const first = await call('POST', `${r.api}/variables`, { name: `after-kill-${round}` });
        if (first.status !== 200) {
          expectError(first, 503, 'the database is unavailable; try again shortly');
          expect(first.text).not.toMatch(/postgres:|select|insert|pg_/i);
          ok(await call('POST', `${r.api}/variables`, { name: `after-kill-${round}` })); // the retry
        }
        ok(await call('GET', `${r.api}/variables`));
        ok(await call('POST', `${r.api}/chatmessage/flow-kill`, [{ role: 'userMessage' }, { role: 'apiMessage' }]));
      }
    }
    const names = (await variables(b)).map((x) => x.name).filter((n) => n.startsWith('after-kill-'));
    expect(names.sort()).toEqual(['after-kill-0', 'after-kill-0', 'after-kill-1', 'after-kill-1', 'after-kill-2', 'after-kill-2']);
  });

  it('connections killed under load: requests in flight answer 200 or 503, and no dead connection is handed out again', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      const inFlight = Array.from({ length: 40 }, (_, i) =>
        i % 3 === 0
          ? call('POST', `${(i % 2 ? a : b).api}/chatmessage/flow-load`, [{ role: 'userMessage' }, { role: 'apiMessage' }])
          : call('GET', `${(i % 2 ? a : b).api}/variables`),
      );
      await new Promise((r) => setTimeout(r, 2 * round));
      await terminateBackends(a.store.applicationName);
      for (const reply of await Promise.all(inFlight)) {
        statuses.push(reply.status);
        if (reply.status !== 200) {
          expectError(reply, 503, 'the database is unavailable; try again shortly');
          expect(reply.text).not.toMatch(/postgres:|select|insert|pg_/i);
        }
      }
      // Every connection that failed was discarded: the requests after all succeed at once.
      await new Promise((r) => setTimeout(r, 50));
      for (let i = 0; i < 12; i++) ok(await call('GET', `${(i % 2 ? a : b).api}/variables?page=1&limit=1`));
    }
    console.log('STATUSES', JSON.stringify(statuses.reduce((m: Record<number, number>, s) => ((m[s] = (m[s] ?? 0) + 1), m), {})));
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
  });
});
