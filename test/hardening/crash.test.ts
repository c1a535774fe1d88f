// Crash safety: `chatflow serve` killed with SIGKILL again and again in the middle of a write
// load (concurrent variable creates and updates, message ingests), restarted on the same SQLite
// file each time. Every write the client saw acknowledged (200) is there afterwards, every
// ingest is all or nothing, and SQLite's integrity check passes.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { request, type Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createHome } from '../helpers/cli.js';
import { agent, killAll, startServe, type ServeProcess } from './serve-process.js';
import { openSqliteFile, pragmaValue, pragmaRows } from '../helpers/sqlite-file.js';

const KILLS = 5;
const WORKERS = 16;
const BATCH = 5;
const FLOW = `crash-${randomUUID()}`;

afterAll(killAll);

interface Acked {
  /** id → name of every variable whose create was acknowledged. */
  created: Map<string, string>;
  /** variable id → highest value whose update was acknowledged. */
  updated: Map<string, number>;
  updates: number;
  /** Message ids of every acknowledged ingest. */
  ingested: Set<string>;
  /** Every ingest attempted (acknowledged or not), to check each is all or nothing. */
  attempted: string[][];
}

async function post(dispatcher: Agent, url: string, method: 'POST' | 'PUT', body: unknown): Promise<{ status: number; json: any } | undefined> {
  try {
    const res = await request(url, {
      method,
      dispatcher,
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: JSON.parse(text) };
  } catch {
    return undefined; // the server died under this request: not acknowledged
  }
}

/** One worker: its own variable, updated with an increasing counter, new variables and ingests. */
async function worker(server: ServeProcess, dispatcher: Agent, round: number, w: number, acked: Acked, own: { id?: string; n: number }, stopped: () => boolean) {
  for (let i = 0; !stopped(); i++) {
    const name = `V_${round}_${w}_${i}`;
    const created = await post(dispatcher, `${server.api}/variables`, 'POST', { name, value: name });
    if (!created) return;
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    acked.created.set(created.json.id, name);
    own.id ??= created.json.id;

    const n = ++own.n;
    const updated = await post(dispatcher, `${server.api}/variables/${own.id}`, 'PUT', { value: String(n) });
    if (!updated) return;
    expect(updated.status, JSON.stringify(updated.json)).toBe(200);
    acked.updated.set(own.id!, n);
    acked.updates++;

    const ids = Array.from({ length: BATCH }, (_, k) => `${FLOW}-${round}-${w}-${i}-${k}`);
    acked.attempted.push(ids);
    const ingest = await post(
      dispatcher,
      `${server.api}/chatmessage/${FLOW}`,
      'POST',
      ids.map((id, k) => ({ id, role: k % 2 ? 'apiMessage' : 'userMessage', content: `content of ${id}`, sessionId: `s${w}` })),
    );
    if (!ingest) return;
    expect(ingest.status, JSON.stringify(ingest.json)).toBe(200);
    expect(ingest.json).toEqual({ affected: BATCH });
    for (const id of ids) acked.ingested.add(id);
  }
}

describe('serve killed with SIGKILL under write load', () => {
  it(`keeps every acknowledged write across ${KILLS} kills; the database stays intact`, { timeout: 120_000 }, async () => {
    const home = createHome();
    const db = join(home.dir, 'crash.db');
    const acked: Acked = { created: new Map(), updated: new Map(), updates: 0, ingested: new Set(), attempted: [] };
    const owned = Array.from({ length: WORKERS }, () => ({ n: 0 }) as { id?: string; n: number });
    let kills = 0;

    for (let round = 0; round < KILLS; round++) {
      const server = await startServe(['--db', db], { home });
      const dispatcher = agent(WORKERS);
      let stop = false;
      const before = acked.created.size + acked.ingested.size;
      const workers = owned.map((own, w) => worker(server, dispatcher, round, w, acked, own, () => stop));
      // Let writes flow, then kill at a moment of the load's choosing.
      const deadline = Date.now() + 20_000;
      while (acked.created.size + acked.ingested.size < before + 200) {
        if (Date.now() > deadline) throw new Error(`no write load in round ${round}: ${server.stderr()}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 250)));
      const exit = await server.stop('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      kills++;
      stop = true;
      await Promise.all(workers);
      await dispatcher.destroy();
    }

    // Restarted on the same file: everything acknowledged is there.
    const server = await startServe(['--db', db], { home });
    try {
      const variables = (await (await fetch(`${server.api}/variables`)).json()) as { id: string; name: string; value: string }[];
      const byId = new Map(variables.map((v) => [v.id, v]));
      expect(byId.size).toBe(variables.length); // no id twice
      const missing = [...acked.created].filter(([id, name]) => byId.get(id)?.name !== name);
      expect(missing, 'acknowledged creates missing after the kills').toEqual([]);
      for (const [id, n] of acked.updated) {
        // The acknowledged value, or a later one whose answer the kill cut off.
        expect(Number(byId.get(id)?.value), id).toBeGreaterThanOrEqual(n);
      }

      const messages = (await (await fetch(`${server.api}/chatmessage/${FLOW}`)).json()) as { id: string }[];
      const present = new Set(messages.map((m) => m.id));
      expect(present.size).toBe(messages.length);
      expect([...acked.ingested].filter((id) => !present.has(id)), 'acknowledged ingests missing').toEqual([]);
      // An ingest is one transaction: all of it or none of it, whether acknowledged or not.
      const partial = acked.attempted.filter((ids) => {
        const n = ids.filter((id) => present.has(id)).length;
        return n !== 0 && n !== ids.length;
      });
      expect(partial).toEqual([]);

      console.log(
        `crash: ${kills} SIGKILLs survived; ${acked.created.size} acknowledged creates, ${acked.updates} acknowledged updates, ` +
          `${acked.ingested.size} acknowledged messages (${acked.attempted.length} ingests attempted): none lost, no ingest partial`,
      );
    } finally {
      expect((await server.stop('SIGTERM')).exitCode).toBe(0);
    }
    const check = openSqliteFile(db, { readonly: true });
    try {
      expect(pragmaValue(check, 'integrity_check')).toBe('ok');
      expect(pragmaRows(check, 'foreign_key_check')).toEqual([]);
    } finally {
      check.close();
    }
  });
});
