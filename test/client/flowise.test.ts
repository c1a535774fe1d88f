// The client against a stand-in for a real Flowise 3.1 (test/helpers/flowise-fixture.ts).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChatflowError, createClient, type ChatflowClient } from '../../src/client/index.js';
import { CHATFLOW_A, CHATFLOW_B, startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { asReported } from '../helpers/exit.js';
import { startConnectProxy, type ConnectProxy } from '../helpers/proxy.js';

let fx: FlowiseFixture;
let client: ChatflowClient;
let debug: string[];
const opened: ChatflowClient[] = [];

function make(opts: Partial<Parameters<typeof createClient>[0]> = {}): ChatflowClient {
  const c = createClient({ baseUrl: fx.url, apiKey: fx.apiKey, retryDelayMs: 20, onDebug: (l) => debug.push(l), ...opts });
  opened.push(c);
  return c;
}

async function failure(p: Promise<unknown> | (() => Promise<unknown>)): Promise<ChatflowError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(ChatflowError);
    return err as ChatflowError;
  }
  throw new Error('expected a ChatflowError');
}

async function collect<T>(src: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of src) out.push(x);
  return out;
}

beforeEach(async () => {
  fx = await startFlowiseFixture();
  debug = [];
  client = make();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  await fx.close();
});

describe('service', () => {
  it('ping and version (Flowise answers pong as text/html)', async () => {
    expect(await client.ping()).toBe('pong');
    expect(await client.version()).toEqual({ version: '3.1.2' });
  });

  it('accepts a base URL that already ends with /api/v1', async () => {
    const c = make({ baseUrl: `${fx.url}/api/v1/` });
    expect(await c.version()).toEqual({ version: '3.1.2' });
    expect(fx.requests.at(-1)!.url).toBe('/api/v1/version');
  });
});

describe('variables', () => {
  it('lists compact arrays and normalises {data,total} pages', async () => {
    const all = await client.variables.list();
    expect(all.items.map((v) => v.name)).toEqual(['v_runtime', 'v_notype', 'v_static']);
    expect(all.total).toBeUndefined();
    const page = await client.variables.list({ page: 1, limit: 2 });
    expect(page).toMatchObject({ total: 3 });
    expect(page.items).toHaveLength(2);
    expect(await collect(client.variables.stream())).toHaveLength(3);
  });

  it('creates (numeric value read back as a string), updates, deletes', async () => {
    const v = await client.variables.create({ name: 'n', value: 42 as unknown as string });
    expect(v).toMatchObject({ name: 'n', value: '42', type: 'string' });
    expect(await client.variables.update(v.id, { value: 'x' })).toMatchObject({ id: v.id, value: 'x' });
    expect(await client.variables.delete(v.id)).toEqual({ affected: 1 });
  });

  it('plain-text 404 on an unknown id; affected 0 on delete becomes a 404', async () => {
    const e = await failure(client.variables.update('unknown', { value: 'x' }));
    expect(asReported(e)).toMatchObject({ kind: 'http', status: 404, exitCode: 3, message: 'Variable not found in the database' });
    const d = await failure(client.variables.delete('00000000-0000-0000-0000-000000000000'));
    expect(asReported(d)).toMatchObject({ status: 404, exitCode: 3 });
  });

  it('a 500 missing-column error keeps exit 1 and loses its prefix', async () => {
    const e = await failure(client.variables.create({} as never));
    expect(asReported(e)).toMatchObject({ kind: 'http', status: 500, exitCode: 1 });
    expect(e.message).toBe('SQLITE_CONSTRAINT: NOT NULL constraint failed: variable.name');
  });

  it('412 is a usage error', async () => {
    const e = await failure(client.variables.list({ page: -1, limit: 2 }));
    expect(asReported(e)).toMatchObject({ status: 412, exitCode: 2, message: 'page cannot be negative!' });
  });
});

