// The service in the caller's process (server/in-process.ts) answers as the app does over HTTP: a
// request of the route table is dispatched without fastify, anything else goes to the app, and
// either way each answer (status, content type, total, body) is the one fastify's app gives. The
// same requests go to the in-process service on one new database and to the app itself (fastify's
// inject) on another; ids and instants, made anew on each, are compared by their place.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { openInProcess, type InProcessService } from '../../src/server/in-process.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';

interface Seen {
  status: number;
  type: unknown;
  total: unknown;
  body: string;
}
type Send = (method: string, path: string, body?: string, headers?: Record<string, string>) => Promise<Seen>;

const API = '/api/v1';
const json = { 'content-type': 'application/json' };
const ndjson = { 'content-type': 'application/x-ndjson' };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

/** The requests, in order; `{id}` and `{message}` stand for the ids the answers before gave. */
const REQUESTS: [method: string, path: string, body?: unknown, headers?: Record<string, string>][] = [
  ['GET', '/ping'],
  ['GET', '/version'],
  ['GET', '/chatflows'],
  ['GET', '/variables'],
  ['POST', '/variables', { name: 'ONE', value: '1' }],
  ['POST', '/variables', { name: 'TWO', value: '2', type: 'runtime' }],
  ['POST', '/variables', { value: 'no name' }],
  ['POST', '/variables', { name: 'BAD', type: 'other' }],
  ['POST', '/variables', '{"name": '],
  ['POST', '/variables', '{"name": "x", "__proto__": {}}'],
  ['POST', '/variables', '"text"'],
  ['POST', '/variables', '[]'],
  ['POST', '/variables', ''],
  ['POST', '/variables'],
  ['POST', '/variables', '{"name":"T"}', { 'content-type': 'text/plain' }],
  ['POST', '/variables', '{"name":"T"}', { 'content-type': 'application/json; charset=utf-8' }],
  ['GET', '/variables'],
  ['GET', '/variables?page=1&limit=1'],
  ['GET', '/variables?limit=abc'],
  ['GET', '/variables?limit=1&limit=2'],
  ['GET', '/variables?other=1'],
  ['GET', '/variables/'],
  ['GET', '/variables/import'],
  ['GET', '/variables/{id}'],
  ['PATCH', '/variables'],
  ['HEAD', '/variables'],
  ['HEAD', '/chatmessage/flow1'],
  ['GET', '/feedback/import'],
  ['GET', '/feedback/flow1/'],
  ['PUT', '/variables/{id}', { value: 'changed' }],
  ['PUT', '/variables/00000000-0000-4000-8000-000000000000', { value: 'x' }],
  ['PUT', '/variables/not-a-uuid', { value: 'x' }],
  ['PUT', '/variables/%7Bid%7D', { value: 'x' }],
  ['DELETE', '/variables/00000000-0000-4000-8000-000000000000'],
  ['POST', '/variables/import', [{ name: 'IMPORTED', value: 'i' }]],
  ['POST', '/variables/import', [{ value: 'no name' }]],
  ['GET', '/nowhere'],
  ['GET', '/'],
  ['GET', '/openapi.json?x=1'],
  ['POST', '/assistants', { details: '{"name":"a","instructions":"i"}', credential: 'c' }],
  ['POST', '/assistants', { details: 'not json', credential: 'c' }],
  ['POST', '/assistants', { details: { name: 'b', temperature: 5 }, credential: 'c' }],
  ['GET', '/assistants'],
  ['GET', '/assistants?type=OPENAI'],
  ['GET', '/assistants?type=nope'],
  ['GET', '/assistants/00000000-0000-4000-8000-000000000000'],
  ['POST', '/chatmessage/flow1', [
    { role: 'userMessage', content: 'hello', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1' },
    { role: 'apiMessage', content: 'hi', chatType: 'EXTERNAL', chatId: 'c1', sessionId: 's2' },
  ]],
  ['POST', '/chatmessage/flow1', { role: 'nobody', content: 'x' }],
  ['GET', '/chatmessage/flow1'],
  ['GET', '/chatmessage/flow1?sessionId=s1&sessionId=s2&order=DESC'],
  ['GET', '/chatmessage/flow1?chatType=INTERNAL&chatType=EXTERNAL&page=1&limit=1'],
  ['GET', '/chatmessage/flow1?startDate=yesterday'],
  ['GET', '/chatmessage/flow1?feedback=true&feedbackType=THUMBS_UP'],
  ['GET', '/chatmessage/flow1?sessionId=a+b%20c&chatId=%E2%9C%93'],
  ['GET', '/chatmessage/flow1?sessionId=%ZZ'],
  ['POST', '/feedback', { messageId: '{message}', rating: 'THUMBS_UP' }],
  ['POST', '/feedback', { messageId: '{message}', rating: 'THUMBS_DOWN' }],
  ['POST', '/feedback', { messageId: 'missing', rating: 'THUMBS_UP' }],
  ['GET', '/feedback/flow1'],
  ['GET', '/chatmessage/flow1?feedback=true'],
  ['GET', '/upsert-history'],
  ['PATCH', '/upsert-history', { ids: ['00000000-0000-4000-8000-000000000000'] }],
  ['PATCH', '/upsert-history', { ids: 'one' }],
  // The ingest routes' NDJSON form (server/ndjson.ts), streamed in this process too.
  ['POST', '/chatmessage/flow3', '{"role":"userMessage","content":"a"}\r\n\n{"role":"apiMessage","content":"b"}', ndjson],
  ['POST', '/chatmessage/flow3', '{"role":"userMessage"}\n{"role":"robot"}\n', ndjson],
  ['POST', '/chatmessage/flow3', '{"role":\n', ndjson],
  ['POST', '/chatmessage/flow3', '', ndjson],
  ['POST', '/variables/import', '{"name":"NDJSON"}\n', ndjson],
  ['POST', '/variables', '{"name":"NDJSON"}\n', ndjson],
  ['GET', '/chatmessage/flow3'],
  ['DELETE', '/chatmessage/flow2'],
  ['DELETE', '/chatmessage/flow1?sessionId=s2'],
  ['DELETE', '/variables/{id}'],
  ['DELETE', '/variables/{id}'],
];

/** Runs REQUESTS through `send`, each id taken from the answers as they come. */
async function run(send: Send): Promise<Seen[]> {
  const ids: Record<string, string> = {};
  const seen: Seen[] = [];
  for (const [method, path, body, headers] of REQUESTS) {
    const fill = (text: string) => text.replace(/\{(id|message)\}/g, (_, k: string) => ids[k] ?? k);
    const text = body === undefined ? undefined : fill(typeof body === 'string' ? body : JSON.stringify(body));
    const answer = await send(method, fill(`${API}${path}`), text, headers ?? (text === undefined ? {} : json));
    seen.push(answer);
    // Records made within one millisecond are listed in the order of their random ids, which
    // differ between the two databases: a write is followed by a tick of the clock.
    if (method !== 'GET') await new Promise((resolve) => setTimeout(resolve, 2));
    if (method === 'POST' && path === '/variables' && answer.status === 200) ids.id ??= (JSON.parse(answer.body) as { id: string }).id;
    if (method === 'GET' && path === '/chatmessage/flow1' && answer.status === 200) ids.message ??= (JSON.parse(answer.body) as { id: string }[])[0]!.id;
  }
  // Made anew on each database: compared by where they first appeared.
  const names = new Map<string, string>();
  const placed = (s: string) => s.replace(UUID, (u) => names.get(u) ?? (names.set(u, `<id ${names.size}>`), `<id ${names.size - 1}>`));
  return seen.map((s) => ({ ...s, body: placed(s.body).replace(INSTANT, '<instant>') }));
}

describe('the service in this process', () => {
  let dir: string;
  let direct: InProcessService;
  let closeApp: () => Promise<void>;
  let viaApp: Send;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatflow-in-process-'));
    direct = await openInProcess({ store: await openSqliteStore(join(dir, 'direct.db')) });
    const store = await openSqliteStore(join(dir, 'app.db'));
    const app = await buildApp({ store });
    closeApp = async () => {
      await app.close();
      await store.close();
    };
    viaApp = async (method, path, body, headers) => {
      const res = await app.inject({ method: method as 'GET', url: path, headers, ...(body === undefined ? {} : { payload: body }) });
      return { status: res.statusCode, type: res.headers['content-type'], total: res.headers['x-total-count'], body: res.body };
    };
  });
  afterAll(async () => {
    await direct?.close();
    await closeApp?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request as the app does: status, content type, total and body', async () => {
    const sendDirect: Send = async (method, path, body, headers = {}) => {
      const res = await direct.request(`http://embedded${path}`, { method, headers, body });
      return { status: res.statusCode, type: res.headers['content-type'], total: res.headers['x-total-count'], body: await res.body.text() };
    };
    const [mine, app] = [await run(sendDirect), await run(viaApp)];
    for (const [i, [method, path]] of REQUESTS.entries()) expect(mine[i], `${method} ${path}`).toEqual(app[i]);
    // (The requests reach what they are meant to: a stored record, a validation failure, a 404, 405, 415.)
    expect(new Set(app.map((a) => a.status))).toEqual(new Set([200, 400, 404, 405, 409, 415, 422]));
  });

  it('a list read part way and dropped stops there; the deadline aborts a request', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ role: 'userMessage', content: `m${i}`, chatType: 'INTERNAL', chatId: 'c', sessionId: 's' }));
    const posted = await direct.request('http://embedded/api/v1/chatmessage/long', { method: 'POST', headers: json, body: JSON.stringify(rows) });
    expect(JSON.parse(await posted.body.text())).toEqual({ affected: 3000 });
    const list = await direct.request('http://embedded/api/v1/chatmessage/long', { method: 'GET', headers: {}, body: undefined });
    const first = await list.body[Symbol.asyncIterator]().next();
    expect(Buffer.from(first.value as Uint8Array).toString()).toMatch(/^\[\n/);
    await list.body.dump();
    expect(list.body.destroyed).toBe(true);
    // Destroyed with an error while being read (the client's stall timer, a deadline): the reader gets it.
    const again = await direct.request('http://embedded/api/v1/chatmessage/long', { method: 'GET', headers: {}, body: undefined });
    const reading = again.body[Symbol.asyncIterator]();
    await reading.next();
    again.body.destroy(new Error('stalled'));
    await expect(reading.next()).rejects.toThrow('stalled');

    const signal = AbortSignal.abort();
    await expect(direct.request('http://embedded/api/v1/variables', { method: 'GET', headers: {}, body: undefined, signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
  it('a long list read to its end holds none of the chunks it gave (memory stays flat whatever the length)', async () => {
    // Some 12 MB of answer: 6,000 messages of 2 KB, posted 400 at a time (within the body limit).
    const content = 'x'.repeat(2000);
    for (let i = 0; i < 6000; i += 400) {
      const rows = Array.from({ length: 400 }, (_, k) => ({ role: 'userMessage', content, chatType: 'INTERNAL', chatId: 'c', sessionId: `s${i + k}` }));
      const posted = await direct.request('http://embedded/api/v1/chatmessage/big', { method: 'POST', headers: json, body: JSON.stringify(rows) });
      expect(posted.statusCode, await posted.body.text()).toBe(200);
    }
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const list = await direct.request('http://embedded/api/v1/chatmessage/big', { method: 'GET', headers: {}, body: undefined });
    gc();
    const before = process.memoryUsage().arrayBuffers;
    let bytes = 0;
    for await (const chunk of list.body) bytes += chunk.length;
    // (The answer is still referenced here, as a reader holds it until it is done.) V8 frees the
    // memory of collected buffers on a thread of its own: on a loaded machine it may lag the
    // collection, so the count is read again for a while; chunks still held never go.
    let held = Infinity;
    for (let tries = 0; tries < 40 && held >= bytes / 4; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
      held = process.memoryUsage().arrayBuffers - before;
    }
    expect(bytes).toBeGreaterThan(12_000_000);
    expect(held).toBeLessThan(bytes / 4);
    expect(list.body.destroyed).toBe(true);
  });
});
