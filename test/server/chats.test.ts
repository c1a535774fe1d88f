// GET /chats/:id (our extension): one summary per chat of the messages the filters take, newest
// activity first (ties by chat id), a page with its total, on SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { call, ok, qs } from '../helpers/http.js';
import { storeKinds, useStoreServer } from '../helpers/stores.js';
import { flowId } from './fixtures.js';

const at = (minute: number) => new Date(Date.UTC(2026, 5, 1, 10, minute)).toISOString();

describe.each(storeKinds)('chats on %s', (kind) => {
  const live = useStoreServer(kind);

  /** Chat x (2 messages, rated down), y (3, sessionless, its last the latest), z (1, same last as x). */
  async function seed() {
    const flow = flowId();
    const m = (id: string, chatId: string, minute: number, extra: Record<string, unknown> = {}) => ({
      id: `${flow}-${id}`, role: 'userMessage', chatId, sessionId: `s-${chatId}`, chatType: 'INTERNAL', content: `${id} text`, createdDate: at(minute), ...extra,
    });
    ok(await call('POST', `${live.api}/chatmessage/${flow}`, [
      m('x1', 'x', 0, { content: 'Where is 100%_done?' }),
      m('x2', 'x', 5, { role: 'apiMessage', content: 'Here.' }),
      m('y1', 'y', 1, { sessionId: null, role: 'apiMessage', content: 'Welcome' }),
      m('y2', 'y', 2, { sessionId: null, content: 'first question of y' }),
      m('y3', 'y', 9, { sessionId: null, chatType: 'EXTERNAL' }),
      m('z1', 'z', 5, { chatType: 'EXTERNAL', content: 'zzz' }),
    ]));
    ok(await call('POST', `${live.api}/feedback`, { messageId: `${flow}-x2`, rating: 'THUMBS_DOWN', content: 'no' }));
    ok(await call('POST', `${live.api}/feedback`, { messageId: `${flow}-y3`, rating: 'THUMBS_UP' }));
    return flow;
  }
  const chats = async (flow: string, query: Parameters<typeof qs>[0] = {}) => {
    const r = await call('GET', `${live.api}/chats/${flow}${qs(query)}`);
    return { rows: ok(r) as { chatId: string }[], total: Number(r.headers.get('x-total-count')) };
  };
  const ids = async (flow: string, query: Parameters<typeof qs>[0] = {}) => (await chats(flow, query)).rows.map((c) => c.chatId);

  it('sums each chat up, newest activity first, ties by chat id', async () => {
    const flow = await seed();
    const { rows, total } = await chats(flow);
    expect(total).toBe(3);
    expect(rows).toEqual([
      { chatId: 'y', sessionId: null, chatType: 'INTERNAL', firstDate: at(1), lastDate: at(9), messages: 3, firstQuestion: 'first question of y', up: 1, down: 0 },
      { chatId: 'z', sessionId: 's-z', chatType: 'EXTERNAL', firstDate: at(5), lastDate: at(5), messages: 1, firstQuestion: 'zzz', up: 0, down: 0 },
      { chatId: 'x', sessionId: 's-x', chatType: 'INTERNAL', firstDate: at(0), lastDate: at(5), messages: 2, firstQuestion: 'Where is 100%_done?', up: 0, down: 1 },
    ]);
  });

  it('pages with the total, and takes each filter', async () => {
    const flow = await seed();
    expect(await chats(flow, { page: 2, limit: 2 })).toMatchObject({ rows: [{ chatId: 'x' }], total: 3 });
    expect(await chats(flow, { page: 3, limit: 2 })).toEqual({ rows: [], total: 3 });
    expect(await ids(flow, { feedbackType: 'THUMBS_DOWN' })).toEqual(['x']);
    expect(await ids(flow, { chatType: 'EXTERNAL' })).toEqual(['y', 'z']);
    expect(await ids(flow, { sessionId: 's-z' })).toEqual(['z']);
    expect(await ids(flow, { search: 'WELCOME' })).toEqual(['y']);
    // LIKE's wildcards are the text itself.
    expect(await ids(flow, { search: '%_' })).toEqual(['x']);
    expect(await ids(flow, { search: '0%_d' })).toEqual(['x']);
    expect(await ids(flow, { search: '_x' })).toEqual([]);
    expect(await ids(flow, { chatIdStart: 'y' })).toEqual(['y']);
    // A date window counts the chat's messages within it.
    const w = await chats(flow, { startDate: at(2), endDate: at(6) });
    expect(w.rows).toMatchObject([{ chatId: 'z' }, { chatId: 'x', messages: 1, firstQuestion: null }, { chatId: 'y', messages: 1, firstQuestion: 'first question of y' }]);
  });

  it('answers an empty page for a chatflow without messages, and 400 for an unknown parameter', async () => {
    expect(await chats(flowId())).toEqual({ rows: [], total: 0 });
    expect((await call('GET', `${live.api}/chats/${flowId()}?feedback=true`)).status).toBe(400);
  });
});
