// Concurrency: 50 clients creating, updating and deleting at once, on one server (SQLite and
// PostgreSQL) and on three `chatflow serve` processes sharing one SQLite file. No lost update
// (concurrent merges of one assistant's details all land), no duplicate id (overlapping ingests
// store each message once, one feedback per message), no 5xx and no "database is locked".
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHome } from '../helpers/cli.js';
import type { TestServer } from '../helpers/server.js';
import { startStoreServer, storeKinds } from '../helpers/stores.js';
import { agent, killAll, startServe, type ServeProcess } from './serve-process.js';
import { openSqliteFile, pragmaValue } from '../helpers/sqlite-file.js';

const CLIENTS = 50;
/** Messages each client ingests, out of a pool that the clients' ranges overlap in. */
const PER_CLIENT = 20;
const POOL = 100;
const VICTIMS = 10;

interface Reply {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

interface Outcome {
  clients: number;
  requests: number;
  statuses: Record<number, number>;
}

/**
 * The workload: every client at once, each talking to `apiFor(client)`. Checks everything it
 * can see afterwards through `apiFor(0)`.
 */
async function workload(apiFor: (client: number) => string, dispatcher: Agent): Promise<Outcome> {
  const statuses: Record<number, number> = {};
  const bad: string[] = [];
  let requests = 0;
  const send = async (api: string, method: string, path: string, body?: unknown): Promise<Reply> => {
    const res = await request(`${api}${path}`, {
      method: method as 'GET',
      dispatcher,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await res.body.text();
    requests++;
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    if (res.statusCode >= 500 || /locked|busy/i.test(text)) bad.push(`${method} ${path} → ${res.statusCode} ${text}`);
    return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
  };
  const api0 = apiFor(0);
  const flow = `conc-${randomUUID()}`;
  const rated = `${flow}-rated`;
  expect((await send(api0, 'POST', `/chatmessage/${flow}`, { id: rated, role: 'apiMessage', content: 'rate me' })).status).toBe(200);
  const shared = (await send(api0, 'POST', '/assistants', { details: { name: 'shared' } })).json.id as string;
  const victims: string[] = [];
  for (let v = 0; v < VICTIMS; v++) victims.push((await send(api0, 'POST', '/assistants', { details: { name: `victim ${v}` } })).json.id);

  const created: string[][] = [];
  const merged: number[] = [];
  const deletes: Record<string, number[]> = {};
  const feedback: number[] = [];
  let ingested = 0;

  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const api = apiFor(c);
      const mine: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await send(api, 'POST', '/variables', { name: `C${c}_${i}`, value: 'new' });
        expect(r.status).toBe(200);
        mine.push(r.json.id);
      }
      created[c] = mine;
      // Each client ingests PER_CLIENT messages of a shared pool; neighbours overlap.
      const ids = Array.from({ length: PER_CLIENT }, (_, k) => `${flow}-m${(c * 7 + k) % POOL}`);
      const ingest = send(api, 'POST', `/chatmessage/${flow}`, ids.map((id) => ({ id, role: 'userMessage', content: id })));
      // Everybody merges a key of their own into the one assistant, at the same time.
      const merge = send(api, 'PUT', `/assistants/${shared}`, { details: { [`k${c}`]: c } });
      // Five clients race to delete each victim; ten clients race to rate one message.
      const victim = victims[c % VICTIMS]!;
      const del = send(api, 'DELETE', `/assistants/${victim}`);
      const rate = send(api, 'POST', '/feedback', { messageId: rated, rating: c % 2 ? 'THUMBS_UP' : 'THUMBS_DOWN' });
      for (const [i, id] of mine.entries()) expect((await send(api, 'PUT', `/variables/${id}`, { value: `${c}-${i}` })).status).toBe(200);
      expect((await send(api, 'DELETE', `/variables/${mine[0]}`)).status).toBe(200);
      const [ingestReply, mergeReply, delReply, rateReply] = await Promise.all([ingest, merge, del, rate]);
      expect(ingestReply.status).toBe(200);
      ingested += ingestReply.json.affected;
      if (mergeReply.status === 200) merged.push(c);
      (deletes[victim] ??= []).push(delReply.status);
      feedback.push(rateReply.status);
    }),
  );

  expect(bad, 'no 5xx, no locked database').toEqual([]);
  // Variables: every create got its own id; deletes took; each update landed.
  const all = created.flat();
  expect(new Set(all).size).toBe(CLIENTS * 4);
  const variables = (await send(api0, 'GET', '/variables')).json as { id: string; name: string; value: string }[];
  const byId = new Map(variables.map((v) => [v.id, v]));
  expect(byId.size).toBe(variables.length);
  for (const [c, mine] of created.entries()) {
    expect(byId.has(mine[0]!)).toBe(false);
    for (let i = 1; i < 4; i++) expect(byId.get(mine[i]!), `C${c}_${i}`).toMatchObject({ name: `C${c}_${i}`, value: `${c}-${i}` });
  }
  // No lost update: every merge that was acknowledged is in the details.
  expect(merged).toHaveLength(CLIENTS);
  const details = (await send(api0, 'GET', `/assistants/${shared}`)).json.details as Record<string, unknown>;
  expect(details).toEqual({ name: 'shared', ...Object.fromEntries(merged.map((c) => [`k${c}`, c])) });
  // Overlapping ingests: each message once, and the affected counts add up to exactly that.
  const messages = (await send(api0, 'GET', `/chatmessage/${flow}`)).json as { id: string }[];
  const distinct = new Set(Array.from({ length: CLIENTS }, (_, c) => Array.from({ length: PER_CLIENT }, (_, k) => (c * 7 + k) % POOL)).flat()).size;
  expect(messages).toHaveLength(distinct + 1);
  expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
  expect(ingested).toBe(distinct);
  // Racing deletes: one wins, the others are told it is gone.
  for (const [victim, got] of Object.entries(deletes)) expect(got.sort(), victim).toEqual([200, ...Array(got.length - 1).fill(404)]);
  // Racing ratings: one feedback, the others refused as duplicates.
  expect(feedback.sort()).toEqual([200, ...Array(CLIENTS - 1).fill(409)]);
  expect((await send(api0, 'GET', `/feedback/${flow}`)).json).toHaveLength(1);
  return { clients: CLIENTS, requests, statuses };
}

