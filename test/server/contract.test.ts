// The contract at its edges: which route a path and method reach, which bodies and queries are
// refused and how they are named, what the OpenAPI document declares, the log line of every
// request, and a database whose disk is full.
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import { call, expectError, ok } from '../helpers/http.js';

const KEY = 'sk-contract-Key-0042';

describe('the service contract', () => {
  let dir: string;
  let open: RunningServer;
  let keyed: RunningServer;
  const lines: string[] = [];
  const keyedLines: string[] = [];
  let api: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatflow-contract-'));
    open = await startServer({ store: await openSqliteStore(join(dir, 'open.db')), port: 0, log: (l) => lines.push(l) });
    keyed = await startServer({ store: await openSqliteStore(join(dir, 'keyed.db')), port: 0, apiKeys: [KEY], log: (l) => keyedLines.push(l) });
    api = `${open.url}/api/v1`;
  });
  afterAll(async () => {
    await open?.close();
    await keyed?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('routing', () => {
    it('a literal path is never taken for a template: other methods on /…/import are 405 with Allow', async () => {
      for (const path of ['/variables/import', '/assistants/import', '/feedback/import']) {
        for (const method of ['GET', 'PUT', 'DELETE']) {
          const r = await call(method, `${api}${path}`, method === 'PUT' ? [] : undefined);
          expectError(r, 405, `${method} is not allowed on /api/v1${path}; use POST`);
          expect(r.headers.get('allow')).toBe('POST');
        }
      }
    });

    it('an unknown method is 405 with the methods the path has, before any body or key is asked for', async () => {
      const r = await call('QUERY', `${api}/ping`);
      expectError(r, 405, 'QUERY is not allowed');
      expect(r.headers.get('allow')).toBe('GET, HEAD');
      expectError(await call('QUERY', `${keyed.url}/api/v1/variables`), 405);
      expectError(await call('PATCH', `${api}/variables`), 405);
    });
  });

  describe('bodies', () => {
    const raw = (bytes: Buffer, type = 'application/json') =>
      fetch(`${api}/variables`, { method: 'POST', headers: { 'content-type': type }, body: bytes }).then(async (r) => ({ status: r.status, body: await r.json() }));

    it('invalid UTF-8 and lone surrogates are 400 naming the field, and nothing is stored', async () => {
      const bad = Buffer.concat([Buffer.from('{"name":"ok","value":"ab'), Buffer.from([0xff, 0xfe]), Buffer.from('cd"}')]);
      expect(await raw(bad)).toMatchObject({ status: 400, body: { message: 'value is not valid UTF-8' } });
      expectError(await call('POST', `${api}/variables`, '{"name":"a\\ud800b"}'), 400, 'name holds a lone UTF-16 surrogate');
      expectError(await call('POST', `${api}/chatmessage/f`, '[{"role":"userMessage","content":"\\udc00"}]'), 400, '[0].content');
      expect(ok(await call('GET', `${api}/variables`))).toEqual([]);
    });

    it('__proto__ and constructor keys are 400 naming the key, also inside details given as a string', async () => {
      expectError(await call('POST', `${api}/variables`, '{"name":"a","__proto__":{"x":1}}'), 400, '__proto__: the key __proto__ is refused');
      expectError(await call('POST', `${api}/assistants`, { details: { name: 'a', tool_resources: { constructor: 1 } } }), 400, 'details.tool_resources.constructor');
      expectError(await call('POST', `${api}/assistants`, { details: '{"name":"a","__proto__":1}' }), 400, 'details.__proto__');
    });

    it('an array is refused item by item as a whole body would be: the item and field named', async () => {
      // (Arrays are parsed item by item; these reach the whole-body checks all the same.)
      const post = (body: string) => call('POST', `${api}/chatmessage/f`, body);
      const good = '{"role":"userMessage","content":"a → b, [c]: \\"d\\""}';
      expectError(await post(`[${good},{"role":}]`), 400, 'body is not valid JSON');
      expectError(await post(`[${good}}`), 400, 'body is not valid JSON');
      expectError(await post(`[${good}] x`), 400, 'body is not valid JSON');
      expectError(await post(`[${good},${good.replace('a →', '\\ud800')}]`), 400, '[1].content holds a lone UTF-16 surrogate');
      expectError(await post(`[${good},{"role":"userMessage","usedTools":[{"constructor":1}]}]`), 400, '[1].usedTools[0].constructor: the key constructor is refused');
      const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
      expectError(await post(`[${good},{"role":"userMessage","action":${nest(99)}}]`), 400, 'nested deeper than 100 levels');
      expect(ok(await call('GET', `${api}/chatmessage/f`))).toEqual([]);
      expect(ok(await post(`[${good},{"role":"apiMessage","action":${nest(98)}}]`))).toEqual({ affected: 2 });
      expect(ok(await call('GET', `${api}/chatmessage/f`)).map((m: { content: string }) => m.content)).toEqual(['a → b, [c]: "d"', '']);
    });

    it('one record is refused nested deeper than 100 levels, and taken at 100 whatever brackets its strings hold', async () => {
      // (A body of few brackets is not walked again: the count must neither miss a level nor refuse for text.)
      const post = (body: string) => call('POST', `${api}/chatmessage/g`, body);
      const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
      expectError(await post(`{"role":"userMessage","action":${nest(100)}}`), 400, 'nested deeper than 100 levels');
      expect(ok(await post(`{"role":"userMessage","content":"${'[{'.repeat(80)}","action":${nest(99)}}`))).toEqual({ affected: 1 });
      expect(ok(await call('GET', `${api}/chatmessage/g`)).map((m: { content: string }) => m.content)).toEqual(['[{'.repeat(80)]);
    });

    it('a body that is not JSON by its content type is 415', async () => {
      expect(await raw(Buffer.from('{"name":"a"}'), 'text/plain')).toMatchObject({ status: 415 });
      expect(await raw(Buffer.from('name=a'), 'application/x-www-form-urlencoded')).toMatchObject({ status: 415 });
    });
  });

  describe('queries', () => {
    it('an unknown query parameter is 400 on every route', async () => {
      expectError(await call('GET', `${api}/variables?limt=5`), 400, 'unknown parameter limt');
      expectError(await call('GET', `${api}/chatmessage/f?sesionId=s`), 400, 'unknown parameter sesionId');
      expectError(await call('GET', `${api}/ping?x=1`), 400, 'unknown parameter x');
    });

    it('date bounds: exactly the documented pattern, enforced by the server', async () => {
      const doc = ok(await call('GET', `${api}/openapi.json`));
      const param = doc.paths['/api/v1/chatmessage/{id}'].get.parameters.find((p: { name: string }) => p.name === 'startDate');
      expect(param.schema.format).toBeUndefined();
      const pattern = new RegExp(param.schema.pattern);
      for (const bad of ['', 'yesterday', '2026-02-29', '2026-01-31T24:00', '2026-01-31T12:00Z\n']) {
        expect(pattern.test(bad)).toBe(false);
        expectError(await call('GET', `${api}/chatmessage/f?startDate=${encodeURIComponent(bad)}`), 400, 'startDate must be an ISO 8601 date');
      }
      for (const good of ['2024-02-29', '2026-01-31T12:00', '2026-01-31 12:00:00.123456+0230', '0000-01-01T00:00+01:00', '9999-12-31T23:59-05:00']) {
        expect(pattern.test(good)).toBe(true);
        ok(await call('GET', `${api}/chatmessage/f?endDate=${encodeURIComponent(good)}`));
      }
    });
  });

  describe('the OpenAPI document', () => {
    it('declares bearer auth only when the server has keys', async () => {
      const plain = ok(await call('GET', `${api}/openapi.json`));
      expect(plain.security).toBeUndefined();
      expect(plain.components.securitySchemes).toBeUndefined();
      expect(plain.paths['/api/v1/variables'].get.responses[401]).toBeUndefined();
      const secured = ok(await call('GET', `${keyed.url}/api/v1/openapi.json`, undefined, { authorization: `Bearer ${KEY}` }));
      expect(secured.security).toEqual([{ bearer: [] }]);
      expect(secured.paths['/api/v1/variables'].get.responses[401]).toBeDefined();
      expect(secured.paths['/api/v1/ping'].get.security).toEqual([]);
    });

    it('lists HEAD, itself, the import routes, X-Total-Count, and every status a route answers', async () => {
      const { paths } = ok(await call('GET', `${api}/openapi.json`));
      expect(paths['/api/v1/openapi.json'].get).toBeDefined();
      expect(paths['/api/v1/variables'].head.responses[200].headers['X-Total-Count']).toBeDefined();
      for (const p of ['/api/v1/variables/import', '/api/v1/assistants/import', '/api/v1/feedback/import']) expect(paths[p].post).toBeDefined();
      expect(Object.keys(paths['/api/v1/variables'].get.responses)).toEqual(['200', '400', '408', '431', '500', '503']);
      expect(Object.keys(paths['/api/v1/variables'].post.responses)).toEqual(['200', '400', '408', '413', '415', '422', '431', '500', '503', '507']);
      expect(paths['/api/v1/variables'].post.responses[415].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    });
  });

  describe('the log', () => {
    it('never shows a key in the URL, however it is percent-encoded', async () => {
      const spellings = [
        KEY,
        encodeURIComponent(KEY).replace(/-/g, '%2d'),
        KEY.replace(/K/g, '%4B').replace(/e/g, '%65'),
        [...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
      ];
      for (const s of spellings) await call('GET', `${keyed.url}/api/v1/variables?apiKey=${s}`);
      await call('GET', `${keyed.url}/api/v1/chatmessage/${spellings[3]}`, undefined, { authorization: `Bearer ${KEY}` });
      const mine = keyedLines.filter((l) => /apiKey=|chatmessage/.test(l));
      expect(mine).toHaveLength(5);
      for (const l of mine) {
        expect(decodeURIComponent(l)).not.toContain(KEY);
        expect(l).toContain('<redacted>');
      }
    });

    it('a list the client stops reading still gets its line: aborted, with the rows sent', async () => {
      // 16 MB: more than the socket buffers take, so the answer is still being written.
      for (let b = 0; b < 16; b++) {
        const batch = Array.from({ length: 1000 }, (_, i) => ({ role: 'userMessage', content: `m${b}-${i} ${'x'.repeat(1000)}` }));
        ok(await call('POST', `${api}/chatmessage/big`, batch));
      }
      // (node:http, one socket destroyed with the request: fetch's pool may keep a spare connection open.)
      await new Promise<void>((resolve, reject) => {
        const req = get(`${api}/chatmessage/big`, (res) => res.once('data', () => (req.destroy(), resolve())));
        req.on('error', (err) => (req.destroyed ? resolve() : reject(err)));
      });
      await expect.poll(() => lines.find((l) => l.startsWith('GET /api/v1/chatmessage/big ')), { timeout: 5000 }).toMatch(
        /^GET \/api\/v1\/chatmessage\/big aborted rows=\d+ /,
      );
    });
  });
});

describe('a full disk (SQLite)', () => {
  it('writes answer 507 and the log names SQLITE_FULL; reads stay up; writes recover once there is room', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatflow-full-'));
    const lines: string[] = [];
    const store = await openSqliteStore(join(dir, 'full.db'));
    const server = await startServer({ store, port: 0, log: (l) => lines.push(l) });
    const api = `${server.url}/api/v1`;
    const db = (store as unknown as { db: Kysely<unknown> }).db;
    try {
      // The database may not grow past its current size: SQLite answers SQLITE_FULL, as on a full disk.
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
      await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(db);
      const big = Array.from({ length: 200 }, (_, i) => ({ role: 'userMessage', content: `${i} ${'y'.repeat(4000)}` }));
      expectError(await call('POST', `${api}/chatmessage/f`, big), 507, 'the database disk is full');
      expect(lines.some((l) => /^error on POST \/api\/v1\/chatmessage\/f: SQLITE_FULL /.test(l)), lines.join('\n')).toBe(true);
      expect(lines.join('\n')).not.toMatch(/no transaction is active/);
      expect(ok(await call('GET', `${api}/chatmessage/f`))).toEqual([]);
      await sql.raw('pragma max_page_count = 1073741823').execute(db);
      expect(ok(await call('POST', `${api}/chatmessage/f`, big))).toEqual({ affected: 200 });
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
