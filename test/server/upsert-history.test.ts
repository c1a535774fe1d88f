import { describe, expect, it } from 'vitest';
import { call, expectError, ok, qs } from '../helpers/http.js';
import { storeKinds, useStoreServer } from '../helpers/stores.js';
import { ISO_MS, UUID_V4, flowId } from './fixtures.js';

type Query = Parameters<typeof qs>[0];
type Record_ = { id: string; chatflowid: string; result: unknown; flowData: unknown; date: string };

describe.each(storeKinds)('upsert history on %s', (kind) => {
  const live = useStoreServer(kind);

  const list = async (flow: string | undefined, query: Query = {}) =>
    ok(await call('GET', `${live.api}/upsert-history${flow === undefined ? '' : `/${flow}`}${qs(query)}`)) as Record_[];
  const ingest = async (flow: string, body: unknown) => ok(await call('POST', `${live.api}/upsert-history/${flow}`, body)).affected as number;
  const patch = (flow: string | undefined, body: unknown) => call('PATCH', `${live.api}/upsert-history${flow === undefined ? '' : `/${flow}`}`, body);

  /** Four records of one chatflow on known dates; ids `${flow}-u1`…`-u4`. */
  async function seed(flow = flowId()) {
    const dates = ['2024-06-01T10:00:00.000Z', '2024-06-02T00:00:00.000Z', '2024-06-02T23:59:59.999Z', '2024-06-03T00:00:00.000Z'];
    const records = dates.map((date, i) => ({ id: `${flow}-u${i + 1}`, date, result: { numAdded: i }, flowData: `{"nodes":[${i}]}` }));
    expect(await ingest(flow, records)).toBe(4);
    return { flow, ids: (l: Record_[]) => l.map((r) => r.id.replace(`${flow}-`, '')) };
  }

  it('ingest keeps ids and dates; a string result/flowData stays a string, an object stays an object', async () => {
    const flow = flowId();
    const record = { id: `${flow}-x`, date: '2024-02-03T04:05:06Z', result: '{"numAdded":3,"numSkipped":0}', flowData: { nodes: [{ id: 'pdf_0' }], edges: [] } };
    expect(await ingest(flow, record)).toBe(1);
    expect(await list(flow)).toEqual([{ ...record, chatflowid: flow, date: '2024-02-03T04:05:06.000Z' }]);
    const swapped = { id: `${flow}-y`, date: '2024-02-04T00:00:00Z', result: { numAdded: 1 }, flowData: '{"nodes":[]}' };
    expect(await ingest(flow, [swapped])).toBe(1);
    const [, y] = await list(flow);
    expect(y).toMatchObject({ result: { numAdded: 1 }, flowData: '{"nodes":[]}' });
    expect(typeof y!.flowData).toBe('string');
  });

  it('ingest without id or date gets both from the server; re-ingest counts only new ids', async () => {
    const flow = flowId();
    expect(await ingest(flow, [{ result: {} }, { id: `${flow}-keep`, date: '2024-01-01T00:00:00Z' }])).toBe(2);
    expect(await ingest(flow, [{ id: `${flow}-keep` }, { id: `${flow}-new`, date: '2024-01-02T00:00:00Z' }])).toBe(1);
    const records = await list(flow);
    expect(records).toHaveLength(3);
    const generated = records.find((r) => !r.id.startsWith(flow))!;
    expect(generated.id).toMatch(UUID_V4);
    expect(generated.date).toMatch(ISO_MS);
  });

  it('ingest with an invalid date is 400 naming it', async () => {
    const flow = flowId();
    expectError(await call('POST', `${live.api}/upsert-history/${flow}`, [{}, { date: 'noon' }]), 400, '[1].date');
    expectError(await call('POST', `${live.api}/upsert-history/${flow}`, { date: '2023-02-29T00:00:00Z' }), 400, 'date');
    expect(await list(flow)).toEqual([]);
  });

  it('GET lists by date ascending by default; order in any case', async () => {
    const { flow, ids } = await seed();
    expect(ids(await list(flow))).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(ids(await list(flow, { order: 'DESC' }))).toEqual(['u4', 'u3', 'u2', 'u1']);
    expect(ids(await list(flow, { order: 'dEsC' }))).toEqual(['u4', 'u3', 'u2', 'u1']);
    expect(ids(await list(flow, { order: 'asc' }))).toEqual(['u1', 'u2', 'u3', 'u4']);
    expectError(await call('GET', `${live.api}/upsert-history/${flow}?order=latest`), 400, 'order must be asc or desc');
  });

  it('GET date bounds are inclusive, work alone, and a plain endDate is the end of that day', async () => {
    const { flow, ids } = await seed();
    expect(ids(await list(flow, { startDate: '2024-06-02T00:00:00.000Z' }))).toEqual(['u2', 'u3', 'u4']);
    expect(ids(await list(flow, { endDate: '2024-06-02T00:00:00.000Z' }))).toEqual(['u1', 'u2']);
    expect(ids(await list(flow, { endDate: '2024-06-02' }))).toEqual(['u1', 'u2', 'u3']);
    expect(ids(await list(flow, { startDate: '2024-06-02', endDate: '2024-06-02' }))).toEqual(['u2', 'u3']);
    expect(ids(await list(flow, { startDate: '2024-06-03T00:00:00Z', endDate: '2024-06-03T00:00:00Z' }))).toEqual(['u4']);
    expectError(await call('GET', `${live.api}/upsert-history/${flow}?startDate=June`), 400, 'startDate');
    expectError(await call('GET', `${live.api}/upsert-history/${flow}?endDate=2024-06-31`), 400, 'endDate');
  });

  it('GET pages with X-Total-Count', async () => {
    const { flow, ids } = await seed();
    const res = await call('GET', `${live.api}/upsert-history/${flow}?page=2&limit=3&order=desc`);
    expect(ids(ok(res))).toEqual(['u1']);
    expect(res.headers.get('x-total-count')).toBe('4');
    expectError(await call('GET', `${live.api}/upsert-history/${flow}?limit=1001`), 400, 'limit');
    expectError(await call('GET', `${live.api}/upsert-history/${flow}?page=0`), 400, 'page');
  });

  it('GET without a chatflow id lists every chatflow; an unknown chatflow has none', async () => {
    const a = await seed();
    const b = await seed();
    const all = await list(undefined);
    const mine = all.filter((r) => r.chatflowid === a.flow || r.chatflowid === b.flow);
    expect(mine).toHaveLength(8);
    const dates = all.map((r) => r.date);
    expect(dates).toEqual([...dates].sort());
    expect(await list(flowId('unknown'))).toEqual([]);
  });

  it('PATCH soft-deletes by id: not listed again, affected counts the marked rows', async () => {
    const { flow, ids } = await seed();
    const res = await patch(flow, { ids: [`${flow}-u1`, `${flow}-u3`, 'no-such-record'] });
    expect(ok(res)).toEqual({ affected: 2 });
    expect(ids(await list(flow))).toEqual(['u2', 'u4']);
    expect((await list(undefined)).map((r) => r.id)).not.toContain(`${flow}-u1`);
    // Already deleted, or never existing: not an error, nothing counted.
    expect(ok(await patch(flow, { ids: [`${flow}-u1`] }))).toEqual({ affected: 0 });
    expect(ok(await patch(flow, { ids: ['ghost-1', 'ghost-2'] }))).toEqual({ affected: 0 });
    expect(ok(await patch(flow, { ids: [] }))).toEqual({ affected: 0 });
    // A soft-deleted record stays deleted when its export is ingested again.
    expect(await ingest(flow, { id: `${flow}-u1` })).toBe(0);
    expect(ids(await list(flow))).toEqual(['u2', 'u4']);
  });

  it('PATCH on a chatflow only touches that chatflow; PATCH without an id touches any', async () => {
    const a = await seed();
    const b = await seed();
    expect(ok(await patch(a.flow, { ids: [`${b.flow}-u1`] }))).toEqual({ affected: 0 });
    expect(b.ids(await list(b.flow))).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(ok(await patch(undefined, { ids: [`${a.flow}-u4`, `${b.flow}-u1`] }))).toEqual({ affected: 2 });
    expect(a.ids(await list(a.flow))).toEqual(['u1', 'u2', 'u3']);
    expect(b.ids(await list(b.flow))).toEqual(['u2', 'u3', 'u4']);
  });

  it.each<[unknown, string]>([
    [{ ids: 'u1' }, 'ids must be an array'],
    [{}, 'ids is required'],
    [{ ids: [1, 2] }, 'ids[0] must be a string'],
    [{ ids: ['ok', { id: 'x' }] }, 'ids[1] must be a string'],
    [[], 'body must be an object'],
  ])('PATCH %j is 400 "%s"', async (body, message) => {
    const { flow, ids } = await seed();
    expectError(await patch(flow, body), 400, message);
    expectError(await patch(undefined, body), 400, message);
    expect(ids(await list(flow))).toEqual(['u1', 'u2', 'u3', 'u4']);
  });

  it('PATCH with malformed JSON is 400', async () => {
    expectError(await patch(flowId(), '{"ids": ['), 400);
  });
});