describe.each(storeKinds)(`${CLIENTS} concurrent clients on one server on %s`, (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startStoreServer(kind);
  });
  afterAll(() => server?.dispose());

  it('nothing lost, no duplicate, no 5xx', { timeout: 60_000 }, async () => {
    const dispatcher = agent(CLIENTS);
    try {
      const outcome = await workload(() => server.api, dispatcher);
      console.log(`concurrency on ${kind}: ${outcome.clients} clients, ${outcome.requests} requests at once, statuses ${JSON.stringify(outcome.statuses)}`);
    } finally {
      await dispatcher.destroy();
    }
  });
});

describe('three serve processes sharing one SQLite file', () => {
  const PROCESSES = 3;
  let servers: ServeProcess[] = [];
  let db: string;
  afterAll(killAll);

  it('start together on a new file, then take 50 clients at once: nothing lost, no duplicate, no 5xx', { timeout: 90_000 }, async () => {
    const home = createHome();
    db = join(home.dir, 'shared.db');
    // Started at the same moment on a file that does not exist yet: the migrations race too.
    servers = await Promise.all(Array.from({ length: PROCESSES }, () => startServe(['--db', db, '--log'], { home })));
    const dispatcher = agent(CLIENTS);
    try {
      const outcome = await workload((c) => servers[c % PROCESSES]!.api, dispatcher);
      console.log(
        `concurrency on ${PROCESSES} processes sharing one SQLite file: ${outcome.clients} clients, ${outcome.requests} requests, statuses ${JSON.stringify(outcome.statuses)}`,
      );
    } finally {
      await dispatcher.destroy();
    }
    for (const s of servers) {
      expect(s.stderr()).not.toMatch(/locked|SQLITE_BUSY|error on/);
      expect((await s.stop('SIGTERM')).exitCode).toBe(0);
    }
    const check = openSqliteFile(db, { readonly: true });
    try {
      expect(pragmaValue(check, 'integrity_check')).toBe('ok');
    } finally {
      check.close();
    }
  });
});
