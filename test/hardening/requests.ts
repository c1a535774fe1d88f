// One valid request for every route of the route table, against records seeded for it: sent
// with the right key each one succeeds, so a refused one proves the refusal, not a bad request.
// The compiler insists on an entry per route (a new route must be added here).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { RouteName } from '../../src/schema/routes.js';
import { call } from '../helpers/http.js';

export interface Req {
  method: string;
  path: string;
  body?: unknown;
}

export interface Seeded {
  flow: string;
  requests: Record<RouteName, Req>;
  /** Everything the seed created, read back (to compare before and after). */
  snapshot(): Promise<unknown>;
}

/** Creates the records the requests act on, through `api` with `headers`. */
export async function seedFor(api: string, headers: Record<string, string> = {}): Promise<Seeded> {
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, `${api}${path}`, body, headers);
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
    return res.body;
  };
  const flow = `flow-${randomUUID()}`;
  const [v1, v2] = [await ok('POST', '/variables', { name: `A_${randomUUID()}`, value: '1' }), await ok('POST', '/variables', { name: `B_${randomUUID()}` })];
  const [a1, a2] = [await ok('POST', '/assistants', { details: { name: 'one' } }), await ok('POST', '/assistants', { details: { name: 'two' } })];
  await ok('POST', `/chatmessage/${flow}`, ['m1', 'm2', 'm3', 'm4'].map((m, i) => ({ id: `${flow}-${m}`, role: i % 2 ? 'apiMessage' : 'userMessage', content: m, chatId: `c${i + 1}` })));
  const feedback = await ok('POST', '/feedback', { messageId: `${flow}-m1`, rating: 'THUMBS_UP' });
  await ok('POST', `/upsert-history/${flow}`, [{ id: `${flow}-u1` }, { id: `${flow}-u2` }]);
  const flowBody = (name: string) => ({ name, flowData: '{"nodes":[],"edges":[]}', type: 'CHATFLOW' });
  const [f1, f2] = [await ok('POST', '/chatflows', flowBody('one')), await ok('POST', '/chatflows', flowBody('two'))];

  const requests: Record<RouteName, Req> = {
    ping: { method: 'GET', path: '/ping' },
    version: { method: 'GET', path: '/version' },
    createVariable: { method: 'POST', path: '/variables', body: { name: `C_${randomUUID()}`, value: 'x' } },
    listVariables: { method: 'GET', path: '/variables' },
    updateVariable: { method: 'PUT', path: `/variables/${v1.id}`, body: { value: 'changed' } },
    deleteVariable: { method: 'DELETE', path: `/variables/${v2.id}` },
    importVariables: { method: 'POST', path: '/variables/import', body: [{ name: `I_${randomUUID()}` }] },
    setVariable: { method: 'POST', path: '/variables/set', body: { name: `S_${randomUUID()}`, value: 's' } },
    listFeedback: { method: 'GET', path: `/feedback/${flow}` },
    createFeedback: { method: 'POST', path: '/feedback', body: { messageId: `${flow}-m2`, rating: 'THUMBS_DOWN' } },
    updateFeedback: { method: 'PUT', path: `/feedback/${feedback.id}`, body: { rating: 'THUMBS_DOWN' } },
    importFeedback: { method: 'POST', path: '/feedback/import', body: [{ messageId: `${flow}-m3`, rating: 'THUMBS_UP' }] },
    createAssistant: { method: 'POST', path: '/assistants', body: { details: { name: 'three' } } },
    listAssistants: { method: 'GET', path: '/assistants' },
    getAssistant: { method: 'GET', path: `/assistants/${a1.id}` },
    updateAssistant: { method: 'PUT', path: `/assistants/${a1.id}`, body: { details: { model: 'changed' } } },
    deleteAssistant: { method: 'DELETE', path: `/assistants/${a2.id}` },
    importAssistants: { method: 'POST', path: '/assistants/import', body: [{ details: { name: 'imported' } }] },
    listMessages: { method: 'GET', path: `/chatmessage/${flow}` },
    listChats: { method: 'GET', path: `/chats/${flow}` },
    deleteMessages: { method: 'DELETE', path: `/chatmessage/${flow}?chatId=c4` },
    ingestMessages: { method: 'POST', path: `/chatmessage/${flow}`, body: { role: 'userMessage', content: 'new' } },
    listUpsertHistory: { method: 'GET', path: `/upsert-history/${flow}` },
    listAllUpsertHistory: { method: 'GET', path: '/upsert-history' },
    deleteUpsertHistory: { method: 'PATCH', path: `/upsert-history/${flow}`, body: { ids: [`${flow}-u1`] } },
    deleteAnyUpsertHistory: { method: 'PATCH', path: '/upsert-history', body: { ids: [`${flow}-u2`] } },
    ingestUpsertHistory: { method: 'POST', path: `/upsert-history/${flow}`, body: { result: { n: 1 } } },
    listChatflows: { method: 'GET', path: '/chatflows' },
    getChatflow: { method: 'GET', path: `/chatflows/${f1.id}` },
    createChatflow: { method: 'POST', path: '/chatflows', body: flowBody('three') },
    updateChatflow: { method: 'PUT', path: `/chatflows/${f1.id}`, body: { name: 'changed' } },
    deleteChatflow: { method: 'DELETE', path: `/chatflows/${f2.id}` },
    importChatflows: { method: 'POST', path: '/chatflows/import', body: [flowBody('imported')] },
  };
  return {
    flow,
    requests,
    snapshot: async () => ({
      variables: await ok('GET', '/variables'),
      assistants: await ok('GET', '/assistants'),
      messages: await ok('GET', `/chatmessage/${flow}?feedback=false`),
      feedback: await ok('GET', `/feedback/${flow}`),
      history: await ok('GET', '/upsert-history'),
      chatflows: await ok('GET', '/chatflows'),
    }),
  };
}
