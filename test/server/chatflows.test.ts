// Chatflow definitions in our service (issue 33): Flowise's routes and shape, on both stores.
import { describe, expect, it } from 'vitest';
import { call, expectError, ok } from '../helpers/http.js';
import { storeKinds, useStoreServer } from '../helpers/stores.js';
import { ISO_MS, UUID_V4, flowId } from './fixtures.js';

const FLOW = { nodes: [{ id: 'chatOpenAI_0', data: { credential: 'cred-1', inputs: { modelName: 'gpt-4o' } } }], edges: [] };
const FLOW_TEXT = JSON.stringify(FLOW);

describe.each(storeKinds)('chatflows on %s', (kind) => {
  const live = useStoreServer(kind);
  const create = async (body: object) => ok(await call('POST', `${live.api}/chatflows`, body));

  it('POST stores a chatflow as Flowise answers one: flowData and settings as JSON text', async () => {
    const c = await create({ name: 'Support bot', flowData: FLOW_TEXT, type: 'CHATFLOW', chatbotConfig: '{"welcomeMessage":"hi"}', isPublic: true });
    expect(c).toEqual({
      id: expect.stringMatching(UUID_V4),
      name: 'Support bot',
      flowData: FLOW_TEXT,
      type: 'CHATFLOW',
      deployed: null,
      isPublic: true,
      apikeyid: null,
      category: null,
      chatbotConfig: '{"welcomeMessage":"hi"}',
      apiConfig: null,
      analytic: null,
      speechToText: null,
      textToSpeech: null,
      followUpPrompts: null,
      mcpServerConfig: null,
      createdDate: expect.stringMatching(ISO_MS),
      updatedDate: c.createdDate,
    });
    expect(ok(await call('GET', `${live.api}/chatflows/${c.id}`))).toEqual(c);
  });

  it('POST takes flowData and settings as objects too, and keeps a given text byte for byte', async () => {
    const c = await create({ name: 'objects', flowData: FLOW, type: 'AGENTFLOW', apiConfig: { rateLimit: 5 } });
    expect(JSON.parse(c.flowData)).toEqual(FLOW);
    expect(c.apiConfig).toBe('{"rateLimit":5}');
    const spaced = '{ "nodes": [],\n  "edges": [] }';
    expect((await create({ name: 'spaced', flowData: spaced, type: 'CHATFLOW' })).flowData).toBe(spaced);
  });

  it.each([
    [{ flowData: FLOW_TEXT, type: 'CHATFLOW' }, 'name is required'],
    [{ name: 'x', type: 'CHATFLOW' }, 'flowData is required'],
    [{ name: 'x', flowData: FLOW_TEXT }, 'type is required'],
    [{ name: 'x', flowData: FLOW_TEXT, type: 'WORKFLOW' }, 'type must be one of CHATFLOW, AGENTFLOW, MULTIAGENT, ASSISTANT'],
    [{ name: 'x', flowData: '{nodes', type: 'CHATFLOW' }, 'flowData must be JSON'],
    [{ name: 'x', flowData: [], type: 'CHATFLOW' }, 'flowData must be'],
    [{ name: 'x', flowData: FLOW_TEXT, type: 'CHATFLOW', isPublic: 'yes' }, 'isPublic must be'],
  ])('POST %j breaks a rule: 422 "%s"', async (body, message) => {
    expectError(await call('POST', `${live.api}/chatflows`, body), 422, message);
  });

  it('GET /chatflows lists definitions by name, then the ids only records name; ?type= narrows to definitions', async () => {
    const loose = flowId('loose');
    ok(await call('POST', `${live.api}/chatmessage/${loose}`, { role: 'userMessage', content: 'hi' }));
    const b = await create({ name: 'zz-b', flowData: FLOW_TEXT, type: 'MULTIAGENT' });
    const a = await create({ name: 'zz-a', flowData: FLOW_TEXT, type: 'MULTIAGENT' });
    const all = ok(await call('GET', `${live.api}/chatflows`)) as { id: string; name: string; flowData?: string }[];
    const names = all.map((c) => c.name);
    expect(names.indexOf('zz-a')).toBeLessThan(names.indexOf('zz-b'));
    expect(all.at(-1)).toEqual({ id: loose, name: loose });
    expect(all.filter((c) => c.flowData === undefined).map((c) => c.id)).toEqual([loose]);
    const multi = ok(await call('GET', `${live.api}/chatflows?type=MULTIAGENT`)) as { id: string }[];
    expect(multi.map((c) => c.id)).toEqual([a.id, b.id]);
    expectError(await call('GET', `${live.api}/chatflows?type=flow`), 400, 'type must be one of');
  });

  it('PUT changes the given fields only; DELETE removes the definition and keeps its messages', async () => {
    const c = await create({ name: 'to change', flowData: FLOW_TEXT, type: 'CHATFLOW', category: 'support' });
    const u = ok(await call('PUT', `${live.api}/chatflows/${c.id}`, { name: 'changed', flowData: { nodes: [], edges: [] }, deployed: false }));
    expect(u).toMatchObject({ id: c.id, name: 'changed', flowData: '{"nodes":[],"edges":[]}', deployed: false, category: 'support', type: 'CHATFLOW' });
    expect(u.updatedDate >= c.updatedDate).toBe(true);
    ok(await call('POST', `${live.api}/chatmessage/${c.id}`, { role: 'userMessage', content: 'kept' }));
    expect(ok(await call('DELETE', `${live.api}/chatflows/${c.id}`))).toEqual({ affected: 1 });
    expectError(await call('GET', `${live.api}/chatflows/${c.id}`), 404, `chatflow ${c.id} not found`);
    expectError(await call('DELETE', `${live.api}/chatflows/${c.id}`), 404);
    expectError(await call('PUT', `${live.api}/chatflows/${c.id}`, { name: 'x' }), 404);
    expect(ok(await call('GET', `${live.api}/chatmessage/${c.id}`))).toHaveLength(1);
  });

  it('POST /chatflows/import keeps ids and dates and skips ids already there', async () => {
    const id = flowId('kept');
    const record = { id, name: 'imported', flowData: FLOW_TEXT, type: 'ASSISTANT', createdDate: '2026-01-02T03:04:05.000Z', updatedDate: '2026-01-03T00:00:00Z' };
    expect(ok(await call('POST', `${live.api}/chatflows/import`, [record]))).toEqual({ affected: 1 });
    expect(ok(await call('POST', `${live.api}/chatflows/import`, [{ ...record, name: 'again' }]))).toEqual({ affected: 0 });
    expectError(await call('POST', `${live.api}/chatflows/import`, [{ ...record, id: flowId('bad'), flowData: '{nodes' }]), 400, '[0].flowData must be JSON');
    expect(ok(await call('GET', `${live.api}/chatflows/${id}`))).toMatchObject({
      id,
      name: 'imported',
      type: 'ASSISTANT',
      createdDate: '2026-01-02T03:04:05.000Z',
      updatedDate: '2026-01-03T00:00:00.000Z',
    });
  });
});