describe('feedback', () => {
  it('lists with order sent upper case under the name Flowise reads', async () => {
    const { items } = await client.feedback.list(CHATFLOW_A, { sortOrder: 'desc' });
    expect(items.map((f) => f.rating)).toEqual(['THUMBS_DOWN', 'THUMBS_UP']);
    expect(fx.requests.at(-1)!.url).toBe(`/api/v1/feedback/${CHATFLOW_A}?order=DESC`);
  });

  it('create answers the row; update turns {"status":"OK"} into the merged input', async () => {
    const f = await client.feedback.create({ messageId: 'aaaaaaaa-0000-0000-0000-000000000006', rating: 'THUMBS_UP' });
    expect(f).toMatchObject({ chatId: 'c3', chatflowid: CHATFLOW_A, rating: 'THUMBS_UP' });
    const u = await client.feedback.update(f.id, { rating: 'THUMBS_DOWN', content: 'meh' });
    expect(u).toEqual({ id: f.id, rating: 'THUMBS_DOWN', content: 'meh' });
    const e = await failure(client.feedback.update('nope', { rating: 'THUMBS_UP' }));
    expect(asReported(e)).toMatchObject({ status: 404, exitCode: 3, message: 'Feedback with ID nope not found' });
    const bad = await failure(client.feedback.create({ rating: 'THUMBS_UP' } as never));
    expect(asReported(bad)).toMatchObject({ status: 400, exitCode: 2, message: 'Message ID is required' });
  });
});

describe('assistants', () => {
  it('parses details from the JSON string on every read', async () => {
    const { items } = await client.assistants.list({ type: 'CUSTOM' });
    expect(items[0]!.details).toEqual({ name: 'asst-one', instruction: 'be helpful', chatModel: {}, tools: [] });
    const a = await client.assistants.get(items[0]!.id);
    expect(a.details.name).toBe('asst-one');
  });

  it('sends details as a JSON string and reads back an object', async () => {
    const a = await client.assistants.create({ details: { name: 'two', temperature: 1 }, credential: 'c', type: 'CUSTOM' });
    expect(a.details).toEqual({ name: 'two', temperature: 1 });
    const u = await client.assistants.update(a.id, { details: { name: 'two-b' }, iconSrc: '/i.png' });
    expect(u).toMatchObject({ details: { name: 'two-b' }, iconSrc: '/i.png' });
    expect(await client.assistants.delete(a.id)).toEqual({ affected: 1 });
  });

  it('a 500 "Assistant X not found" is a 404', async () => {
    const e = await failure(client.assistants.get('00000000-0000-0000-0000-000000000000'));
    expect(asReported(e)).toMatchObject({ kind: 'http', status: 404, exitCode: 3, message: 'Assistant 00000000-0000-0000-0000-000000000000 not found' });
    const d = await failure(client.assistants.delete('00000000-0000-0000-0000-000000000000'));
    expect(asReported(d).exitCode).toBe(3);
  });
});

