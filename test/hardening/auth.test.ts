// API keys, iterated over the route table: with keys set, every route but ping and version
// refuses a missing, wrong or malformed key with 401 and changes nothing (each refused request is
// one that succeeds with the key). Keys are compared in constant time, never appear in a log
// line (`serve --log`), an error or `--debug` output, and `serve` will not listen beyond loopback
// without one. (test/server/service.test.ts covers the 401 body and Bearer/bare forms;
// test/cli/serve.test.ts the 0.0.0.0 refusal; test/cli/errors.test.ts --debug with flag/env keys.)
import { createServer } from 'node:http';
import { existsSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes, type RouteName } from '../../src/schema/routes.js';
import { keyChecker } from '../../src/server/auth.js';
import { STACK_LINE, createHome, runCli } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startStoreServer, storeKinds } from '../helpers/stores.js';
import { seedFor } from './requests.js';
import { killAll, startServe } from './serve-process.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, default: actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});
const { timingSafeEqual } = await import('node:crypto');

const K1 = 'sk-auth-one-0123456789abcdef';
const K2 = 'sk-auth-two-fedcba9876543210';
const UNAUTHORIZED = { statusCode: 401, success: false, message: 'Unauthorized' };
const OPEN: RouteName[] = ['ping', 'version'];

/** Headers (and a query suffix) that must not get in. */
const BAD: [string, Record<string, string>, string?][] = [
  ['no header', {}],
  ['empty', { authorization: '' }],
  ['Bearer alone', { authorization: 'Bearer' }],
  ['Bearer and a space', { authorization: 'Bearer ' }],
  ['a wrong key', { authorization: 'Bearer sk-wrong-000000000000000000' }],
  ['the key less its last character', { authorization: `Bearer ${K1.slice(0, -1)}` }],
  ['the key and one more', { authorization: `Bearer ${K1}f` }],
  ['one character off', { authorization: `Bearer ${K1.slice(0, -1)}0` }],
  ['upper case', { authorization: `Bearer ${K1.toUpperCase()}` }],
  ['two keys', { authorization: `Bearer ${K1} ${K2}` }],
  ['two keys, a comma between', { authorization: `Bearer ${K1},${K2}` }],
  ['Basic', { authorization: `Basic ${Buffer.from(`user:${K1}`).toString('base64')}` }],
  ['another scheme', { authorization: `Token ${K1}` }],
  ['latin-1 bytes', { authorization: 'Bearer \u00ff\u00fe' }],
  ['10 KB of key', { authorization: `Bearer ${'k'.repeat(10_000)}` }],
  ['the key in another header', { 'x-api-key': K1 }],
  ['the key in the query', {}, `apiKey=${K1}`],
];

const withQuery = (path: string, q?: string) => (q ? `${path}${path.includes('?') ? '&' : '?'}${q}` : path);

afterAll(killAll);

describe.each(storeKinds)('API keys on every route of the table, on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startStoreServer(kind, { apiKeys: [K1, K2] });
  });
  afterAll(() => server?.dispose());

  it('a missing, wrong or malformed key is 401 on every route but ping and version, and changes nothing', async () => {
    const seeded = await seedFor(server.api, { authorization: `Bearer ${K1}` });
    const before = await seeded.snapshot();
    let refused = 0;
    for (const [name, req] of Object.entries(seeded.requests) as [RouteName, (typeof seeded.requests)[RouteName]][]) {
      for (const [what, headers, query] of BAD) {
        const res = await call(req.method, `${server.api}${withQuery(req.path, query)}`, req.body, headers);
        if (OPEN.includes(name)) {
          // Open routes ignore keys; a query parameter they do not take (apiKey) is 400 like any unknown one.
          expect(res.status, `${name} with ${what}`).toBe(query ? 400 : 200);
          continue;
        }
        expect(res.status, `${name} with ${what}`).toBe(401);
        expect(res.body, `${name} with ${what}`).toEqual(UNAUTHORIZED);
        refused++;
      }
    }
    expect(refused).toBe((Object.keys(routes).length - OPEN.length) * BAD.length);
    expect(await seeded.snapshot()).toEqual(before);

    // The same requests with a key go through: what was refused would have done something.
    for (const [name, req] of Object.entries(seeded.requests)) {
      const key = name.length % 2 ? K1 : K2;
      const res = await call(req.method, `${server.api}${req.path}`, req.body, { authorization: `Bearer ${key}` });
      expect(res.status, `${name}: ${res.text}`).toBe(200);
    }
    expect(await seeded.snapshot()).not.toEqual(before);
  });
});

