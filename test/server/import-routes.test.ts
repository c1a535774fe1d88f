// Ingest of exported variables, assistants and feedback (POST /{resource}/import): ids and dates
// kept, existing ids skipped, a bad item refused with nothing of the batch written; and SQLite's
// own JSON of a streamed message list, which must be exactly what JSON.stringify would write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, ok } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startStoreServer, storeKinds, useStoreServer } from '../helpers/stores.js';
import { flowId } from './fixtures.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe.each(storeKinds)('import routes on %s', (kind) => {
  const live = useStoreServer(kind);

  const post = (path: string, body: unknown) => call('POST', `${live.api}${path}`, body);
  const affected = async (path: string, body: unknown) => ok(await post(path, body)).affected as number;

  it('variables: ids and dates kept, existing ids skipped', async () => {
    const v = { id: uuid(1), name: 'IMPORTED', value: 'x', type: 'runtime', createdDate: '2024-01-02T03:04:05.000Z', updatedDate: '2024-02-03T04:05:06Z' };
    expect(await affected('/variables/import', [v, { id: uuid(2), name: 'PLAIN' }])).toBe(2);
    expect(await affected('/variables/import', [v, { id: uuid(3), name: 'NEW' }])).toBe(1);
    const listed = ok(await call('GET', `${live.api}/variables`)) as { id: string }[];
    expect(listed.find((x) => x.id === uuid(1))).toEqual({ ...v, updatedDate: '2024-02-03T04:05:06.000Z' });
    expect(listed.find((x) => x.id === uuid(2))).toMatchObject({ name: 'PLAIN', value: '', type: 'static' });
  });

  it('variables: a bad item is refused naming it, and nothing of the batch is written', async () => {
    expectError(await post('/variables/import', [{ id: uuid(10), name: 'OK' }, { id: uuid(11), name: '' }]), 400, '[1].name');
    expectError(await post('/variables/import', [{ id: 'not-a-uuid', name: 'X' }]), 400, '[0].id');
    expectError(await post('/variables/import', { id: uuid(12), name: 'one' }), 400);
    const ids = (ok(await call('GET', `${live.api}/variables`)) as { id: string }[]).map((x) => x.id);
    expect(ids).not.toContain(uuid(10));
  });

  it('assistants: ids, dates and details kept; existing ids skipped', async () => {
    const a = {
      id: uuid(20),
      details: { name: 'Imported', model: 'gpt-4o', temperature: 0.3, custom: { x: 1 } },
      credential: 'cred',
      iconSrc: null,
      type: 'CUSTOM',
      createdDate: '2024-01-01T00:00:00.000Z',
      updatedDate: '2024-01-05T00:00:00.000Z',
    };
    expect(await affected('/assistants/import', [a])).toBe(1);
    expect(await affected('/assistants/import', [a])).toBe(0);
    expect(ok(await call('GET', `${live.api}/assistants/${uuid(20)}`))).toEqual(a);
    expectError(await post('/assistants/import', [{ id: uuid(21), details: { name: 'x', temperature: 3 } }]), 400, '[0].details.temperature');
  });

  it('feedback: kept with its message; chatflow and chat come from the message; re-import and a second rating skipped', async () => {
    const flow = flowId();
    expect(await affected(`/chatmessage/${flow}`, [
      { id: `${flow}-m1`, role: 'apiMessage', chatId: 'c1', content: 'a', createdDate: '2024-01-01T00:00:00.000Z' },
      { id: `${flow}-m2`, role: 'apiMessage', chatId: 'c2', content: 'b', createdDate: '2024-01-01T00:00:01.000Z' },
    ])).toBe(2);
    const f1 = { id: uuid(30), messageId: `${flow}-m1`, rating: 'THUMBS_UP', content: 'good', createdDate: '2024-01-02T00:00:00.000Z' };
    expect(await affected('/feedback/import', [f1])).toBe(1);
    expect(await affected('/feedback/import', [f1, { id: uuid(31), messageId: `${flow}-m1`, rating: 'THUMBS_DOWN' }])).toBe(0);
    const listed = ok(await call('GET', `${live.api}/feedback/${flow}`));
    expect(listed).toEqual([{ ...f1, chatflowid: flow, chatId: 'c1' }]);
  });

  it('feedback: an unknown message or a contradicting chatflow is 400 and nothing of the batch is written', async () => {
    const flow = flowId();
    await affected(`/chatmessage/${flow}`, [{ id: `${flow}-m1`, role: 'apiMessage', chatId: 'c1' }]);
    const good = { id: uuid(40), messageId: `${flow}-m1`, rating: 'THUMBS_UP' };
    expectError(await post('/feedback/import', [good, { id: uuid(41), messageId: 'nope', rating: 'THUMBS_UP' }]), 400, '[1].messageId');
    expectError(await post('/feedback/import', [{ ...good, chatflowid: 'other' }]), 400, 'chatflowid');
    expect(ok(await call('GET', `${live.api}/feedback/${flow}`))).toEqual([]);
  });

  it('the import routes are extensions in the OpenAPI document', async () => {
    const doc = ok(await call('GET', `${live.api}/openapi.json`)) as { paths: Record<string, Record<string, unknown>> };
    for (const path of ['/api/v1/variables/import', '/api/v1/assistants/import', '/api/v1/feedback/import']) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
  });
});

describe.each(storeKinds)('%s writes a streamed message list as JSON.stringify would', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startStoreServer(kind);
  });
  afterAll(() => server?.dispose());

  it('the same text, byte for byte, for awkward content and dates', async () => {
    const flow = flowId();
    // (PostgreSQL cannot keep a NUL character.)
    const nul = kind === 'sqlite' ? '\u0000' : '';
    const awkward = ['quote " backslash \\ slash /', `controls ${nul}\u0001\b\f\n\r\t\u001f\u007f`, 'line\u2028sep\u2029', 'é ü ß 中文 😀', ''];
    const messages = awkward.map((content, i) => ({
      id: `${flow}-${i}`,
      role: 'userMessage',
      content,
      chatType: 'INTERNAL',
      chatId: `chat "${i}"`,
      sessionId: i % 2 ? null : `s\n${i}`,
      createdDate: ['0001-01-01T00:00:00.000Z', '0999-12-31T23:59:59.999Z', '2024-02-29T12:34:56.007Z', '2024-03-01T00:00:00.010Z', '9999-12-31T23:59:59.999Z'][i],
      usedTools: i === 1 ? [{ tool: 'calc', toolInput: { x: 1.5, y: -0, big: 1e21, s: 'a"b' }, toolOutput: null }] : null,
      action: i === 2 ? { mapping: { approve: 'ok' }, elements: [] } : null,
      sourceDocuments: i === 3 ? [] : null,
    }));
    ok(await call('POST', `${server.api}/chatmessage/${flow}`, messages));
    // The whole stream (SQLite's text) against a page (each row through toMessage and JSON.stringify).
    const streamed = (await call('GET', `${server.api}/chatmessage/${flow}`)).text;
    const paged = ok(await call('GET', `${server.api}/chatmessage/${flow}?page=1&limit=100`)) as unknown[];
    const lines = streamed.split('\n').slice(1, -1).map((l) => l.replace(/,$/, ''));
    expect(lines).toEqual(paged.map((m) => JSON.stringify(m)));
  });
});
