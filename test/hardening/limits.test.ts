// Limits, as README "Guarantees" lists them: body size (413 on every route that takes a body,
// streamed or not), page size and page number, every string field's length and every array's
// item count (400/422 naming the field), JSON depth; and slow clients cannot hold the server:
// headers, whole requests and idle keep-alive connections are cut off after their timeouts.
// (test/server/service.test.ts covers the 413 of two routes and that less passes.)
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../src/schema/limits.js';
import { routes, type RouteName, type RouteSpec } from '../../src/schema/routes.js';
import { MAX_JSON_DEPTH, buildApp, startServer, type RunningServer } from '../../src/server/app.js';
import { call, expectError } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { openTestStore, removeTestStore, startStoreServer } from '../helpers/stores.js';
import { seedFor, type Seeded } from './requests.js';

type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const SPECS = Object.entries(routes) as [RouteName, RouteSpec][];
const BODY_ROUTES = SPECS.filter(([, spec]) => spec.body);

/** Every string field with a maxLength in a body schema: [path as the error names it, max]. */
function stringFields(schema: Schema, prefix = ''): [string, number][] {
  if (schema.anyOf) return stringFields((schema.anyOf as Schema[]).find((s) => s.type === 'object' || s.type === 'array') ?? {}, prefix);
  if (schema.type === 'array') return stringFields(schema.items ?? {}, `${prefix}[0].`);
  const out: [string, number][] = [];
  for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const string = prop.type === 'string' ? prop : (prop.anyOf as Schema[] | undefined)?.find((s) => s.type === 'string');
    if (string?.maxLength !== undefined && !string.format && !string.enum) out.push([`${prefix}${key}`, string.maxLength]);
    if (prop.type === 'object' && prop.properties) out.push(...stringFields(prop, `${prefix}${key}.`));
  }
  return out;
}

/** A copy of `body` with the field at `path` (`details.name`, `[0].value`) set to `value`. */
function withField(body: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(body ?? {}) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const keys = path.replace(/^\[0\]\./, '').split('.');
  let target = Array.isArray(copy) ? copy[0] : copy;
  for (const k of keys.slice(0, -1)) target = target[k] ??= {};
  target[keys[keys.length - 1]!] = value;
  return copy;
}