describe('chat messages', () => {
  it('lists with repeated chatType and parses array fields held as strings', async () => {
    const { items } = await client.messages.list(CHATFLOW_A, { chatType: ['INTERNAL', 'EXTERNAL'], order: 'desc' });
    expect(items.map((m) => m.content)[0]).toBe('answer (c3)');
    // A whole chatflow is read by date windows (src/client/date-windows.ts), newest first as asked,
    // each window with the filters.
    const asked = fx.requests.filter((q) => q.url.startsWith(`/api/v1/chatmessage/${CHATFLOW_A}?`)).map((q) => new URL(q.url, 'http://x').searchParams);
    const window = asked.find((q) => !q.has('page'))!;
    expect([window.getAll('chatType'), window.get('order'), window.has('feedback')]).toEqual([['INTERNAL', 'EXTERNAL'], 'DESC', false]);
    const b = await collect(client.messages.stream(CHATFLOW_B));
    expect(b[1]!.usedTools).toEqual([{ tool: 'calculator', toolInput: { x: '1+1' }, toolOutput: '2' }]);
    expect(b[1]!.sourceDocuments).toEqual([{ pageContent: 'doc', metadata: {} }]);
  });

  it('leaves feedback=false out (Flowise takes it as true); feedback=true keeps only rated messages', async () => {
    const off = await client.messages.list(CHATFLOW_A, { feedback: false });
    expect(off.items).toHaveLength(6);
    expect(off.items[0]).not.toHaveProperty('feedback');
    const on = await client.messages.list(CHATFLOW_A, { feedback: true });
    expect(on.items.map((m) => [m.id.slice(-1), m.feedback?.rating])).toEqual([['2', 'THUMBS_UP'], ['4', 'THUMBS_DOWN']]);
    // Rated messages are decided by the chatflow's ratings, not by Flowise's feedback filter.
    expect(fx.requests.some((q) => q.url.startsWith(`/api/v1/feedback/${CHATFLOW_A}`))).toBe(true);
    expect(fx.requests.some((q) => q.url.includes('feedbackType'))).toBe(false);
  });

  it('normalises {"raw":[],"affected":N} deletes; an unknown chatflow matches nothing (404)', async () => {
    expect(await client.messages.delete(CHATFLOW_A, { chatId: 'c1' })).toEqual({ affected: 2 });
    const e = await failure(client.messages.delete('nope'));
    expect(asReported(e)).toMatchObject({ status: 404, exitCode: 3, message: 'no chat messages of chatflow nope match' });
  });

  it('a delete Flowise would widen is refused before anything is sent; one that removes more is an error', async () => {
    const n = fx.requests.length;
    const e = await failure(client.messages.delete(CHATFLOW_A, { feedbackType: 'THUMBS_DOWN' }));
    expect(asReported(e)).toMatchObject({ kind: 'refused', exitCode: 2, code: 'DELETE_BY_RATING' });
    expect(fx.requests.slice(n).filter((q) => q.method === 'DELETE')).toEqual([]);
    // A plan whose count is short of what the server removes (a message arrived since, say).
    const plan = await client.messages.planDelete(CHATFLOW_A, { chatId: 'c2' });
    expect(plan).toMatchObject({ matched: 2, query: { chatId: 'c2' } });
    const x = await failure(client.messages.delete(CHATFLOW_A, { ...plan, matched: 1 }));
    expect(asReported(x)).toMatchObject({ kind: 'inexact', exitCode: 1, message: 'the server deleted 2 messages where the filters matched 1 message: 1 more than asked' });
  });

  it('ingest is unsupported on Flowise (it answers its UI page)', async () => {
    const e = await failure(client.messages.ingest(CHATFLOW_A, [{ role: 'userMessage', content: 'x' }]));
    expect(asReported(e)).toMatchObject({ kind: 'unsupported', exitCode: 1, message: 'this server does not support importing chat messages' });
    expect(e).toMatchObject({ message: `this server does not support POST /chatmessage/${CHATFLOW_A}`, resource: 'chat messages', operation: 'import' });
  });
});

describe('chats', () => {
  it('a plain end date takes its whole day on Flowise, for a chat without a session too', async () => {
    // One chat in a session, one without (never in a session page: read by its date window).
    const at = (hour: number) => `2026-05-01T${String(hour).padStart(2, '0')}:00:00.000Z`;
    fx.seed('day', {
      messages: [
        { id: 'd-1', role: 'userMessage', content: 'in a session', chatId: 'd-s', sessionId: 's', createdDate: at(9) },
        { id: 'd-2', role: 'userMessage', content: 'no session', chatId: 'd-none', createdDate: at(12) },
      ],
    });
    const { items } = await client.chats.list(fx.idOf('day'), { startDate: '2026-05-01', endDate: '2026-05-01' });
    expect(items.map((c) => c.chatId).sort()).toEqual(['d-none', 'd-s']);
  });
});

