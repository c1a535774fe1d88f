import { describe, expect, it } from 'vitest';
import { call, expectError, ok } from '../helpers/http.js';
import { storeKinds, useStoreServer } from '../helpers/stores.js';
import { ISO_MS, MISSING_UUID, UUID_V4, sleep } from './fixtures.js';

const DETAILS = {
  id: 'asst_abc123',
  name: 'Support bot',
  description: 'Answers support questions',
  model: 'gpt-4o-mini',
  instructions: 'Be brief.',
  temperature: 0.7,
  top_p: 1,
  tools: ['function', 'file_search'],
  tool_resources: { file_search: { vector_store_ids: ['vs_1'] } },
};

describe.each(storeKinds)('assistants on %s', (kind) => {
  const live = useStoreServer(kind);

  const create = async (body: object) => ok(await call('POST', `${live.api}/assistants`, body));

  it('POST creates an assistant; details are an object in the answer', async () => {
    const a = await create({ details: DETAILS, credential: 'cred-1', iconSrc: '/icons/bot.svg' });
    expect(a).toEqual({
      id: expect.stringMatching(UUID_V4),
      details: DETAILS,
      credential: 'cred-1',
      iconSrc: '/icons/bot.svg',
      type: 'CUSTOM',
      createdDate: expect.stringMatching(ISO_MS),
      updatedDate: a.createdDate,
    });
    expect(ok(await call('GET', `${live.api}/assistants/${a.id}`))).toEqual(a);
  });

  it('POST accepts details as a JSON string and stores it as the object', async () => {
    const a = await create({ details: JSON.stringify(DETAILS), type: 'OPENAI' });
    expect(a.details).toEqual(DETAILS);
    expect(a).toMatchObject({ type: 'OPENAI', credential: null, iconSrc: null });
    expect(ok(await call('GET', `${live.api}/assistants/${a.id}`)).details).toEqual(DETAILS);
  });

  it('POST keeps provider-specific details keys and ignores a given id', async () => {
    const a = await create({ id: MISSING_UUID, details: { name: 'minimal', response_format: { type: 'json_object' } } });
    expect(a.id).not.toBe(MISSING_UUID);
    expect(a.details).toEqual({ name: 'minimal', response_format: { type: 'json_object' } });
  });

  it.each([
    [{}, 'details is required'],
    [{ details: {} }, 'details.name is required'],
    [{ details: { name: 'a', temperature: 2.5 } }, 'details.temperature must be between 0 and 2'],
    [{ details: { name: 'a', temperature: -0.1 } }, 'details.temperature must be between 0 and 2'],
    [{ details: { name: 'a', top_p: 1.5 } }, 'details.top_p must be between 0 and 1'],
    [{ details: { name: 'a', temperature: 'hot' } }, 'details.temperature must be a number'],
    [{ details: { name: 'a', tools: ['browser'] } }, 'details.tools[0] must be one of function, code_interpreter, file_search'],
    [{ details: { name: 'a', tools: 'function' } }, 'details.tools must be an array'],
    [{ details: { name: 'a', tool_resources: 'files' } }, 'details.tool_resources must be an object'],
    [{ details: '{"name": "a", "top_p": 2}' }, 'details.top_p must be between 0 and 1'],
    [{ details: '{not json' }, 'details must be'],
    [{ details: { name: 'a' }, type: 'LOCAL' }, 'type must be one of CUSTOM, OPENAI, AZURE'],
  ])('POST %j breaks a rule: 422 "%s"', async (body, message) => {
    const before = (ok(await call('GET', `${live.api}/assistants`)) as unknown[]).length;
    expectError(await call('POST', `${live.api}/assistants`, body), 422, message);
    expect((ok(await call('GET', `${live.api}/assistants`)) as unknown[]).length).toBe(before);
  });

  it('POST with malformed JSON is 400', async () => {
    expectError(await call('POST', `${live.api}/assistants`, '{"details": {'), 400);
  });

  it('GET /assistants answers an array, oldest first, filterable by ?type=', async () => {
    const azure = await create({ details: { name: 'azure one' }, type: 'AZURE' });
    await sleep(3);
    const azure2 = await create({ details: { name: 'azure two' }, type: 'AZURE' });
    const all = ok(await call('GET', `${live.api}/assistants`)) as { id: string; type: string; createdDate: string }[];
    expect(Array.isArray(all)).toBe(true);
    expect(all.map((a) => a.id)).toEqual(expect.arrayContaining([azure.id, azure2.id]));
    const dates = all.map((a) => a.createdDate);
    expect(dates).toEqual([...dates].sort());
    const onlyAzure = ok(await call('GET', `${live.api}/assistants?type=AZURE`)) as { id: string }[];
    expect(onlyAzure.map((a) => a.id)).toEqual([azure.id, azure2.id]);
    expect((ok(await call('GET', `${live.api}/assistants?type=CUSTOM`)) as { type: string }[]).every((a) => a.type === 'CUSTOM')).toBe(true);
    expectError(await call('GET', `${live.api}/assistants?type=LOCAL`), 400, 'type must be one of');
    const page = await call('GET', `${live.api}/assistants?type=AZURE&page=2&limit=1`);
    expect((ok(page) as { id: string }[]).map((a) => a.id)).toEqual([azure2.id]);
    expect(page.headers.get('x-total-count')).toBe('2');
  });

  it('GET /assistants/{id}: unknown 404, non-UUID 400', async () => {
    expectError(await call('GET', `${live.api}/assistants/${MISSING_UUID}`), 404, MISSING_UUID);
    expectError(await call('GET', `${live.api}/assistants/assistant-1`), 400, 'id must be a UUID');
  });

  it('PUT merges details, updates the other given fields, bumps updatedDate', async () => {
    const a = await create({ details: DETAILS, credential: 'cred-1' });
    await sleep(5);
    const updated = ok(await call('PUT', `${live.api}/assistants/${a.id}`, { details: { temperature: 0.2, tools: [] }, credential: 'cred-2' }));
    expect(updated).toEqual({
      ...a,
      details: { ...DETAILS, temperature: 0.2, tools: [] },
      credential: 'cred-2',
      updatedDate: expect.stringMatching(ISO_MS),
    });
    expect(Date.parse(updated.updatedDate)).toBeGreaterThan(Date.parse(a.updatedDate));
    expect(ok(await call('GET', `${live.api}/assistants/${a.id}`))).toEqual(updated);

    const again = ok(await call('PUT', `${live.api}/assistants/${a.id}`, { details: JSON.stringify({ name: 'Renamed' }), iconSrc: '/i.png' }));
    expect(again.details).toEqual({ ...DETAILS, temperature: 0.2, tools: [], name: 'Renamed' });
    expect(again).toMatchObject({ iconSrc: '/i.png', credential: 'cred-2', createdDate: a.createdDate });
  });

  it('PUT errors: unknown 404, non-UUID 400, missing body 400, invalid details 400', async () => {
    const a = await create({ details: { name: 'steady', temperature: 1 } });
    expectError(await call('PUT', `${live.api}/assistants/${MISSING_UUID}`, { details: { name: 'x' } }), 404, MISSING_UUID);
    expectError(await call('PUT', `${live.api}/assistants/42`, { details: { name: 'x' } }), 400, 'id must be a UUID');
    expectError(await call('PUT', `${live.api}/assistants/${a.id}`), 400, 'body');
    expectError(await call('PUT', `${live.api}/assistants/${a.id}`, { details: { temperature: 5 } }), 400, 'details.temperature must be between 0 and 2');
    expectError(await call('PUT', `${live.api}/assistants/${a.id}`, { details: { name: '' } }), 400, 'details.name must not be empty');
    expectError(await call('PUT', `${live.api}/assistants/${a.id}`, { details: '{broken' }), 400, 'details');
    expectError(await call('PUT', `${live.api}/assistants/${a.id}`, { type: 'LOCAL' }), 400, 'type must be one of');
    expect(ok(await call('GET', `${live.api}/assistants/${a.id}`))).toEqual(a);
  });

  it('DELETE removes the assistant; then 404; non-UUID 400', async () => {
    const a = await create({ details: { name: 'doomed' } });
    expect(ok(await call('DELETE', `${live.api}/assistants/${a.id}`))).toEqual({ affected: 1 });
    expectError(await call('GET', `${live.api}/assistants/${a.id}`), 404);
    expect((ok(await call('GET', `${live.api}/assistants`)) as { id: string }[]).map((x) => x.id)).not.toContain(a.id);
    expectError(await call('DELETE', `${live.api}/assistants/${a.id}`), 404, a.id);
    expectError(await call('DELETE', `${live.api}/assistants/xyz`), 400, 'id must be a UUID');
  });
});
