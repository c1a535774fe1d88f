import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteSpec } from '../../src/schema/routes.js';
import { call, expectError, ok } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { removeTestStore, startStoreServer, storeKinds, useStoreServer } from '../helpers/stores.js';
import { MISSING_UUID, flowId } from './fixtures.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const UNAUTHORIZED = { statusCode: 401, success: false, message: 'Unauthorized' };

/** A concrete path for a route of the table (`:id` filled with a UUID, valid for every id kind). */
const concrete = (spec: RouteSpec) => spec.path.replace(/:\w+/g, MISSING_UUID);

describe.each(storeKinds)('service on %s', (kind) => {
  const live = useStoreServer(kind);

  it('GET /ping answers pong as text', async () => {
    const res = await call('GET', `${live.api}/ping`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe('pong');
  });

  it('GET /version answers the package version', async () => {
    expect(ok(await call('GET', `${live.api}/version`))).toEqual({ version: VERSION });
  });

  it('an unknown route is a JSON 404', async () => {
    expectError(await call('GET', `${live.api}/nope`), 404, '/api/v1/nope');
    expectError(await call('POST', `${live.api}/variables/${MISSING_UUID}/extra`, {}), 404);
    expectError(await call('GET', `${live.server.url}/`), 404);
    expectError(await call('GET', `${live.server.url}/api/v2/variables`), 404);
  });

  it('a known path with another method is a JSON 405 with Allow', async () => {
    const onList = await call('DELETE', `${live.api}/variables`);
    expectError(onList, 405, 'DELETE');
    const allow = (onList.headers.get('allow') ?? '').split(/,\s*/);
    expect(allow).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(allow).not.toContain('DELETE');

    const onOne = await call('PATCH', `${live.api}/variables/${MISSING_UUID}`, {});
    expectError(onOne, 405);
    expect((onOne.headers.get('allow') ?? '').split(/,\s*/).sort()).toEqual(['DELETE', 'PUT']);

    const onMessages = await call('PUT', `${live.api}/chatmessage/some-flow`, {});
    expectError(onMessages, 405);
    expect((onMessages.headers.get('allow') ?? '').split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST', 'DELETE']));
  });

  it('a path that only resembles a route is 404, not 405 (the route pattern is matched literally)', async () => {
    // openapi.json's dot must not match any character.
    expectError(await call('GET', `${live.api}/openapi_json`), 404);
  });

  it('a malformed JSON body is 400', async () => {
    expectError(await call('POST', `${live.api}/variables`, '{"name": }'), 400, /JSON/);
    expectError(await call('POST', `${live.api}/assistants`, '{'), 400);
    expectError(await call('POST', `${live.api}/chatmessage/f`, 'not json at all'), 400);
  });

  it('requests the router rejects still get the JSON error body', async () => {
    // A malformed percent-encoding in the path.
    expectError(await call('GET', `${live.api}/chatmessage/%E0%A4%A`), 400);
    // A path parameter longer than the router allows.
    const long = await call('GET', `${live.api}/chatmessage/${'x'.repeat(1500)}`);
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
    expectError(long, long.status);
  });

  it('every error body is exactly {statusCode, success:false, message}, never HTML or a stack', async () => {
    for (const res of [
      await call('GET', `${live.api}/assistants/not-a-uuid`),
      await call('PUT', `${live.api}/variables/${MISSING_UUID}`, { value: 'x' }),
      await call('POST', `${live.api}/feedback`, { messageId: 'nope', rating: 'THUMBS_UP' }),
      await call('DELETE', `${live.api}/chatmessage/${flowId()}`),
      await call('POST', `${live.api}/variables`, 'plain text', { 'content-type': 'text/plain' }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectError(res, res.status);
      expect(res.text).not.toMatch(/<html|\s+at\s+\S+\s+\(/i);
    }
  });

  it('GET /chatflows lists the chatflows that have messages, feedback or upsert history', async () => {
    const withMessages = flowId('a');
    const withFeedback = flowId('b');
    const withHistory = flowId('c');
    const historyDeleted = flowId('d');
    ok(await call('POST', `${live.api}/chatmessage/${withMessages}`, { role: 'userMessage' }));
    ok(await call('POST', `${live.api}/chatmessage/${withFeedback}`, { id: `${withFeedback}-m`, role: 'apiMessage' }));
    ok(await call('POST', `${live.api}/feedback`, { messageId: `${withFeedback}-m`, rating: 'THUMBS_UP' }));
    ok(await call('POST', `${live.api}/upsert-history/${withHistory}`, { result: {} }));
    ok(await call('POST', `${live.api}/upsert-history/${historyDeleted}`, { id: `${historyDeleted}-u` }));
    expect(ok(await call('PATCH', `${live.api}/upsert-history/${historyDeleted}`, { ids: [`${historyDeleted}-u`] }))).toEqual({ affected: 1 });

    const flows = ok(await call('GET', `${live.api}/chatflows`)) as { id: string; name: string }[];
    const ids = flows.map((f) => f.id);
    expect(ids).toEqual(expect.arrayContaining([withMessages, withFeedback, withHistory]));
    expect(ids).not.toContain(historyDeleted);
    expect(new Set(ids).size).toBe(ids.length);
    expect(flows.find((f) => f.id === withHistory)).toEqual({ id: withHistory, name: expect.any(String) });

    // A chatflow whose messages are all deleted is gone from the list.
    ok(await call('DELETE', `${live.api}/chatmessage/${withMessages}`));
    expect((ok(await call('GET', `${live.api}/chatflows`)) as { id: string }[]).map((f) => f.id)).not.toContain(withMessages);
  });

  it('the OpenAPI document validates and lists every route of the route table', async () => {
    const doc = ok(await call('GET', `${live.api}/openapi.json`)) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    await SwaggerParser.validate(structuredClone(doc) as never);
    expect(doc.info.version).toBe(VERSION);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    // Every route, HEAD beside each GET (fastify answers it), and this document itself.
    const table: [string, Pick<RouteSpec, 'method' | 'path'>][] = [...Object.entries(routes), ['openApiDocument', { method: 'GET', path: '/openapi.json' }]];
    const expected = table.flatMap(([name, spec]) => {
      const path = `/api/v1${spec.path.replace(/:(\w+)/g, '{$1}')}`;
      return [`${spec.method} ${path} ${name}`, ...(spec.method === 'GET' ? [`HEAD ${path} ${name}Head`] : [])];
    });
    expect(documented.sort()).toEqual(expected.sort());
    for (const [name, spec] of Object.entries(routes) as [string, RouteSpec][]) {
      const op = doc.paths[`/api/v1${spec.path.replace(/:(\w+)/g, '{$1}')}`]![spec.method.toLowerCase()]!;
      expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(['200', ...spec.errors.map(String)]));
    }
  });

  describe('body limit', () => {
    let small: TestServer;
    beforeAll(async () => {
      small = await startStoreServer(kind, { bodyLimit: 2048 });
    });
    afterAll(() => small?.dispose());

    it('a body over the configured limit is a JSON 413 and stores nothing', async () => {
      const big = { name: 'too-big', value: 'x'.repeat(4096) };
      expectError(await call('POST', `${small.api}/variables`, big), 413);
      expectError(await call('POST', `${small.api}/chatmessage/f`, [{ role: 'apiMessage', content: 'y'.repeat(4096) }]), 413);
      expect(ok(await call('GET', `${small.api}/variables`))).toEqual([]);
      expect(ok(await call('GET', `${small.api}/chatmessage/f`))).toEqual([]);
      // Under the limit is fine, and the same body passes the default 1 MiB limit.
      ok(await call('POST', `${small.api}/variables`, { name: 'small', value: 'x'.repeat(1000) }));
      ok(await call('POST', `${live.api}/variables`, big));
    });
  });

  describe('API keys', () => {
    let guarded: TestServer;
    beforeAll(async () => {
      guarded = await startStoreServer(kind, { apiKeys: ['key-one', 'key-two'] });
    });
    afterAll(() => guarded?.dispose());

    it('a missing or wrong key is 401 with the fixed body', async () => {
      for (const headers of <Record<string, string>[]>[
        {},
        { authorization: '' },
        { authorization: 'Bearer wrong' },
        { authorization: 'Bearer key-one-and-more' },
        { authorization: 'key-on' },
        { authorization: 'Basic key-one' },
        { 'x-api-key': 'key-one' },
      ]) {
        const res = await call('GET', `${guarded.api}/variables`, undefined, headers);
        expect(res.status, JSON.stringify(headers)).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
    });

    it('Bearer <key> and a bare key are accepted, for any of the keys', async () => {
      for (const authorization of ['Bearer key-one', 'Bearer key-two', 'key-one', 'key-two', 'bearer key-two']) {
        expect((await call('GET', `${guarded.api}/variables`, undefined, { authorization })).status, authorization).toBe(200);
      }
    });

    it('a write without the key changes nothing', async () => {
      const res = await call('POST', `${guarded.api}/variables`, { name: 'sneaky' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
      const list = ok(await call('GET', `${guarded.api}/variables`, undefined, { authorization: 'Bearer key-one' }));
      expect(list).toEqual([]);
    });

    it('every route but ping and version needs the key; ping and version are open', async () => {
      for (const [name, spec] of Object.entries(routes) as [string, RouteSpec][]) {
        const res = await call(spec.method, `${guarded.api}${concrete(spec)}`, spec.body ? {} : undefined);
        if (name === 'ping' || name === 'version') expect(res.status, name).toBe(200);
        else {
          expect(res.status, name).toBe(401);
          expect(res.body, name).toEqual(UNAUTHORIZED);
        }
      }
      expect((await call('GET', `${guarded.api}/openapi.json`)).status).toBe(401);
      expect((await call('GET', `${guarded.api}/ping`, undefined, { authorization: 'Bearer wrong' })).status).toBe(200);
    });

    it('without keys configured no header is needed', async () => {
      expect((await call('GET', `${live.api}/variables`)).status).toBe(200);
    });
  });

  it('data survives stopping the server and starting it again on the same store', async () => {
    const dir = mkdtempSync(join(tmpdir(), `chatflow-restart-${kind}-`));
    try {
      const first = await startStoreServer(kind, { dir });
      const a = first.api;
      const flow = flowId();
      const variable = ok(await call('POST', `${a}/variables`, { name: 'KEEP', value: 'me' }));
      const assistant = ok(await call('POST', `${a}/assistants`, { details: { name: 'kept', temperature: 0.3 } }));
      ok(
        await call('POST', `${a}/chatmessage/${flow}`, [
          { id: `${flow}-1`, role: 'userMessage', content: 'q', createdDate: '2024-01-01T00:00:00Z' },
          { id: `${flow}-2`, role: 'apiMessage', content: 'a', createdDate: '2024-01-01T00:00:01Z', usedTools: [{ tool: 't' }] },
        ]),
      );
      const feedback = ok(await call('POST', `${a}/feedback`, { messageId: `${flow}-2`, rating: 'THUMBS_DOWN' }));
      ok(await call('POST', `${a}/upsert-history/${flow}`, [{ id: `${flow}-u1`, result: '{"n":1}' }, { id: `${flow}-u2` }]));
      ok(await call('PATCH', `${a}/upsert-history/${flow}`, { ids: [`${flow}-u2`] }));
      const messages = ok(await call('GET', `${a}/chatmessage/${flow}?feedback=true`));
      const history = ok(await call('GET', `${a}/upsert-history/${flow}`));
      await first.dispose();
      await expect(fetch(`${a}/ping`)).rejects.toThrow();

      const second = await startStoreServer(kind, { dir });
      try {
        const b = second.api;
        expect(ok(await call('GET', `${b}/variables`))).toEqual([variable]);
        expect(ok(await call('GET', `${b}/assistants/${assistant.id}`))).toEqual(assistant);
        expect(ok(await call('GET', `${b}/chatmessage/${flow}?feedback=true`))).toEqual(messages);
        expect(ok(await call('GET', `${b}/chatmessage/${flow}`))).toHaveLength(2);
        expect(ok(await call('GET', `${b}/feedback/${flow}`))).toEqual([feedback]);
        expect(ok(await call('GET', `${b}/upsert-history/${flow}`))).toEqual(history);
        expect((history as { id: string }[]).map((r) => r.id)).toEqual([`${flow}-u1`]);
        // And it keeps working: the duplicate rule still holds across the restart.
        expectError(await call('POST', `${b}/feedback`, { messageId: `${flow}-2`, rating: 'THUMBS_UP' }), 409);
      } finally {
        await second.dispose();
      }
    } finally {
      await removeTestStore(kind, dir);
    }
  });
});
