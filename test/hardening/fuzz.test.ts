// Bad input at every endpoint, generated: thousands of requests across every route of the route
// table (wrong types, missing and extra fields, huge strings, deep nesting, unicode and NUL,
// SQL and path-injection text, invalid dates, out-of-range page/limit, repeated parameters,
// wrong content types, truncated JSON). Never a 5xx, always the JSON error body naming the
// problem, and the records seeded before are exactly as they were. On SQLite and PostgreSQL.
// Malformed HTTP that never reaches a route (node's parser rejects it) gets the JSON body too.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATE_BOUND_PATTERN } from '../../src/schema/dates.js';
import { routes, type RouteSpec } from '../../src/schema/routes.js';
import { MAX_JSON_DEPTH, startServer, type RunningServer } from '../../src/server/app.js';
import { call, ok } from '../helpers/http.js';
import { openTestStore, removeTestStore, storeKinds } from '../helpers/stores.js';
import { openSqliteFile, pragmaValue } from '../helpers/sqlite-file.js';

/** Property runs per store; each run sends BATCH requests at once. */
const RUNS = Number(process.env.CHATFLOW_FUZZ_RUNS ?? 500);
const BATCH = 8;
const BODY_LIMIT = 256 * 1024;

type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const SPECS = Object.entries(routes) as [string, RouteSpec][];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

// ---------------------------------------------------------------- what bad input looks like

const NASTY = [
  "' OR '1'='1",
  "'; DROP TABLE variable; --",
  '" OR ""="',
  '1; SELECT pg_sleep(10)--',
  "x' UNION SELECT name, value FROM variable --",
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '/api/v1/variables',
  '%2e%2e%2f',
  '%00',
  'a\u0000b',
  '\u0000',
  '${7*7}',
  '{{constructor.constructor("return process")()}}',
  '<script>alert(1)</script>',
  '\\',
  '%',
  '%zz',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '9'.repeat(40),
  '',
  ' ',
  '\t\r\n',
  '\u202e\u202d',
  '\ufeff',
  '\ud800',
  '\udfff\ud800',
  '𝕏🤖👩‍👩‍👧',
  'Zalgo: Z̤͔ͧ̑̓ä͖̭̈̇l͖͎g̞̥͈̮o̲',
  'é'.repeat(300),
  '__proto__',
  'constructor',
  'hasOwnProperty',
  '2024-02-30',
  '2024-13-01T00:00:00Z',
  '0000-00-00',
  '+275760-09-13T00:00:00.000Z',
  '2024-01-01T00:00:00+99:99',
  'asc; DROP TABLE x',
  'THUMBS_SIDEWAYS',
];

/** Every byte that is not unreserved, percent-encoded (lone surrogates become U+FFFD first). */
const pct = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

const hugeString = fc
  .tuple(fc.constantFrom(256, 1_025, 2_049, 65_537, 262_145, 300_000), fc.constantFrom('x', 'é', '🤖', '\u0000', "'", '\\'))
  .map(([n, c]) => c.repeat(n));
const deepValue = fc.tuple(fc.integer({ min: MAX_JSON_DEPTH - 2, max: 1500 }), fc.boolean()).map(([depth, asArray]) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
  return v;
});
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<unknown>(...NASTY) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1e308, -1e308, 2 ** 53 + 2, -0, 0.5, -1, 0, true, false, null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepValue },
);

// ---------------------------------------------------------------- what valid input looks like

/** Values the schema accepts (mostly): requests that get past validation reach the store. */
function valid(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...(schema.anyOf as Schema[]).map(valid));
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'string':
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'date-time' || schema.pattern === DATE_BOUND_PATTERN) {
        return fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      }
      if (schema.pattern) return fc.constantFrom('asc', 'desc', 'ASC', 'Desc');
      return fc.string({ unit: 'grapheme', minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) });
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, 1000) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items && Object.keys(schema.items).length ? valid(schema.items) : fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 });
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valid(s)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []) as never[] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** The property names of a body or query schema (of its items, of each alternative). */
function keysOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  if (schema.anyOf) return [...new Set((schema.anyOf as Schema[]).flatMap(keysOf))];
  if (schema.type === 'array') return keysOf(schema.items);
  return Object.keys(schema.properties ?? {});
}

type Op = { drop: string } | { set: string; value: unknown };

