import { describe, expect, it } from 'vitest';
import { call, expectError, ok } from '../helpers/http.js';
import { storeKinds, useStoreServer } from '../helpers/stores.js';
import { ISO_MS, MISSING_UUID, UUID_V4, sleep } from './fixtures.js';

describe.each(storeKinds)('variables on %s', (kind) => {
  const live = useStoreServer(kind);

  const create = async (body: object) => ok(await call('POST', `${live.api}/variables`, body));

  it('POST creates a variable with server-made id and dates, and defaults type and value', async () => {
    const v = await create({ name: 'API_BASE' });
    expect(v).toEqual({
      id: expect.stringMatching(UUID_V4),
      name: 'API_BASE',
      value: '',
      type: 'static',
      createdDate: expect.stringMatching(ISO_MS),
      updatedDate: v.createdDate,
    });
    expect(Math.abs(Date.parse(v.createdDate) - Date.now())).toBeLessThan(60_000);
    const full = await create({ name: 'RUNTIME_KEY', value: 'abc', type: 'runtime' });
    expect(full).toMatchObject({ name: 'RUNTIME_KEY', value: 'abc', type: 'runtime' });
  });

  it('POST never takes id or dates from the body', async () => {
    const v = await create({ name: 'x', id: 'my-own-id', createdDate: '2000-01-01T00:00:00.000Z', updatedDate: '2000-01-01T00:00:00.000Z' });
    expect(v.id).toMatch(UUID_V4);
    expect(v.createdDate.startsWith('2000')).toBe(false);
    expect(v.updatedDate.startsWith('2000')).toBe(false);
  });

  it('POST /variables/set: creates, then updates the one of that name; 20 at once make one; several of the name are a 409', async () => {
    const first = ok(await call('POST', `${live.api}/variables/set`, { name: 'SET_ME', value: '1' }));
    expect(first).toEqual({ created: true, variable: expect.objectContaining({ name: 'SET_ME', value: '1', type: 'static' }) });
    const second = ok(await call('POST', `${live.api}/variables/set`, { name: 'SET_ME', value: '2', type: 'runtime' }));
    expect(second).toEqual({ created: false, variable: expect.objectContaining({ id: first.variable.id, value: '2', type: 'runtime' }) });

    const values = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const answers = await Promise.all(values.map((value) => call('POST', `${live.api}/variables/set`, { name: 'RACED', value })));
    expect(answers.map((a) => a.status)).toEqual(values.map(() => 200));
    expect(answers.filter((a) => (a.body as { created: boolean }).created)).toHaveLength(1);
    const raced = (ok(await call('GET', `${live.api}/variables`)) as { name: string; value: string }[]).filter((v) => v.name === 'RACED');
    expect(raced).toHaveLength(1);
    expect(values).toContain(raced[0]!.value);

    await create({ name: 'TWO', value: '1' });
    await create({ name: 'TWO', value: '2' });
    expectError(await call('POST', `${live.api}/variables/set`, { name: 'TWO', value: '3' }), 409);
  });

  it('POST allows duplicate names', async () => {
    const a = await create({ name: 'DUP', value: '1' });
    const b = await create({ name: 'DUP', value: '2' });
    expect(a.id).not.toBe(b.id);
    const list = ok(await call('GET', `${live.api}/variables`)) as { id: string }[];
    expect(list.map((v) => v.id)).toEqual(expect.arrayContaining([a.id, b.id]));
  });

  it.each([
    [{}, 'name is required'],
    [{ name: '' }, 'name must not be empty'],
    [{ name: 'n'.repeat(256) }, 'name must be at most 255 characters'],
    [{ name: 'ok', value: 5 }, 'value must be a string'],
    [{ name: 'ok', type: '' }, 'type must not be empty'],
    [[{ name: 'ok' }], 'body must be an object'],
  ])('POST %j breaks a rule: 422 "%s"', async (body, message) => {
    const before = (ok(await call('GET', `${live.api}/variables`)) as unknown[]).length;
    expectError(await call('POST', `${live.api}/variables`, body), 422, message);
    expect((ok(await call('GET', `${live.api}/variables`)) as unknown[]).length).toBe(before);
  });

  it('POST with malformed JSON is 400', async () => {
    expectError(await call('POST', `${live.api}/variables`, '{"name": "x",'), 400);
  });

  it('GET lists by updatedDate descending; PUT merges the given fields and moves the variable first', async () => {
    const a = await create({ name: 'order-a', value: 'va', type: 'runtime' });
    await sleep(5);
    const b = await create({ name: 'order-b' });
    await sleep(5);
    const c = await create({ name: 'order-c' });
    const mine = (list: { id: string }[]) => list.map((v) => v.id).filter((id) => [a.id, b.id, c.id].includes(id));
    expect(mine(ok(await call('GET', `${live.api}/variables`)))).toEqual([c.id, b.id, a.id]);

    await sleep(5);
    const updated = ok(await call('PUT', `${live.api}/variables/${a.id}`, { value: 'new value' }));
    expect(updated).toEqual({ ...a, value: 'new value', updatedDate: expect.stringMatching(ISO_MS) });
    expect(Date.parse(updated.updatedDate)).toBeGreaterThan(Date.parse(a.updatedDate));
    const list = ok(await call('GET', `${live.api}/variables`)) as { id: string }[];
    expect(mine(list)).toEqual([a.id, c.id, b.id]);
    expect(list.find((v) => v.id === a.id)).toEqual(updated);
    // The whole list is in descending updatedDate order.
    const dates = (list as unknown as { updatedDate: string }[]).map((v) => v.updatedDate);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('GET writes each variable as JSON.stringify does: every escape, any text', async () => {
    // (Not NUL: the PostgreSQL store cannot keep it.)
    const controls = Array.from({ length: 31 }, (_, c) => String.fromCharCode(c + 1)).join('');
    const texts = [controls, 'quote " backslash \\ slash / DEL \x7f', 'é → 😀 \u2028\u2029 中文', ''];
    const made: { id: string }[] = [];
    for (const [i, value] of texts.entries()) made.push(await create({ name: `escapes ${i} "\\ é 😀`, value, type: `t"${i}\\\u2028` }));
    const res = await call('GET', `${live.api}/variables`);
    const lines = res.text.slice(2, -2).split(',\n');
    // Byte for byte as JSON.stringify writes the same values.
    expect(lines).toEqual(lines.map((l) => JSON.stringify(JSON.parse(l))));
    const byId = (list: { id: string }[]) => list.filter((v) => made.some((m) => m.id === v.id)).sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(lines.map((l) => JSON.parse(l) as { id: string }))).toEqual(byId(made));
    // And as the same list read page-wise, each row mapped by the service.
    expect(lines.map((l) => JSON.parse(l))).toEqual(ok(await call('GET', `${live.api}/variables?page=1&limit=1000`)));
  });

  it('PUT can rename and retype, never changes id or createdDate', async () => {
    const v = await create({ name: 'before', value: 'v' });
    const updated = ok(
      await call('PUT', `${live.api}/variables/${v.id}`, { name: 'after', type: 'runtime', id: MISSING_UUID, createdDate: '2000-01-01T00:00:00Z' }),
    );
    expect(updated).toMatchObject({ id: v.id, name: 'after', value: 'v', type: 'runtime', createdDate: v.createdDate });
  });

  it('PUT errors: unknown id 404, non-UUID id 400, invalid or missing body 400', async () => {
    const v = await create({ name: 'put-errors', value: 'keep' });
    expectError(await call('PUT', `${live.api}/variables/${MISSING_UUID}`, { value: 'x' }), 404, MISSING_UUID);
    expectError(await call('PUT', `${live.api}/variables/not-a-uuid`, { value: 'x' }), 400, 'id must be a UUID');
    expectError(await call('PUT', `${live.api}/variables/${v.id}`, { name: '' }), 400, 'name must not be empty');
    expectError(await call('PUT', `${live.api}/variables/${v.id}`, { value: 42 }), 400, 'value must be a string');
    expectError(await call('PUT', `${live.api}/variables/${v.id}`, '{oops'), 400);
    expectError(await call('PUT', `${live.api}/variables/${v.id}`), 400, 'body');
    const list = ok(await call('GET', `${live.api}/variables`)) as { id: string; value: string; name: string }[];
    expect(list.find((x) => x.id === v.id)).toMatchObject({ name: 'put-errors', value: 'keep' });
  });

  it('DELETE removes the variable and answers the count; then 404; non-UUID 400', async () => {
    const v = await create({ name: 'doomed' });
    expect(ok(await call('DELETE', `${live.api}/variables/${v.id}`))).toEqual({ affected: 1 });
    const list = ok(await call('GET', `${live.api}/variables`)) as { id: string }[];
    expect(list.map((x) => x.id)).not.toContain(v.id);
    expectError(await call('DELETE', `${live.api}/variables/${v.id}`), 404, v.id);
    expectError(await call('PUT', `${live.api}/variables/${v.id}`, { value: 'x' }), 404);
    expectError(await call('DELETE', `${live.api}/variables/123`), 400, 'id must be a UUID');
  });

  it('GET pages with page/limit and reports the total in X-Total-Count', async () => {
    const all = ok(await call('GET', `${live.api}/variables`)) as { id: string }[];
    const res = await call('GET', `${live.api}/variables?page=2&limit=2`);
    expect(ok(res)).toEqual(all.slice(2, 4));
    expect(res.headers.get('x-total-count')).toBe(String(all.length));
    expect((await call('GET', `${live.api}/variables`)).headers.get('x-total-count')).toBeNull();
    expectError(await call('GET', `${live.api}/variables?limit=1001`), 400, 'limit');
    expectError(await call('GET', `${live.api}/variables?page=0&limit=5`), 400, 'page');
  });
});
