import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, ok, qs } from '../helpers/http.js';
import { storeKinds, useStoreServer } from '../helpers/stores.js';
import { ISO_MS, UUID_V7, flowId, seedMessages, type Seeded } from './fixtures.js';

type Query = Parameters<typeof qs>[0];
type Message = Record<string, unknown> & { id: string; feedback?: Record<string, unknown> };

describe.each(storeKinds)('chat messages on %s', (kind) => {
  const live = useStoreServer(kind);

  const list = async (flow: string, query: Query = {}) => ok(await call('GET', `${live.api}/chatmessage/${flow}${qs(query)}`)) as Message[];
  const ingest = async (flow: string, body: unknown) => ok(await call('POST', `${live.api}/chatmessage/${flow}`, body)).affected as number;

  describe('ingest', () => {
    it('one message: id, createdDate and fields kept; chatflowid from the path; arrays stay arrays', async () => {
      const flow = flowId();
      const message = {
        id: `${flow}-one`,
        role: 'apiMessage',
        content: 'The answer is 42.',
        sourceDocuments: [{ pageContent: 'page', metadata: { source: 'a.pdf', page: 3 } }],
        usedTools: [{ tool: 'calculator', toolInput: { input: '6*7' }, toolOutput: '42' }],
        fileAnnotations: [],
        agentReasoning: [{ agentName: 'a', messages: ['m'] }],
        fileUploads: [{ type: 'file', name: 'a.pdf', mime: 'application/pdf' }],
        action: { id: 'act-1', elements: [{ type: 'approve-button' }] },
        // Flowise 3's: any JSON value, kept as given.
        artifacts: [{ type: 'png', data: 'FILE-STORAGE::chart.png' }],
        reasonContent: { thinking: 'six times seven', thinkingDuration: 2 },
        chatType: 'EXTERNAL',
        chatId: 'chat-1',
        memoryType: 'bufferMemory',
        sessionId: 'session-1',
        leadEmail: 'lead@example.com',
        followUpPrompts: '["And 6*8?"]',
        executionId: 'exec-1',
        createdDate: '2024-05-06T07:08:09.123Z',
      };
      expect(await ingest(flow, message)).toBe(1);
      expect(await list(flow)).toEqual([{ ...message, chatflowid: flow }]);
    });

    it('an array; missing fields get defaults, an id and a date; dates with an offset are stored in UTC', async () => {
      const flow = flowId();
      const before = Date.now();
      expect(
        await ingest(flow, [
          { id: `${flow}-a`, role: 'userMessage', content: 'hi', createdDate: '2024-03-01T08:00:00+02:00' },
          { role: 'apiMessage', chatflowid: 'ignored-flow' },
        ]),
      ).toBe(2);
      const [a, b] = (await list(flow)) as [Message, Message];
      expect(a).toMatchObject({ id: `${flow}-a`, createdDate: '2024-03-01T06:00:00.000Z', chatflowid: flow, chatType: 'INTERNAL' });
      expect(a).toMatchObject({ sourceDocuments: null, usedTools: null, memoryType: null, sessionId: null, leadEmail: null });
      expect(b).toMatchObject({ id: expect.stringMatching(UUID_V7), chatId: expect.stringMatching(UUID_V7), chatflowid: flow, content: '', chatType: 'INTERNAL' });
      expect(b.createdDate).toMatch(ISO_MS);
      expect(Date.parse(b.createdDate as string)).toBeGreaterThanOrEqual(before - 1000);
      expect(await list('ignored-flow')).toEqual([]);
    });

    it('a streamed list writes each message as JSON.stringify does: every escape, any text, dates from year 1 to 9999', async () => {
      const flow = flowId();
      // (Not NUL: the PostgreSQL store cannot keep it.)
      const controls = Array.from({ length: 31 }, (_, c) => String.fromCharCode(c + 1)).join('');
      const texts = [
        controls, 'quote " backslash \\ slash / DEL \x7f', 'é → 😀 \u2028\u2029 中文', '',
        `${'a long run '.repeat(10)}"${'x'.repeat(40)}\n${'y'.repeat(5)}\\`,
      ];
      const dates = ['0001-01-01T00:00:00.000Z', '1999-12-31T23:59:59.999Z', '2000-01-01T00:00:00.000Z', '2024-02-29T12:34:56.789Z', '9999-12-31T23:59:59.999Z'];
      const messages = texts.map((content, i) => ({
        id: `${flow}-${i}`,
        role: 'apiMessage',
        content,
        sourceDocuments: i % 2 ? [{ pageContent: content, metadata: { n: i, ok: true, none: null } }] : null,
        action: i === 3 ? { text: controls } : null,
        // (Any JSON value: a string, a number, written as JSON.stringify writes them.)
        reasonContent: i === 2 ? content : i === 4 ? 42 : null,
        followUpPrompts: i % 2 ? null : content,
        chatId: content || 'no content',
        sessionId: `s"${i}\\`,
        createdDate: dates[i],
      }));
      expect(await ingest(flow, messages)).toBe(texts.length);
      const res = await call('GET', `${live.api}/chatmessage/${flow}`);
      const lines = res.text.slice(2, -2).split(',\n');
      expect(lines.map((l) => JSON.parse(l) as Message)).toEqual(
        messages.map((m) => ({ ...m, chatflowid: flow, usedTools: null, fileAnnotations: null, agentReasoning: null, fileUploads: null, artifacts: null, chatType: 'INTERNAL', memoryType: null, leadEmail: null, executionId: null })),
      );
      // Byte for byte as JSON.stringify writes the same values (an export's lines are these texts).
      expect(lines).toEqual(lines.map((l) => JSON.stringify(JSON.parse(l))));
      // And as the same list read page-wise, each row mapped by the service.
      expect(lines.map((l) => JSON.parse(l))).toEqual(await list(flow, { page: 1, limit: 100 }));
    });

    it('re-ingesting skips existing ids (unchanged) and counts only the new ones', async () => {
      const flow = flowId();
      const msgs = [1, 2, 3].map((i) => ({ id: `${flow}-${i}`, role: 'apiMessage', content: `v1 ${i}`, createdDate: `2024-01-0${i}T00:00:00.000Z` }));
      expect(await ingest(flow, msgs)).toBe(3);
      expect(await ingest(flow, msgs)).toBe(0);
      const again = [...msgs.slice(1).map((m) => ({ ...m, content: 'v2' })), { id: `${flow}-4`, role: 'apiMessage', content: 'v1 4', createdDate: '2024-01-04T00:00:00.000Z' }];
      expect(await ingest(flow, again)).toBe(1);
      expect((await list(flow)).map((m) => m.content)).toEqual(['v1 1', 'v1 2', 'v1 3', 'v1 4']);
    });

    it('an invalid message is 400 naming the field, and nothing of the batch is stored', async () => {
      const flow = flowId();
      expectError(await call('POST', `${live.api}/chatmessage/${flow}`, { content: 'no role' }), 400, 'role is required');
      expectError(await call('POST', `${live.api}/chatmessage/${flow}`, { role: 'robot' }), 400, 'role must be one of userMessage, apiMessage');
      expectError(
        await call('POST', `${live.api}/chatmessage/${flow}`, [{ role: 'apiMessage' }, { role: 'apiMessage', createdDate: 'last tuesday' }]),
        400,
        '[1].createdDate',
      );
      expectError(await call('POST', `${live.api}/chatmessage/${flow}`, [{ role: 'apiMessage' }, { role: 'apiMessage', sourceDocuments: 'doc' }]), 400, '[1].sourceDocuments');
      expectError(await call('POST', `${live.api}/chatmessage/${flow}`, '[{"role": "apiMessage"'), 400);
      expect(await list(flow)).toEqual([]);
    });

    it('a createdDate on a day that does not exist is 400, not stored as another day', async () => {
      const flow = flowId();
      expectError(await call('POST', `${live.api}/chatmessage/${flow}`, { role: 'apiMessage', createdDate: '2024-02-31T10:00:00Z' }), 400, 'createdDate');
      expect(await list(flow)).toEqual([]);
    });

    it('duplicate ids in one request and concurrent ingests of the same ids store each message once', async () => {
      const flow = flowId();
      const one = { id: `${flow}-dup`, role: 'apiMessage', content: 'first' };
      expect(await ingest(flow, [one, { ...one, content: 'second' }])).toBe(1);
      const batch = Array.from({ length: 200 }, (_, i) => ({ id: `${flow}-${i}`, role: 'apiMessage' }));
      const counts = await Promise.all([1, 2, 3, 4].map(() => ingest(flow, batch)));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(200);
      expect(await list(flow)).toHaveLength(201);
    });

    it('more than 10,000 messages in one request is 400 saying so', async () => {
      const flow = flowId();
      const tooMany = Array.from({ length: 10_001 }, () => ({ role: 'apiMessage' }));
      expectError(await call('POST', `${live.api}/chatmessage/${flow}`, tooMany), 400, /10000 items/);
      expect(await list(flow)).toEqual([]);
    });
  });

  describe('GET filters', () => {
    let s: Seeded;
    beforeAll(async () => {
      s = await seedMessages(live.api);
      // Another chatflow with the same chat, session and memory values never shows.
      await ingest(flowId('other'), [{ role: 'apiMessage', chatId: 'c1', sessionId: 's1', memoryType: 'bufferMemory', chatType: 'INTERNAL', createdDate: '2024-03-01T09:00:00.000Z' }]);
    });
    const keys = async (query: Query = {}) => s.keys(await list(s.flow, query));

    it('no filter: every message of the chatflow, ascending by createdDate, with the stored fields', async () => {
      const all = await list(s.flow);
      expect(s.keys(all)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']);
      expect(all[0]).toMatchObject({ chatflowid: s.flow, role: 'userMessage', content: 'content of m1', chatId: 'c1', sessionId: 's1', memoryType: 'bufferMemory', createdDate: '2024-03-01T08:00:00.000Z' });
    });

    it.each<[string, Query, string[]]>([
      ['chatType', { chatType: 'INTERNAL' }, ['m1', 'm2', 'm5', 'm7']],
      ['chatType repeated', { chatType: ['INTERNAL', 'EVALUATION'] }, ['m1', 'm2', 'm5', 'm6', 'm7']],
      ['chatType unknown', { chatType: 'NONE' }, []],
      ['chatId', { chatId: 'c2' }, ['m3', 'm4']],
      ['memoryType', { memoryType: 'zepMemory' }, ['m3', 'm4', 'm5']],
      ['sessionId', { sessionId: 's1' }, ['m1', 'm2', 'm5']],
      ['startDate at an instant (inclusive)', { startDate: '2024-03-10T00:00:00.000Z' }, ['m5', 'm6', 'm7', 'm8']],
      ['startDate without milliseconds', { startDate: '2024-03-05T12:00:00Z' }, ['m3', 'm4', 'm5', 'm6', 'm7', 'm8']],
      ['startDate with an offset', { startDate: '2024-03-10T01:00:00+01:00' }, ['m5', 'm6', 'm7', 'm8']],
      ['startDate a plain date', { startDate: '2024-03-10' }, ['m5', 'm6', 'm7', 'm8']],
      ['endDate at an instant (inclusive)', { endDate: '2024-03-05T12:00:00.500Z' }, ['m1', 'm2', 'm3', 'm4']],
      ['endDate just before an instant', { endDate: '2024-03-05T12:00:00.499Z' }, ['m1', 'm2', 'm3']],
      ['endDate a plain date is the end of that day', { endDate: '2024-03-10' }, ['m1', 'm2', 'm3', 'm4', 'm5', 'm6']],
      ['both bounds the same plain date', { startDate: '2024-03-10', endDate: '2024-03-10' }, ['m5', 'm6']],
      ['both bounds the same instant', { startDate: '2024-03-01T08:00:01.000Z', endDate: '2024-03-01T08:00:01.000Z' }, ['m2']],
      ['startDate after endDate', { startDate: '2024-03-11', endDate: '2024-03-10' }, []],
      ['chatType + sessionId + startDate', { chatType: 'INTERNAL', sessionId: 's1', startDate: '2024-03-02' }, ['m5']],
      ['chatId + chatType', { chatId: 'c4', chatType: 'EXTERNAL' }, ['m8']],
      ['memoryType + endDate', { memoryType: 'bufferMemory', endDate: '2024-03-10' }, ['m1', 'm2', 'm6']],
      ['chatType repeated + date range', { chatType: ['EXTERNAL', 'EVALUATION'], startDate: '2024-03-05T12:00:00.001Z', endDate: '2024-03-19' }, ['m4', 'm6']],
      ['feedbackType without feedback=true is ignored', { feedbackType: 'THUMBS_UP' }, ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']],
      ['feedback=false does not filter', { feedback: 'false' }, ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']],
      ['feedback=0 does not filter', { feedback: '0' }, ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']],
      ['feedback=true', { feedback: 'true' }, ['m2', 'm4', 'm6']],
      ['feedback=1', { feedback: '1' }, ['m2', 'm4', 'm6']],
      ['feedback=true + feedbackType', { feedback: 'true', feedbackType: 'THUMBS_UP' }, ['m2', 'm6']],
      ['feedback=true + feedbackType + chatType', { feedback: 'true', feedbackType: 'THUMBS_DOWN', chatType: 'EXTERNAL' }, ['m4']],
      ['feedback=true + sessionId + endDate', { feedback: 'true', sessionId: 's3', endDate: '2024-03-10' }, ['m6']],
    ])('%s', async (_name, query, expected) => {
      expect(await keys(query)).toEqual(expected);
    });

    it('feedback=true adds the feedback object to each message; without it there is none', async () => {
      const rated = await list(s.flow, { feedback: 'true' });
      for (const m of rated) {
        const key = m.id.replace(`${s.prefix}-`, '');
        expect(m.feedback).toEqual({
          id: s.feedback[key],
          chatflowid: s.flow,
          chatId: m.chatId,
          messageId: m.id,
          rating: key === 'm4' ? 'THUMBS_DOWN' : 'THUMBS_UP',
          content: `on ${key}`,
          createdDate: expect.stringMatching(ISO_MS),
        });
      }
      expect((await list(s.flow)).every((m) => m.feedback === undefined || m.feedback === null)).toBe(true);
    });

    it('sorts with order=asc/desc in any case; ascending by default', async () => {
      const asc = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'];
      expect(await keys({ order: 'ASC' })).toEqual(asc);
      expect(await keys({ order: 'desc' })).toEqual([...asc].reverse());
      expect(await keys({ order: 'DeSc' })).toEqual([...asc].reverse());
      expect(await keys({ order: 'DESC', feedback: 'true' })).toEqual(['m6', 'm4', 'm2']);
    });

    it('pages with page/limit and X-Total-Count; the total follows the filters', async () => {
      const page = async (query: Query) => {
        const res = await call('GET', `${live.api}/chatmessage/${s.flow}${qs(query)}`);
        return { keys: s.keys(ok(res)), total: res.headers.get('x-total-count') };
      };
      expect(await page({ limit: 3 })).toEqual({ keys: ['m1', 'm2', 'm3'], total: '8' });
      expect(await page({ page: 2, limit: 3 })).toEqual({ keys: ['m4', 'm5', 'm6'], total: '8' });
      expect(await page({ page: 3, limit: 3 })).toEqual({ keys: ['m7', 'm8'], total: '8' });
      expect(await page({ page: 4, limit: 3 })).toEqual({ keys: [], total: '8' });
      expect(await page({ page: 1, limit: 2, order: 'desc' })).toEqual({ keys: ['m8', 'm7'], total: '8' });
      expect(await page({ page: 2, limit: 2, sessionId: 's1' })).toEqual({ keys: ['m5'], total: '3' });
      expect(await page({ page: 1, limit: 1000, feedback: 'true' })).toEqual({ keys: ['m2', 'm4', 'm6'], total: '3' });
      expect((await page({ page: 1 })).total).toBe('8');
      expect((await call('GET', `${live.api}/chatmessage/${s.flow}`)).headers.get('x-total-count')).toBeNull();
    });

    it.each<[Query, string]>([
      [{ feedback: 'yes' }, 'feedback must be one of true, false, 1, 0'],
      [{ feedback: 'true', feedbackType: 'MEH' }, 'feedbackType must be one of THUMBS_UP, THUMBS_DOWN'],
      [{ startDate: 'yesterday' }, 'startDate must be an ISO 8601 date'],
      [{ endDate: '2024-02-30' }, 'endDate must be an ISO 8601 date'],
      [{ endDate: '2024-13-01T00:00:00Z' }, 'endDate'],
      // A date-time on a day that does not exist is as wrong as the plain date (not rolled over to March).
      [{ startDate: '2024-02-30T00:00:00Z' }, 'startDate must be an ISO 8601 date'],
      [{ endDate: '2023-02-29T12:00:00.000Z' }, 'endDate must be an ISO 8601 date'],
      [{ order: 'newest' }, 'order must be asc or desc'],
      [{ limit: 1001 }, 'limit must be between 1 and 1000'],
      [{ limit: 0 }, 'limit must be between 1 and 1000'],
      [{ page: 0 }, 'page must be between 1 and'],
      [{ page: 'two' }, 'page must be an integer'],
    ])('%j is 400 "%s"', async (query, message) => {
      expectError(await call('GET', `${live.api}/chatmessage/${s.flow}${qs(query)}`), 400, message);
    });

    it('an unknown chatflow has an empty list', async () => {
      expect(await list(flowId('unknown'))).toEqual([]);
    });
  });

  describe('DELETE', () => {
    const del = (flow: string, query: Query = {}) => call('DELETE', `${live.api}/chatmessage/${flow}${qs(query)}`);

    it.each<[string, Query, string[]]>([
      ['sessionId', { sessionId: 's1' }, ['m1', 'm2', 'm5']],
      ['chatId', { chatId: 'c2' }, ['m3', 'm4']],
      ['memoryType', { memoryType: 'zepMemory' }, ['m3', 'm4', 'm5']],
      ['chatType repeated', { chatType: ['INTERNAL', 'EVALUATION'] }, ['m1', 'm2', 'm5', 'm6', 'm7']],
      ['plain-date range (inclusive, end of day)', { startDate: '2024-03-10', endDate: '2024-03-10' }, ['m5', 'm6']],
      ['startDate at an instant', { startDate: '2024-03-11T00:00:00.000Z' }, ['m7', 'm8']],
      ['endDate at an instant', { endDate: '2024-03-01T08:00:01.000Z' }, ['m1', 'm2']],
      ['feedbackType', { feedbackType: 'THUMBS_UP' }, ['m2', 'm6']],
      ['feedbackType + chatType', { feedbackType: 'THUMBS_DOWN', chatType: 'EXTERNAL' }, ['m4']],
      ['chatId + hardDelete=true', { chatId: 'c1', hardDelete: 'true' }, ['m1', 'm2']],
      ['no filter: all', {}, ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']],
    ])('by %s deletes exactly the matching messages', async (_name, query, gone) => {
      const s = await seedMessages(live.api);
      const other = await seedMessages(live.api);
      expect(ok(await del(s.flow, query))).toEqual({ affected: gone.length });
      const all = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'];
      expect(s.keys(await list(s.flow))).toEqual(all.filter((k) => !gone.includes(k)));
      // The same values in another chatflow are untouched.
      expect(other.keys(await list(other.flow))).toEqual(all);
    });

    it('takes the feedback of deleted messages with them', async () => {
      const s = await seedMessages(live.api);
      expect(ok(await del(s.flow, { chatId: 'c1' }))).toEqual({ affected: 2 });
      const feedback = ok(await call('GET', `${live.api}/feedback/${s.flow}`)) as { id: string; messageId: string }[];
      expect(feedback.map((f) => f.id).sort()).toEqual([s.feedback.m4, s.feedback.m6].sort());
      expect(s.keys(await list(s.flow, { feedback: 'true' }))).toEqual(['m4', 'm6']);
      // The message can be ingested and rated again: the old feedback is really gone.
      await ingest(s.flow, { id: `${s.prefix}-m2`, role: 'apiMessage' });
      ok(await call('POST', `${live.api}/feedback`, { messageId: `${s.prefix}-m2`, rating: 'THUMBS_DOWN' }));
    });

    it('by feedbackType takes that feedback too, and leaves the rest', async () => {
      const s = await seedMessages(live.api);
      const other = await seedMessages(live.api);
      expect(ok(await del(s.flow, { feedbackType: 'THUMBS_UP' }))).toEqual({ affected: 2 });
      const feedback = ok(await call('GET', `${live.api}/feedback/${s.flow}`)) as { id: string }[];
      expect(feedback.map((f) => f.id)).toEqual([s.feedback.m4]);
      expect(ok(await call('GET', `${live.api}/feedback/${other.flow}`))).toHaveLength(3);
    });

    it('of many messages lets lists answer while it runs, all or nothing, and takes the feedback of each step', async () => {
      const flow = flowId('big');
      const n = 10_000;
      const start = Date.UTC(2024, 0, 1);
      const id = (i: number) => `${flow}-${i}`;
      const messages = Array.from({ length: n }, (_, i) => ({ id: id(i), role: 'apiMessage', createdDate: new Date(start + i * 1000).toISOString() }));
      for (let i = 0; i < n; i += 5_000) await ingest(flow, messages.slice(i, i + 5_000));
      for (const i of [0, 4321, n - 1]) ok(await call('POST', `${live.api}/feedback`, { messageId: id(i), rating: 'THUMBS_UP' }));
      const other = await seedMessages(live.api);
      let answered = false;
      const deleting = del(flow).finally(() => (answered = true));
      // A list of another chatflow, and a page of this one, while the delete runs: on SQLite the
      // service's one thread deletes a step at a time and answers lists in between.
      let readsMeanwhile = 0;
      while (!answered) {
        const [others, page] = await Promise.all([list(other.flow), call('GET', `${live.api}/chatmessage/${flow}${qs({ page: 1, limit: 1 })}`)]);
        expect(others).toHaveLength(8);
        // Before the delete commits, every message is still there.
        if (!answered) {
          expect(page.headers.get('x-total-count')).toBe(String(n));
          readsMeanwhile++;
        }
      }
      expect(ok(await deleting)).toEqual({ affected: n });
      // (PostgreSQL's readers never wait for a writer; how many fit in its delete says nothing.)
      if (kind === 'sqlite') expect(readsMeanwhile).toBeGreaterThanOrEqual(2);
      expect(await list(flow)).toEqual([]);
      expect(ok(await call('GET', `${live.api}/feedback/${flow}`))).toEqual([]);
    });

    it('is 404 when nothing matches (and deletes nothing)', async () => {
      const s = await seedMessages(live.api);
      expectError(await del(s.flow, { feedbackType: 'THUMBS_DOWN', chatType: 'INTERNAL' }), 404);
      expectError(await del(s.flow, { sessionId: 'nobody' }), 404);
      expectError(await del(s.flow, { startDate: '2025-01-01' }), 404);
      expectError(await del(flowId('unknown')), 404);
      expect(await list(s.flow)).toHaveLength(8);
      ok(await del(s.flow));
      expectError(await del(s.flow), 404);
    });

    it.each<[Query, string]>([
      [{ hardDelete: 'maybe' }, 'hardDelete must be one of true, false, 1, 0'],
      [{ startDate: 'soon' }, 'startDate'],
      [{ endDate: '2024-02-31' }, 'endDate'],
      [{ feedbackType: 'GOOD' }, 'feedbackType must be one of THUMBS_UP, THUMBS_DOWN'],
    ])('%j is 400 "%s" and deletes nothing', async (query, message) => {
      const s = await seedMessages(live.api);
      expectError(await del(s.flow, query), 400, message);
      expect(await list(s.flow)).toHaveLength(8);
    });
  });

  describe('a large list', () => {
    const N = 20_000;
    let flow: string;
    const idOf = (i: number) => `big-${String(i).padStart(6, '0')}`;
    // Seven messages share each second, so the order within a second comes from the id.
    const dateOf = (i: number) => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 7) * 1000).toISOString();
    beforeAll(async () => {
      flow = flowId('big');
      // Ingested out of order, in batches under the 1 MiB body limit.
      const order = Array.from({ length: N }, (_, i) => (i * 7919) % N);
      for (let b = 0; b < N; b += 5000) {
        const batch = order.slice(b, b + 5000).map((i) => ({ id: idOf(i), role: 'apiMessage', content: `message ${i}`, sessionId: `s${i % 3}`, createdDate: dateOf(i) }));
        expect(await ingest(flow, batch)).toBe(batch.length);
      }
    });

    it('streams all 20,000 messages complete and in order, ascending and descending', async () => {
      const res = await fetch(`${live.api}/chatmessage/${flow}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBeNull();
      const asc = (await res.json()) as Message[];
      expect(asc).toHaveLength(N);
      expect(asc.map((m) => m.id)).toEqual(Array.from({ length: N }, (_, i) => idOf(i)));
      expect(asc[N - 1]).toMatchObject({ content: `message ${N - 1}`, createdDate: dateOf(N - 1) });

      const desc = (await (await fetch(`${live.api}/chatmessage/${flow}?order=desc`)).json()) as Message[];
      expect(desc.map((m) => m.id)).toEqual(Array.from({ length: N }, (_, i) => idOf(N - 1 - i)));
    });

    it('streams a filtered list of the same data complete', async () => {
      const s1 = (await (await fetch(`${live.api}/chatmessage/${flow}?sessionId=s1&order=desc`)).json()) as Message[];
      const expected = Array.from({ length: N }, (_, i) => i).filter((i) => i % 3 === 1).reverse().map(idOf);
      expect(s1.map((m) => m.id)).toEqual(expected);
    });
  });
});