describe('upsert history', () => {
  it('lists one chatflow or all', async () => {
    expect((await client.upsertHistory.list(CHATFLOW_A, { order: 'desc' })).items.map((u) => u.id.slice(-1))).toEqual(['3', '2', '1']);
    expect((await client.upsertHistory.list(undefined)).items).toHaveLength(4);
  });

  it('delete goes to PATCH /upsert-history (Flowise lacks /{id}), keeping to that chatflow', async () => {
    // ...04 belongs to chatflow B: asked to delete within A, it must survive the fallback.
    const ids = ['bbbbbbbb-0000-0000-0000-000000000001', 'bbbbbbbb-0000-0000-0000-000000000004', 'unknown'];
    const r = await client.upsertHistory.delete(ids, CHATFLOW_A);
    expect(r).toEqual({ affected: 1 });
    expect(fx.requests.slice(-2).map((q) => `${q.method} ${q.url}`)).toEqual([
      `GET /api/v1/upsert-history/${CHATFLOW_A}`,
      'PATCH /api/v1/upsert-history',
    ]);
    expect((await client.upsertHistory.list(undefined)).items.map((u) => u.id)).toContain('bbbbbbbb-0000-0000-0000-000000000004');
    expect(await client.upsertHistory.delete([])).toEqual({ affected: 0 });
  });
});

describe('chatflows', () => {
  it('keeps only id and name', async () => {
    expect(await client.chatflows.list()).toEqual([
      { id: CHATFLOW_A, name: 'peer-flow-A' },
      { id: CHATFLOW_B, name: 'peer-flow-B' },
    ]);
  });
});

