import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, ok, qs } from '../helpers/http.js';
import { storeKinds, useStoreServer } from '../helpers/stores.js';
import { ISO_MS, MISSING_UUID, UUID_V4, flowId, sleep } from './fixtures.js';

describe.each(storeKinds)('feedback on %s', (kind) => {
  const live = useStoreServer(kind);

  /** A chatflow with `n` messages in chats chat-0, chat-1, … (ids `${flow}-i`). */
  async function messages(n: number, flow = flowId()) {
    const list = Array.from({ length: n }, (_, i) => ({ id: `${flow}-${i}`, role: 'apiMessage', chatId: `chat-${i % 2}`, content: `m${i}` }));
    ok(await call('POST', `${live.api}/chatmessage/${flow}`, list));
    return { flow, ids: list.map((m) => m.id) };
  }
  const list = async (flow: string, query: Parameters<typeof qs>[0] = {}) =>
    ok(await call('GET', `${live.api}/feedback/${flow}${qs(query)}`)) as { id: string; messageId: string; rating: string }[];

  it('POST rates a message, fills chatId and chatflowid from it, and answers the feedback', async () => {
    const { flow, ids } = await messages(1);
    const fb = ok(await call('POST', `${live.api}/feedback`, { messageId: ids[0], rating: 'THUMBS_UP', content: 'helpful' }));
    expect(fb).toEqual({
      id: expect.stringMatching(UUID_V4),
      chatflowid: flow,
      chatId: 'chat-0',
      messageId: ids[0],
      rating: 'THUMBS_UP',
      content: 'helpful',
      createdDate: expect.stringMatching(ISO_MS),
    });
    expect(await list(flow)).toEqual([fb]);
  });

  it('POST accepts chatId and chatflowid that agree with the message; content is optional', async () => {
    const { flow, ids } = await messages(2);
    const fb = ok(await call('POST', `${live.api}/feedback`, { messageId: ids[1], chatId: 'chat-1', chatflowid: flow, rating: 'THUMBS_DOWN' }));
    expect(fb).toMatchObject({ chatflowid: flow, chatId: 'chat-1', rating: 'THUMBS_DOWN', content: null });
  });

  it('POST with a chatId or chatflowid contradicting the message is 400 and stores nothing', async () => {
    const { flow, ids } = await messages(1);
    expectError(await call('POST', `${live.api}/feedback`, { messageId: ids[0], chatId: 'chat-9', rating: 'THUMBS_UP' }), 400, 'chatId');
    expectError(
      await call('POST', `${live.api}/feedback`, { messageId: ids[0], chatflowid: 'another-flow', rating: 'THUMBS_UP' }),
      400,
      'chatflowid',
    );
    expect(await list(flow)).toEqual([]);
    expect(await list('another-flow')).toEqual([]);
  });

  it('POST for an unknown message is 404', async () => {
    expectError(await call('POST', `${live.api}/feedback`, { messageId: 'no-such-message', rating: 'THUMBS_UP' }), 404, 'no-such-message');
  });

  it('a second feedback for the same message is 409 and leaves the first unchanged', async () => {
    const { flow, ids } = await messages(1);
    const first = ok(await call('POST', `${live.api}/feedback`, { messageId: ids[0], rating: 'THUMBS_UP' }));
    const again = await call('POST', `${live.api}/feedback`, { messageId: ids[0], rating: 'THUMBS_DOWN' });
    expectError(again, 409, first.id);
    expect(await list(flow)).toEqual([first]);
  });

  it('concurrent feedback for one message: exactly one is created, the others are 409', async () => {
    const { flow, ids } = await messages(1);
    const replies = await Promise.all(
      ['THUMBS_UP', 'THUMBS_DOWN', 'THUMBS_UP', 'THUMBS_DOWN', 'THUMBS_UP'].map((rating) => call('POST', `${live.api}/feedback`, { messageId: ids[0], rating })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    for (const r of replies.filter((x) => x.status === 409)) expectError(r, 409);
    expect(await list(flow)).toHaveLength(1);
  });

  it.each([
    [{ rating: 'THUMBS_UP' }, 'messageId is required'],
    [{ messageId: 'x', rating: 'MEH' }, 'rating must be one of THUMBS_UP, THUMBS_DOWN'],
    [{ messageId: 'x' }, 'rating is required'],
    [{ messageId: 'x', rating: 'THUMBS_UP', content: 7 }, 'content must be a string'],
  ])('POST %j is 400 "%s"', async (body, message) => {
    expectError(await call('POST', `${live.api}/feedback`, body), 400, message);
  });

  it('POST with malformed JSON is 400', async () => {
    expectError(await call('POST', `${live.api}/feedback`, '{"messageId":'), 400);
  });

  it('PUT changes rating and/or content and answers the updated feedback', async () => {
    const { flow, ids } = await messages(2);
    const fb = ok(await call('POST', `${live.api}/feedback`, { messageId: ids[0], rating: 'THUMBS_UP', content: 'good' }));
    const rated = ok(await call('PUT', `${live.api}/feedback/${fb.id}`, { rating: 'THUMBS_DOWN' }));
    expect(rated).toEqual({ ...fb, rating: 'THUMBS_DOWN' });
    const commented = ok(await call('PUT', `${live.api}/feedback/${fb.id}`, { content: 'actually wrong' }));
    expect(commented).toEqual({ ...fb, rating: 'THUMBS_DOWN', content: 'actually wrong' });
    // The message it rates cannot be moved by PUT.
    const moved = ok(await call('PUT', `${live.api}/feedback/${fb.id}`, { messageId: ids[1], rating: 'THUMBS_UP' }));
    expect(moved.messageId).toBe(ids[0]);
    expect(await list(flow)).toEqual([moved]);
  });

  it('PUT errors: unknown id 404, non-UUID 400, invalid rating 400', async () => {
    const { ids } = await messages(1);
    const fb = ok(await call('POST', `${live.api}/feedback`, { messageId: ids[0], rating: 'THUMBS_UP' }));
    expectError(await call('PUT', `${live.api}/feedback/${MISSING_UUID}`, { rating: 'THUMBS_UP' }), 404, MISSING_UUID);
    expectError(await call('PUT', `${live.api}/feedback/feedback-1`, { rating: 'THUMBS_UP' }), 400, 'id must be a UUID');
    expectError(await call('PUT', `${live.api}/feedback/${fb.id}`, { rating: 'GREAT' }), 400, 'rating must be one of');
    expectError(await call('PUT', `${live.api}/feedback/${fb.id}`, '{'), 400);
  });

  describe('GET /feedback/{chatflowId}', () => {
    let flow: string;
    let made: { id: string; chatId: string; createdDate: string }[];
    beforeAll(async () => {
      const m = await messages(4);
      flow = m.flow;
      made = [];
      for (const [i, id] of m.ids.entries()) {
        made.push(ok(await call('POST', `${live.api}/feedback`, { messageId: id, rating: i % 2 ? 'THUMBS_DOWN' : 'THUMBS_UP' })));
        await sleep(3);
      }
      // Feedback of another chatflow never shows here.
      const other = await messages(1);
      ok(await call('POST', `${live.api}/feedback`, { messageId: other.ids[0], rating: 'THUMBS_UP' }));
    });
    const ids = (l: { id: string }[]) => l.map((f) => f.id);

    it('lists the chatflow feedback, oldest first by default', async () => {
      expect(ids(await list(flow))).toEqual(made.map((f) => f.id));
    });

    it('sorts with sortOrder or order in any case', async () => {
      const reversed = made.map((f) => f.id).reverse();
      expect(ids(await list(flow, { sortOrder: 'desc' }))).toEqual(reversed);
      expect(ids(await list(flow, { order: 'DESC' }))).toEqual(reversed);
      expect(ids(await list(flow, { sortOrder: 'DeSc' }))).toEqual(reversed);
      expect(ids(await list(flow, { sortOrder: 'ASC' }))).toEqual(made.map((f) => f.id));
      expectError(await call('GET', `${live.api}/feedback/${flow}?sortOrder=newest`), 400, 'sortOrder must be asc or desc');
    });

    it('filters by chatId', async () => {
      expect(ids(await list(flow, { chatId: 'chat-1' }))).toEqual(made.filter((f) => f.chatId === 'chat-1').map((f) => f.id));
      expect(await list(flow, { chatId: 'chat-7' })).toEqual([]);
    });

    it('filters by inclusive date bounds, each alone or both', async () => {
      const [f0, f1, f2, f3] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0], (typeof made)[0]];
      expect(ids(await list(flow, { startDate: f1.createdDate }))).toEqual([f1.id, f2.id, f3.id]);
      expect(ids(await list(flow, { endDate: f2.createdDate }))).toEqual([f0.id, f1.id, f2.id]);
      expect(ids(await list(flow, { startDate: f1.createdDate, endDate: f2.createdDate }))).toEqual([f1.id, f2.id]);
      const today = f0.createdDate.slice(0, 10);
      expect(ids(await list(flow, { startDate: today, endDate: today }))).toHaveLength(4);
      expect(await list(flow, { endDate: '2000-01-01' })).toEqual([]);
      expect(await list(flow, { startDate: '9999-12-31' })).toEqual([]);
      expectError(await call('GET', `${live.api}/feedback/${flow}?startDate=yesterday`), 400, 'startDate');
      expectError(await call('GET', `${live.api}/feedback/${flow}?endDate=2024-02-30`), 400, 'endDate');
    });

    it('pages with X-Total-Count', async () => {
      const res = await call('GET', `${live.api}/feedback/${flow}?page=2&limit=3`);
      expect(ids(ok(res))).toEqual([made[3]!.id]);
      expect(res.headers.get('x-total-count')).toBe('4');
    });

    it('an unknown chatflow has an empty list', async () => {
      expect(await list('never-seen')).toEqual([]);
    });
  });
});