/** Drops fields, sets fields (known or not) to junk; on an array, to its first element. */
function mutate(value: unknown, ops: Op[]): unknown {
  if (Array.isArray(value)) return value.length ? [mutate(value[0], ops), ...value.slice(1)] : [mutate({}, ops)];
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const op of ops) {
    if ('drop' in op) delete out[op.drop];
    else Object.defineProperty(out, op.set, { value: op.value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// ---------------------------------------------------------------- one request

interface FuzzRequest {
  route: string;
  method: string;
  path: string;
  contentType?: string;
  body?: string;
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/jsonx',
  'application/json, text/plain',
  'text/html; charset="; x=\\"',
  '',
];

function requestFor([name, spec]: [string, RouteSpec]): fc.Arbitrary<FuzzRequest> {
  const bodySchema = spec.body as Schema | undefined;
  const querySchema = spec.query as Schema | undefined;
  const bodyKeys = [...keysOf(bodySchema), 'extra', 'constructor', ''];
  const queryKeys = [...keysOf(querySchema), 'page', 'limit', 'extra', 'order[0]', 'a[b]'];
  const validBody = bodySchema ? valid(bodySchema) : fc.jsonValue({ maxDepth: 2 });
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.constantFrom(...bodyKeys).map((drop) => ({ drop })),
    fc.record({ set: fc.constantFrom(...bodyKeys), value: junk }),
  );
  const json = (v: unknown) => JSON.stringify(v) ?? 'null';
  const body: fc.Arbitrary<string | undefined> = fc.oneof(
    { weight: 5, arbitrary: fc.tuple(validBody, fc.array(op, { minLength: 1, maxLength: 3 })).map(([v, ops]) => json(mutate(v, ops))) },
    { weight: 3, arbitrary: validBody.map(json) },
    { weight: 2, arbitrary: junk.map(json) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        // truncated JSON
        fc.tuple(validBody, fc.nat()).map(([v, n]) => {
          const text = json(v);
          return text.slice(0, n % Math.max(1, text.length));
        }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.constantFrom('', '{', '[', '{"a":', 'nul', '{"name":"x",}', "{'name':'x'}", '{"name":"\u0000"}', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'),
        fc.integer({ min: 1000, max: 200_000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
        fc.constant(`{"name":"${'x'.repeat(BODY_LIMIT + 10)}"}`),
      ),
    },
    { weight: 2, arbitrary: fc.constant(undefined) },
  );
  const id = fc.oneof(
    { weight: 4, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(pct) },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY).map(pct) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(pct) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('..', '.', '%2e%2e', '..%2F..%2Fvariables', 'a/b', '%', '%zz', '%E0%A4%A', '', '%00', ';', '*', 'x'.repeat(1200), pct('é'.repeat(300))),
    },
  );
  const queryValue = (key: string): fc.Arbitrary<string> => {
    const schema = (querySchema?.properties as Record<string, Schema> | undefined)?.[key];
    const good = schema ? valid(schema.type === 'array' ? schema.items : schema).map(String) : fc.constant('1');
    return fc.oneof(
      { weight: 3, arbitrary: good.map(pct) },
      { weight: 3, arbitrary: junk.map((v) => pct(typeof v === 'string' ? v.slice(0, 2000) : String(JSON.stringify(v)).slice(0, 2000))) },
      { weight: 1, arbitrary: fc.constantFrom('-1', '0', '1.5', '1e3', '1e21', '999999999999999999999', '0x10', '%201', '+1', '', '%', '&', '=') },
    );
  };
  const query = fc
    .array(
      fc.constantFrom(...queryKeys).chain((k) => queryValue(k).map((v) => `${pct(k)}=${v}`)),
      { maxLength: 6 },
    )
    .chain((pairs) =>
      // Repeat a parameter now and then: page=1&page=2.
      fc.boolean().map((repeat) => (repeat && pairs.length ? [...pairs, pairs[0]!] : pairs)),
    )
    .map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
  return fc
    .record({
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(spec.method as string) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      id,
      query,
      body,
      contentType: fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
    })
    .map(({ method, id: idText, query: q, body: b, contentType }) => ({
      route: name,
      method,
      path: `/api/v1${spec.path.replace(/:\w+/g, idText)}${q}`,
      ...(b !== undefined && method !== 'HEAD' ? { body: b, ...(contentType ? { contentType } : {}) } : {}),
    }));
}

const anyRequest = fc.oneof(...SPECS.map(requestFor));

const ALLOWED = new Set([200, 400, 401, 404, 405, 409, 413, 414, 415, 422, 431]);
/** Messages that say nothing: a 4xx must name what is wrong. */
const VAGUE = /^(internal error|bad request|client error|error|invalid|unsupported media type)$/i;

// ---------------------------------------------------------------- the suite

describe.each(storeKinds)('fuzzing every route on %s', (kind) => {
  let server: RunningServer;
  let dir: string;
  let api: string;
  let pool: Pool;
  const serverErrors: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `chatflow-fuzz-${kind}-`));
    const store = await openTestStore(kind, dir);
    server = await startServer({
      store,
      port: 0,
      bodyLimit: BODY_LIMIT,
      log: (line) => {
        if (line.startsWith('error')) serverErrors.push(line);
      },
    });
    api = `${server.url}/api/v1`;
    pool = new Pool(server.url, { connections: BATCH });
  });
  afterAll(async () => {
    await pool?.close();
    await server?.close();
    await removeTestStore(kind, dir);
  });

  /** Known records, some holding nasty text themselves. */
  async function seed() {
    const flow = `seed-${randomUUID()}`;
    const variables = [];
    for (const [name, value] of [
      [`SEED_${randomUUID()}`, "'; DROP TABLE variable; --"],
      [`SEED_${randomUUID()}`, '𝕏🤖 é ../../etc/passwd'],
      [`SEED_${randomUUID()}`, ''],
    ]) {
      variables.push(ok(await call('POST', `${api}/variables`, { name, value, type: 'static' })));
    }
    const assistants = [
      ok(await call('POST', `${api}/assistants`, { details: { name: 'seed-one', temperature: 0.5, tools: ['function'] }, type: 'OPENAI' })),
      ok(await call('POST', `${api}/assistants`, { details: JSON.stringify({ name: "seed' OR 1=1", instructions: '<script>' }) })),
    ];
    ok(
      await call('POST', `${api}/chatmessage/${flow}`, [
        { id: `${flow}-m1`, role: 'userMessage', content: 'q', chatId: 'c1', sessionId: 's1', createdDate: '2024-01-01T00:00:00Z' },
        { id: `${flow}-m2`, role: 'apiMessage', content: "a' --", chatId: 'c1', sessionId: 's1', usedTools: [{ tool: 'x' }], createdDate: '2024-01-01T00:00:01Z' },
        { id: `${flow}-m3`, role: 'userMessage', content: '🤖', chatId: 'c2', createdDate: '2024-01-02T00:00:00Z' },
      ]),
    );
    ok(await call('POST', `${api}/feedback`, { messageId: `${flow}-m2`, rating: 'THUMBS_UP', content: 'good' }));
    ok(await call('POST', `${api}/upsert-history/${flow}`, [{ id: `${flow}-u1`, result: { n: 1 }, flowData: '{"nodes":[]}' }, { id: `${flow}-u2` }]));
    return { flow, variableIds: new Set(variables.map((v) => v.id as string)), assistantIds: assistants.map((a) => a.id as string) };
  }

  async function snapshot(seeded: Awaited<ReturnType<typeof seed>>) {
    const variables = (ok(await call('GET', `${api}/variables`)) as { id: string }[])
      .filter((v) => seeded.variableIds.has(v.id))
      .sort((a, b) => a.id.localeCompare(b.id));
    return {
      variables,
      assistants: await Promise.all(seeded.assistantIds.map(async (id) => ok(await call('GET', `${api}/assistants/${id}`)))),
      messages: ok(await call('GET', `${api}/chatmessage/${seeded.flow}`)),
      withFeedback: ok(await call('GET', `${api}/chatmessage/${seeded.flow}?feedback=true`)),
      feedback: ok(await call('GET', `${api}/feedback/${seeded.flow}`)),
      history: ok(await call('GET', `${api}/upsert-history/${seeded.flow}`)),
    };
  }

  it('thousands of generated requests: never a 5xx, always the JSON error body, seeded data intact', { timeout: 120_000 }, async () => {
    const seeded = await seed();
    const before = await snapshot(seeded);
    expect(before.variables).toHaveLength(3);
    expect(before.messages).toHaveLength(3);
    expect(before.history).toHaveLength(2);

    let sent = 0;
    let unsendable = 0;
    const statuses: Record<number, number> = {};
    const routesHit = new Set<string>();

    const send = async (req: FuzzRequest) => {
      // What undici refuses to put on the wire leaves its connection unusable: never send it.
      if (/[^\x21-\x7e]/.test(req.path) || /[^\t\x20-\x7e]/.test(req.contentType ?? '')) {
        unsendable++;
        return;
      }
      let res;
      try {
        res = await pool.request({
          method: req.method,
          path: req.path,
          headers: req.contentType !== undefined ? { 'content-type': req.contentType } : {},
          ...(req.body !== undefined ? { body: req.body } : {}),
          // A request the server leaves unanswered is a failure, not a hang.
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
      } catch (err) {
        throw new Error(`${req.method} ${req.path.slice(0, 200)}: ${(err as Error).message}`, { cause: err });
      }
      const text = await res.body.text();
      sent++;
      routesHit.add(req.route);
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      const what = `${req.method} ${req.path.slice(0, 300)} [${req.contentType ?? '-'}] ${String(req.body).slice(0, 300)} → ${res.statusCode} ${text.slice(0, 300)}`;
      expect(res.statusCode, what).toBeLessThan(500);
      expect(ALLOWED.has(res.statusCode), what).toBe(true);
      if (req.method === 'HEAD') return;
      if (req.route === 'ping' && res.statusCode === 200) return;
      expect(String(res.headers['content-type']), what).toMatch(/^application\/json/);
      const body = JSON.parse(text) as unknown;
      if (res.statusCode >= 400) {
        expect(body, what).toEqual({ statusCode: res.statusCode, success: false, message: expect.any(String) });
        const message = (body as { message: string }).message;
        expect(message.length, what).toBeGreaterThan(5);
        expect(message, what).not.toMatch(VAGUE);
        // No stack trace, no SQL, no driver error code (an echoed id may hold any character).
        expect(message, what).not.toMatch(/\n\s+at\s+\S+|SQLITE_|syntax error|relation "|violates/);
      }
    };

    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.array(anyRequest, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        await Promise.all(batch.map(send));
      }),
      // A failure prints its seed: CHATFLOW_FUZZ_SEED=<seed> replays the same requests.
      { numRuns: RUNS, endOnFailure: true, ...(process.env.CHATFLOW_FUZZ_SEED ? { seed: Number(process.env.CHATFLOW_FUZZ_SEED) } : {}) },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `fuzz on ${kind}: ${sent} requests over ${routesHit.size} routes in ${seconds}s; statuses ${JSON.stringify(statuses)}`,
    );

    expect(unsendable).toBe(0);
    expect(sent).toBe(RUNS * BATCH);
    expect(routesHit.size).toBe(SPECS.length);
    expect(serverErrors).toEqual([]);
    // Alive, answering, and what was there before is exactly as it was.
    expect((await call('GET', `${api}/ping`)).text).toBe('pong');
    expect(await snapshot(seeded)).toEqual(before);
    if (kind === 'sqlite') {
      const db = openSqliteFile(join(dir, 'chatflow.db'), { readonly: true });
      try {
        expect(pragmaValue(db, 'integrity_check')).toBe('ok');
      } finally {
        db.close();
      }
    }
  });
});