describe('errors', () => {
  it('401 without a key or with a wrong one, key never shown', async () => {
    const none = await failure(make({ apiKey: undefined }).variables.list());
    expect(asReported(none)).toMatchObject({ kind: 'http', status: 401, exitCode: 4 });
    expect(none.message).toMatch(/^unauthorized: the server requires an API key/);
    const wrongKey = 'sekrit-wrong-key-123';
    const wrong = await failure(make({ apiKey: wrongKey }).variables.list());
    expect(asReported(wrong).message).toBe("unauthorized: the server refused the API key (set one with --api-key, CHATFLOW_API_KEY or 'chatflow login')");
    expect(JSON.stringify({ ...wrong, message: wrong.message, stack: wrong.stack })).not.toContain(wrongKey);
  });

  it('403 {"message":"Forbidden"} exits 4', async () => {
    const e = await failure(make({ apiKey: fx.readOnlyKey }).assistants.list());
    expect(asReported(e)).toMatchObject({ status: 403, exitCode: 4, message: 'forbidden: the API key may not read assistants' });
    expect(e).toMatchObject({ method: 'GET', path: '/assistants', resource: 'assistants', operation: 'read' });
  });

  it('unknown routes answered with the UI page are unsupported', async () => {
    const e = await failure(client.upsertHistory.ingest(CHATFLOW_A, [{ result: {} }]));
    expect(asReported(e)).toMatchObject({ kind: 'unsupported', exitCode: 1 });
    // A base URL with a wrong prefix reaches the UI page too, also when streaming.
    const s = await failure(() => collect(make({ baseUrl: `${fx.url}/nowhere` }).variables.stream()));
    expect(s).toMatchObject({ kind: 'unsupported', message: 'this server does not support GET /variables' });
  });

  it('raw() answers any status without throwing', async () => {
    const r = await client.raw('GET', '/variables', undefined, { page: 1, limit: 1 });
    expect(r).toMatchObject({ status: 200, body: { total: 3 } });
    const n = await make({ apiKey: undefined }).raw('get', '/api/v1/variables');
    expect(n).toMatchObject({ status: 401, body: { error: 'Unauthorized Access' } });
    const h = await client.raw('GET', '/nothing');
    expect(h.status).toBe(200);
    expect(String(h.body)).toMatch(/^<!DOCTYPE html>/);
  });

  it('debug lines: one per request, with status and time, never the key', async () => {
    await client.variables.list();
    await failure(client.assistants.get('nope'));
    expect(debug).toHaveLength(2);
    expect(debug[0]).toMatch(new RegExp(`^GET ${fx.url}/api/v1/variables 200 \\d+ms$`));
    expect(debug[1]).toMatch(/^GET .*\/assistants\/nope 500 \d+ms$/);
    expect(debug.join('\n')).not.toContain(fx.apiKey);
  });

  it('retries a GET on 503 then succeeds; never retries a POST', async () => {
    fx.failNext('/api/v1/variables', 503, 2);
    const before = fx.requests.length;
    expect((await client.variables.list()).items).toHaveLength(3);
    expect(fx.requests.length - before).toBe(3);
    expect(debug.filter((l) => l.includes('retry'))).toEqual([
      expect.stringMatching(/^GET .* 503 \d+ms \(retry 1\/2 in 20ms\)$/),
      expect.stringMatching(/^GET .* 503 \d+ms \(retry 2\/2 in 40ms\)$/),
    ]);

    fx.failNext('/api/v1/variables', 503, 1);
    const n = fx.requests.length;
    const e = await failure(client.variables.create({ name: 'x', value: 'y' }));
    expect(asReported(e)).toMatchObject({ status: 503, exitCode: 1 });
    expect(fx.requests.length - n).toBe(1);
  });

  it('gives up after the retries', async () => {
    fx.failNext('/api/v1/variables', 502, 5);
    const n = fx.requests.length;
    const e = await failure(make({ retries: 1 }).variables.list());
    expect(asReported(e)).toMatchObject({ status: 502, exitCode: 1 });
    expect(fx.requests.length - n).toBe(2);
  });

  it('a malformed JSON body is invalid-response', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"version": "1.0"');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const c = make({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const e = await failure(c.version());
      expect(asReported(e)).toMatchObject({ kind: 'invalid-response', exitCode: 1 });
      expect(e.message).toBe("the server's answer to GET /version is not JSON");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('network', () => {
  it('connection refused names the URL and what to do', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const c = make({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k-refused-secret' });
    const e = await failure(c.variables.list());
    expect(asReported(e)).toMatchObject({ kind: 'network', exitCode: 5, code: 'ECONNREFUSED' });
    expect(asReported(e).message).toBe(
      `cannot reach http://127.0.0.1:${port} (connection refused): start one with 'chatflow serve' or point --url at a running server`,
    );
    // GET is retried on connection errors (2 retries), with a debug line each.
    expect(debug.filter((l) => l.includes('ECONNREFUSED'))).toHaveLength(3);
    expect(debug.join('\n')).not.toContain('k-refused-secret');
  });

  it('times out on a server that never answers', async () => {
    const c = make({ timeoutMs: 300 });
    const started = Date.now();
    const e = await failure(c.raw('GET', '/__hang'));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(asReported(e)).toMatchObject({ kind: 'timeout', exitCode: 5 });
    expect(e.message).toBe(`${fx.url} did not answer GET /__hang within 300ms (timed out)`);
  });

  describe('through HTTP_PROXY', () => {
    let proxy: ConnectProxy;
    const saved = { ...process.env };
    beforeAll(async () => {
      proxy = await startConnectProxy();
    });
    afterAll(async () => {
      await proxy.close();
      process.env = saved;
    });

    it('is honoured, and NO_PROXY bypasses it', async () => {
      const { url: proxyUrl, tunnels } = proxy;
      for (const k of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) delete process.env[k];
      process.env.HTTP_PROXY = proxyUrl;
      expect(await make().version()).toEqual({ version: '3.1.2' });
      expect(tunnels).toHaveLength(1);
      process.env.NO_PROXY = '127.0.0.1';
      expect(await make().version()).toEqual({ version: '3.1.2' });
      expect(tunnels).toHaveLength(1);
    });
  });
});