describe('request limits', () => {
  let big: TestServer; // body limit 4 MiB, to reach the string limits
  let small: TestServer; // body limit 4 KiB
  let seeded: Seeded;
  beforeAll(async () => {
    [big, small] = await Promise.all([startStoreServer('sqlite', { bodyLimit: 4 * 1024 * 1024 }), startStoreServer('sqlite', { bodyLimit: 4096 })]);
    seeded = await seedFor(small.api);
  });
  afterAll(async () => {
    await Promise.all([big?.dispose(), small?.dispose()]);
  });

  it('a body over the limit is 413 on every route that takes one, sent whole or chunked; nothing changes', async () => {
    const before = await seeded.snapshot();
    for (const [name] of BODY_ROUTES) {
      const req = seeded.requests[name];
      // The very body that succeeds, made too big by white space alone.
      const padded = JSON.stringify(req.body) + ' '.repeat(5000);
      expectError(await call(req.method, `${small.api}${req.path}`, padded), 413, /too large/i);
      const chunked = await request(`${small.api}${req.path}`, {
        method: req.method as 'POST',
        headers: { 'content-type': 'application/json' },
        body: Readable.from([JSON.stringify(req.body), ...Array(10).fill(' '.repeat(1000))]),
      });
      expect(chunked.statusCode, name).toBe(413);
      expect(await chunked.body.json()).toMatchObject({ statusCode: 413, success: false });
    }
    expect(await seeded.snapshot()).toEqual(before);
  });

  it(`page size at most ${MAX_PAGE_SIZE}, page at most ${MAX_PAGE}, on every list`, async () => {
    const lists = SPECS.filter(([, spec]) => spec.list);
    expect(lists.length).toBeGreaterThan(5);
    for (const [name] of lists) {
      const path = seeded.requests[name].path;
      const q = (s: string) => `${small.api}${path}${path.includes('?') ? '&' : '?'}${s}`;
      expect((await call('GET', q(`limit=${MAX_PAGE_SIZE}`))).status, name).toBe(200);
      expect((await call('GET', q(`page=${MAX_PAGE}&limit=${MAX_PAGE_SIZE}`))).body, name).toEqual([]);
      expectError(await call('GET', q(`limit=${MAX_PAGE_SIZE + 1}`)), 400, `limit must be between 1 and ${MAX_PAGE_SIZE}`);
      expectError(await call('GET', q('limit=0')), 400, 'limit must be between');
      expectError(await call('GET', q('limit=-5')), 400, 'limit must be between');
      expectError(await call('GET', q(`page=${MAX_PAGE + 1}`)), 400, `page must be between 1 and ${MAX_PAGE}`);
      expectError(await call('GET', q('page=100000000000000000000000&limit=10')), 400, 'page must be between');
      expectError(await call('GET', q('page=1&page=2')), 400, 'page');
    }
  });

  it('every string field of every body: one character over its limit is refused, naming the field and the limit', async () => {
    const seededBig = await seedFor(big.api);
    let checked = 0;
    for (const [name, spec] of BODY_ROUTES) {
      const base = seededBig.requests[name];
      for (const [field, max] of stringFields(spec.body as Schema)) {
        const res = await call(base.method, `${big.api}${base.path}`, withField(base.body, field, 'x'.repeat(max + 1)));
        expectError(res, spec.invalidStatus ?? 400, `${field} must be at most ${max} characters`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
    // At the limit is fine.
    expect((await call('POST', `${big.api}/variables`, { name: 'n'.repeat(255), value: 'v'.repeat(65_536) })).status).toBe(200);
    expect((await call('POST', `${big.api}/chatmessage/at-limit`, { role: 'userMessage', content: 'c'.repeat(1_048_576) })).status).toBe(200);
  });

  it('arrays: at most 10,000 items per import, ingest or delete', async () => {
    const over = (item: unknown) => Array(10_001).fill(item);
    expectError(await call('POST', `${big.api}/variables/import`, over({ name: 'n' })), 400, 'must have at most 10000 items');
    expectError(await call('POST', `${big.api}/chatmessage/many`, over({ role: 'userMessage' })), 400, 'must have at most 10000 items');
    expectError(await call('PATCH', `${big.api}/upsert-history`, { ids: over('u') }), 400, 'ids must have at most 10000 items');
    expectError(await call('POST', `${big.api}/assistants`, { details: { name: 'a', tools: Array(65).fill('function') } }), 422, 'details.tools must have at most 64 items');
    expect((await call('GET', `${big.api}/chatmessage/many`)).body).toEqual([]);
  });

  it(`JSON nested up to ${MAX_JSON_DEPTH} levels is kept; deeper is 400`, async () => {
    const nest = (levels: number) => {
      let v: unknown = 'leaf';
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    // The body is level 1, `result` level 2.
    expect((await call('POST', `${big.api}/upsert-history/deep`, { id: 'ok', result: nest(MAX_JSON_DEPTH - 1) })).status).toBe(200);
    expectError(await call('POST', `${big.api}/upsert-history/deep`, { id: 'no', result: nest(MAX_JSON_DEPTH) }), 400, `nested deeper than ${MAX_JSON_DEPTH} levels`);
    expectError(await call('POST', `${big.api}/assistants`, { details: JSON.stringify({ name: 'd', x: nest(200) }) }), 400, 'nested deeper');
    const ids = ((await call('GET', `${big.api}/upsert-history/deep`)).body as { id: string }[]).map((r) => r.id);
    expect(ids).toEqual(['ok']);
  });
});

// ---------------------------------------------------------------- slow clients

/** A raw connection that records what comes back and when it closes. */
function slowSocket(port: number): { socket: Socket; received: () => string; closed: Promise<number> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (received += d));
  socket.on('error', () => {});
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  return { socket, received: () => received, closed };
}

/** Writes `text` one byte every `ms` until the socket closes. */
function trickle(socket: Socket, text: string, ms: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, ms);
  socket.on('close', () => clearInterval(timer));
}

describe('slow clients cannot hold the server', () => {
  const timeouts = { headersMs: 500, requestMs: 1500, keepAliveMs: 300 };
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatflow-slow-'));
    server = await startServer({ store: await openTestStore('sqlite', dir), port: 0, timeouts });
  });
  afterAll(async () => {
    await server?.close();
    await removeTestStore('sqlite', dir);
  });

  it('the defaults: headers 10 s, whole request 30 s, idle keep-alive 72 s', async () => {
    const app = await buildApp({ store: await openTestStore('sqlite', mkdtempSync(join(tmpdir(), 'chatflow-defaults-'))) });
    try {
      expect(app.server.headersTimeout).toBe(10_000);
      expect(app.server.requestTimeout).toBe(30_000);
      expect(app.server.keepAliveTimeout).toBe(72_000);
    } finally {
      await app.close();
    }
  });

  it('headers sent a byte at a time are cut off at the header timeout with a JSON 408', async () => {
    const slow = slowSocket(server.port);
    trickle(slow.socket, `GET /api/v1/variables HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(1000)}\r\n\r\n`, 50);
    const ms = await slow.closed;
    expect(ms).toBeGreaterThanOrEqual(timeouts.headersMs - 50);
    expect(ms).toBeLessThan(timeouts.headersMs + 1500);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(slow.received().split('\r\n\r\n')[1]!)).toEqual({ statusCode: 408, success: false, message: 'the request did not arrive in time' });
  });

  it('a body sent a byte at a time is cut off at the request timeout, and stores nothing', async () => {
    const slow = slowSocket(server.port);
    const body = JSON.stringify({ name: 'SLOW', value: 'x'.repeat(200) });
    slow.socket.write(`POST /api/v1/variables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    trickle(slow.socket, body, 50);
    const ms = await slow.closed;
    expect(ms).toBeGreaterThanOrEqual(timeouts.requestMs - 50);
    expect(ms).toBeLessThan(timeouts.requestMs + 1500);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect((await call('GET', `${server.url}/api/v1/variables`)).body).toEqual([]);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const idle = slowSocket(server.port);
    idle.socket.write('GET /api/v1/ping HTTP/1.1\r\nHost: x\r\n\r\n');
    const ms = await idle.closed;
    expect(idle.received()).toMatch(/^HTTP\/1\.1 200 [\s\S]*pong$/);
    expect(ms).toBeGreaterThanOrEqual(timeouts.keepAliveMs - 50);
    expect(ms).toBeLessThan(timeouts.keepAliveMs + 1500);
  });

  it('100 slow connections at once: others are served meanwhile, and all 100 are cut off', async () => {
    const slow = Array.from({ length: 100 }, () => slowSocket(server.port));
    for (const s of slow) trickle(s.socket, `GET /api/v1/variables HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(1000)}\r\n\r\n`, 100);
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      expect((await call('GET', `${server.url}/api/v1/ping`)).text).toBe('pong');
      expect(Date.now() - started).toBeLessThan(500);
      await new Promise((r) => setTimeout(r, 100));
    }
    const times = await Promise.all(slow.map((s) => s.closed));
    expect(Math.max(...times)).toBeLessThan(timeouts.headersMs + 2000);
  });
});
