// Streaming lists the way our service sends them: `[\n` + one JSON object per line + `\n]`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ChatflowClient, ChatflowError } from '../../src/client/index.js';
import { asReported } from '../helpers/exit.js';

const ROWS = 50_000;
const row = (i: number) => ({
  id: `m-${i}`,
  role: i % 2 ? 'apiMessage' : 'userMessage',
  chatflowid: 'flow',
  content: `message ${i} — héllo 😀 中文 "quoted" \\ back\nslash`,
  usedTools: i % 1000 === 0 ? '[{"tool":"calc"}]' : [],
  chatType: 'INTERNAL',
  chatId: `c${i % 7}`,
  createdDate: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
});

let server: http.Server;
let client: ChatflowClient;
let gate: () => void = () => undefined;
let closedEarly = 0;

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const headers = { 'content-type': 'application/json; charset=utf-8' };
    if (url.pathname === '/api/v1/chatmessage/flow' && !url.searchParams.has('page')) {
      res.writeHead(200, headers);
      // Bytes written in odd-sized pieces, so that lines and multi-byte characters straddle chunks.
      const body = Buffer.from(`[\n${Array.from({ length: ROWS }, (_, i) => JSON.stringify(row(i))).join(',\n')}\n]`);
      for (let i = 0; i < body.length; i += 65_537) {
        if (!res.write(body.subarray(i, i + 65_537))) await new Promise((r) => res.once('drain', r));
      }
      res.end();
      return;
    }
    if (url.pathname === '/api/v1/chatmessage/flow') {
      const page = Number(url.searchParams.get('page'));
      const limit = Number(url.searchParams.get('limit'));
      res.writeHead(200, { ...headers, 'x-total-count': String(ROWS) });
      res.end(JSON.stringify(Array.from({ length: limit }, (_, i) => row((page - 1) * limit + i))));
      return;
    }
    if (url.pathname === '/api/v1/variables') {
      // First line, then wait until the test has received it: proves incremental parsing.
      res.writeHead(200, headers);
      res.write('[\n{"id":"1","name":"first"},\n');
      await new Promise<void>((r) => (gate = r));
      res.end('{"id":"2","name":"second"}\n]');
      return;
    }
    if (url.pathname === '/api/v1/upsert-history') {
      // Endless stream: the client stops early and must drop the connection.
      res.writeHead(200, headers);
      res.on('close', () => (closedEarly += 1));
      res.write('[\n');
      let i = 0;
      const tick = () => {
        if (res.destroyed) return;
        res.write(`${JSON.stringify({ id: String(i++) })},\n`, () => setTimeout(tick, 1));
      };
      tick();
      return;
    }
    if (url.pathname === '/api/v1/feedback/bad') {
      res.writeHead(200, headers).end('[\n{"id":"a"},\n{oops},\n{"id":"c"}\n]');
      return;
    }
    if (url.pathname === '/api/v1/feedback/compact') {
      // Flowise's shape: the whole array on one line. First element (with a comma and a bracket
      // inside a string), then wait until the test has received it.
      res.writeHead(200, headers);
      res.write('[{"id":"a","content":"x, [y]}\\"z"},');
      await new Promise<void>((r) => (gate = r));
      res.end('{"id":"b","nested":{"k":[1,{"l":2}]}}]');
      return;
    }
    if (url.pathname === '/api/v1/feedback/compact-cut') {
      res.writeHead(200, headers);
      res.write('[{"id":"a"},{"id":"b"},{"id":"c","con');
      setTimeout(() => res.destroy(), 20);
      return;
    }
    if (url.pathname === '/api/v1/feedback/cut') {
      res.writeHead(200, headers);
      res.write('[\n{"id":"a"},\n{"id":"b"},\n');
      setTimeout(() => res.destroy(), 20);
      return;
    }
    res.writeHead(404, headers).end('{"statusCode":404,"success":false,"message":"Route GET:/x not found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, retries: 0 });
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('streamed lists', () => {
  it(`parses ${ROWS} line-per-object rows as they arrive`, async () => {
    let n = 0;
    let stringsParsed = 0;
    for await (const m of client.messages.stream('flow')) {
      if (n === 12_345) expect(m).toEqual({ ...row(12_345), usedTools: [] });
      if (n % 1000 === 0 && Array.isArray(m.usedTools) && m.usedTools.length === 1) stringsParsed += 1;
      n += 1;
    }
    expect(n).toBe(ROWS);
    expect(stringsParsed).toBe(ROWS / 1000);
  });

  it('list() of the same stream gives every row', async () => {
    const { items, total } = await client.messages.list('flow');
    expect(items).toHaveLength(ROWS);
    expect(items[ROWS - 1]!.id).toBe(`m-${ROWS - 1}`);
    expect(total).toBeUndefined();
  });

  it('reads total from X-Total-Count on pages', async () => {
    const { items, total } = await client.messages.list('flow', { page: 3, limit: 10 });
    expect(total).toBe(ROWS);
    expect(items.map((m) => m.id)[0]).toBe('m-20');
  });

  it('yields the first element before the server has sent the rest', async () => {
    const names: string[] = [];
    for await (const v of client.variables.stream()) {
      names.push(v.name);
      if (names.length === 1) gate();
    }
    expect(names).toEqual(['first', 'second']);
  });

  it('a list on one line (Flowise): each element as soon as it is whole, not the whole body first', async () => {
    const got: unknown[] = [];
    for await (const f of client.feedback.stream('compact')) {
      got.push(f);
      if (got.length === 1) gate();
    }
    expect(got).toEqual([
      { id: 'a', content: 'x, [y]}"z' },
      { id: 'b', nested: { k: [1, { l: 2 }] } },
    ]);
  });

  it('a list on one line cut short is an error after the elements that came whole', async () => {
    const got: string[] = [];
    const err = await (async () => {
      try {
        for await (const f of client.feedback.stream('compact-cut')) got.push(f.id);
      } catch (e) {
        return e;
      }
    })();
    expect(got).toEqual(['a', 'b']);
    expect(asReported(err)).toMatchObject({ kind: 'network', exitCode: 5 });
  });

  it('stopping early drops the connection', async () => {
    let n = 0;
    for await (const _ of client.upsertHistory.stream(undefined)) if (++n === 100) break;
    await expect.poll(() => closedEarly, { timeout: 2_000 }).toBe(1);
  });

  it('a stream cut short is an error, not a short list', async () => {
    const got: string[] = [];
    const err = await (async () => {
      try {
        for await (const f of client.feedback.stream('cut')) got.push(f.id);
      } catch (e) {
        return e;
      }
    })();
    expect(got).toEqual(['a', 'b']);
    expect(err).toBeInstanceOf(ChatflowError);
    expect(asReported(err)).toMatchObject({ kind: 'network', exitCode: 5 });
    expect((err as ChatflowError).message).toMatch(/^lost the connection to http:\/\/127\.0\.0\.1:\d+ while reading GET \/feedback\/cut/);
  });

  it('a malformed line after the first elements is an invalid-response', async () => {
    const got: string[] = [];
    const err = await (async () => {
      try {
        for await (const f of client.feedback.stream('bad')) got.push(f.id);
      } catch (e) {
        return e;
      }
    })();
    expect(got).toEqual(['a']);
    expect(asReported(err)).toMatchObject({ kind: 'invalid-response', exitCode: 1 });
    expect((err as Error).message).toBe("the server's answer to GET /feedback/bad is not a readable list (malformed list: a line that is not one JSON value)");
  });

  it('our service JSON errors map by status', async () => {
    const e = await client.assistants.get('x').catch((x: unknown) => x);
    expect(asReported(e)).toMatchObject({ kind: 'http', status: 404, exitCode: 3, message: 'Route GET:/x not found' });
  });
});