describe('key comparison', () => {
  it('compares every configured key, as fixed-length digests, whatever the header holds', () => {
    const keys = [K1, K2, 'short-k'];
    const isKey = keyChecker(keys);
    const spy = vi.mocked(timingSafeEqual);
    const cases: [string, boolean][] = [
      [`Bearer ${K1}`, true],
      [K2, true],
      ['Bearer short-k', true],
      [`Bearer ${K1.slice(0, -1)}0`, false],
      [`Bearer ${K1.slice(0, 3)}`, false],
      ['x', false],
      [`Bearer ${'y'.repeat(5000)}`, false],
    ];
    for (const [header, expected] of cases) {
      spy.mockClear();
      expect(isKey(header), header.slice(0, 40)).toBe(expected);
      // A match on the first key does not stop the comparison, and lengths never differ:
      // the time taken says nothing about which key came close, or how close.
      expect(spy).toHaveBeenCalledTimes(keys.length);
      for (const [a, b] of spy.mock.calls) {
        expect((a as Buffer).length).toBe(32);
        expect((b as Buffer).length).toBe(32);
      }
    }
    expect(isKey(undefined)).toBe(false);
  });
});

describe('keys never shown', () => {
  const K3 = 'sk-auth-three-00112233445566';

  it('serve --log --debug: no key in any line, whatever the requests carry', { timeout: 60_000 }, async () => {
    const home = createHome();
    const server = await startServe(['--db', join(home.dir, 'keys.db'), '--log', '--debug', '--api-key', K1], {
      home,
      env: { CHATFLOW_API_KEYS: `${K2}, ${K3}` },
    });
    const auth = (k: string) => ({ authorization: `Bearer ${k}` });
    expect((await call('GET', `${server.api}/variables`, undefined, auth(K1))).status).toBe(200);
    expect((await call('GET', `${server.api}/variables`, undefined, auth(K3))).status).toBe(200);
    expect((await call('GET', `${server.api}/variables`, undefined, auth(`${K2}x`))).status).toBe(401);
    // Clients that put a key where it does not belong: the URL.
    expect((await call('GET', `${server.api}/variables?apiKey=${K2}`)).status).toBe(401);
    expect((await call('GET', `${server.api}/chatmessage/${K1}`, undefined, auth(K1))).status).toBe(200);
    expect((await call('GET', `${server.api}/${encodeURIComponent(K3)}`, undefined, auth(K3))).status).toBe(404);
    expect((await call('POST', `${server.api}/variables`, `{"name":"${K1}"`, auth(K1))).status).toBe(400);
    const exit = await server.stop('SIGTERM');
    expect(exit.exitCode).toBe(0);
    const output = server.stderr();
    expect(output).toMatch(/GET \/api\/v1\/variables 200/);
    expect(output).toMatch(/GET \/api\/v1\/variables\?apiKey=<redacted> 401/);
    for (const k of [K1, K2, K3]) expect(output).not.toContain(k);
  });

  it('start-up errors name no key, with or without --debug', async () => {
    const home = createHome();
    writeFileSync(join(home.dir, 'a-file'), 'not a directory');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const results = await Promise.all([
        runCli(['serve', '--port', String(port), '--db', join(home.dir, 'a.db'), '--api-key', K1], { home }),
        runCli(['serve', '--port', String(port), '--db', join(home.dir, 'b.db'), '--api-key', K1, '--debug'], { home }),
        runCli(['serve', '--port', '0', '--db', join(home.dir, 'a-file', 'c.db'), '--api-key', K1], { home, env: { CHATFLOW_API_KEYS: K2 } }),
        runCli(['serve', '--port', '99999', '--api-key', K1], { home }),
      ]);
      for (const r of results) {
        expect(r.exitCode).not.toBe(0);
        expect(r.stderr).toMatch(/^chatflow: /);
        expect(r.stdout + r.stderr).not.toContain(K1);
        expect(r.stdout + r.stderr).not.toContain(K2);
      }
      expect(results[0]!.stderr).not.toMatch(STACK_LINE);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('the CLI never shows a profile key, not even when the server echoes it back (--debug, errors)', async () => {
    const key = 'sk-profile-key-99887766554433';
    const echo = createServer((req, res) => {
      res.writeHead(req.url?.includes('/variables') ? 400 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ statusCode: 400, success: false, message: `bad request from ${req.headers.authorization}` }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    try {
      const home = createHome();
      expect((await runCli(['config', 'set', 'url', url, '--profile', 'p'], { home })).exitCode).toBe(0);
      expect((await runCli(['config', 'set', 'api-key', key, '--profile', 'p'], { home })).exitCode).toBe(0);
      for (const args of [
        ['variables', 'list', '--profile', 'p'],
        ['variables', 'list', '--profile', 'p', '--debug'],
        ['variables', 'list', '--profile', 'p', '-o', 'json'],
        ['config', 'list'],
        ['config', 'get', 'api-key', '--profile', 'p'],
      ]) {
        const r = await runCli(args, { home });
        expect(r.stdout + r.stderr, args.join(' ')).not.toContain(key);
        expect(r.stdout + r.stderr, args.join(' ')).not.toContain(key.slice(4, -4));
      }
      const debug = await runCli(['variables', 'list', '--profile', 'p', '--debug'], { home });
      expect(debug.exitCode).toBe(2);
      expect(debug.stderr).toContain('bad request from Bearer <redacted>');
    } finally {
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });
});

describe('serve beyond loopback', () => {
  it('refuses a non-loopback host without a key (an empty key is none), before touching the database', async () => {
    const home = createHome();
    const db = join(home.dir, 'open.db');
    const runs: [string, string[], Record<string, string>?][] = [
      ['::', []],
      ['192.0.2.10', []],
      ['0.0.0.0', ['--api-key', '']],
      ['0.0.0.0', [], { CHATFLOW_API_KEYS: ' , ' }],
      ['127.0.0.1.example.com', []],
      ['0', []],
    ];
    const results = await Promise.all(runs.map(([host, extra, env]) => runCli(['serve', '--host', host, '--port', '0', '--db', db, ...extra], { home, env })));
    for (const [i, r] of results.entries()) {
      expect(r.exitCode, runs[i]![0]).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^chatflow: refusing to listen on .* without an API key/);
    }
    expect(existsSync(db)).toBe(false);
  });

  it('on 0.0.0.0 with a key it serves, and only with the key', { timeout: 30_000 }, async () => {
    const home = createHome();
    const server = await startServe(['--host', '0.0.0.0', '--db', join(home.dir, 'any.db')], { home, env: { CHATFLOW_API_KEYS: K1 } });
    const port = new URL(server.url).port;
    const api = `http://127.0.0.1:${port}/api/v1`;
    expect((await call('GET', `${api}/variables`)).status).toBe(401);
    expect((await call('GET', `${api}/variables`, undefined, { authorization: `Bearer ${K1}` })).status).toBe(200);
    expect((await server.stop('SIGTERM')).exitCode).toBe(0);
  });
});