// ---------------------------------------------------------------- below the router

/** Sends raw bytes, answers the status and body of what comes back before the socket closes. */
function raw(port: number, bytes: string | Buffer): Promise<{ status: number; contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(received);
      if (!m) return reject(new Error(`no HTTP answer: ${JSON.stringify(received.slice(0, 300))}`));
      const contentType = /^content-type:\s*(.*)$/im.exec(m[2]!)?.[1] ?? '';
      resolve({ status: Number(m[1]), contentType, body: Buffer.from(m[3]!, 'latin1').toString('utf8') });
    });
    socket.end(bytes);
  });
}

describe('malformed HTTP, rejected before any route', () => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatflow-fuzz-raw-'));
    server = await startServer({ store: await openTestStore('sqlite', dir), port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await removeTestStore('sqlite', dir);
  });

  it('is answered 400/431 with the JSON error body naming the problem, and the server keeps serving', async () => {
    const cases: [string, string | Buffer, number][] = [
      ['garbage request line', 'HELLO\r\n\r\n', 400],
      ['space in the path', 'GET /api/v1/vari ables HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['raw UTF-8 in the path', Buffer.from('GET /api/v1/chatmessage/é HTTP/1.1\r\nHost: x\r\n\r\n'), 400],
      ['NUL in a header value', 'GET /api/v1/variables HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 400],
      ['a header without a colon', 'GET /api/v1/variables HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n', 400],
      ['headers over 16 KiB', `GET /api/v1/variables HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['two Content-Lengths', 'POST /api/v1/variables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400],
      ['a non-numeric Content-Length', 'POST /api/v1/variables HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
      ['Content-Length with chunked', 'POST /api/v1/variables HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
      ['a broken chunk', 'POST /api/v1/variables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n', 400],
      ['HTTP/2 preface on HTTP/1', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400],
    ];
    for (const [what, bytes, status] of cases) {
      const res = await raw(server.port, bytes);
      expect(res.status, what).toBe(status);
      expect(res.contentType, what).toMatch(/^application\/json/);
      const body = JSON.parse(res.body) as { message: string };
      expect(body, what).toEqual({ statusCode: status, success: false, message: expect.any(String) });
      expect(body.message, what).toMatch(status === 431 ? /headers are too large/ : /^malformed HTTP request: \w/);
    }
    expect((await call('GET', `${server.url}/api/v1/ping`)).text).toBe('pong');
  });
});
