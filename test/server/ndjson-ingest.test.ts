// The ingest routes' NDJSON form (server/ndjson.ts): records a line, read and committed as the
// body arrives, MAX_INGEST_ITEMS lines a transaction. A failure leaves the batches before it
// written and nothing from its own batch on, and says so; a cut stream writes nothing it had not
// committed; a line over the limit is refused before it is whole; a stream may outlast the
// request timeout while it keeps coming, not while it stalls.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INGEST_ITEMS } from '../../src/schema/limits.js';
import { call, expectError, ok } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { startStoreServer, storeKinds, useStoreServer } from '../helpers/stores.js';
import { flowId } from './fixtures.js';

const NDJSON = { 'content-type': 'application/x-ndjson' };
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const message = (flow: string, i: number) => ({ id: `${flow}-${i}`, role: i % 2 ? 'apiMessage' : 'userMessage', content: `m ${i}`, chatId: 'c', createdDate: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() });
const lines = (records: unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

/** A POST whose body is written by hand, chunked, as the test says; the answer when it comes. */
function streamedPost(url: string): { req: ClientRequest; answer: Promise<{ status: number; body: string }> } {
  const req = httpRequest(url, { method: 'POST', headers: NDJSON });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.once('response', (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).once('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
  });
  req.flushHeaders();
  return { req, answer };
}

const write = (req: ClientRequest, text: string) => new Promise<void>((resolve, reject) => req.write(text, (err) => (err ? reject(err) : resolve())));

describe.each(storeKinds)('NDJSON ingest on %s', (kind) => {
  const live = useStoreServer(kind);
  const ids = async (flow: string) => (ok(await call('GET', `${live.api}/chatmessage/${flow}`)) as { id: string }[]).map((m) => m.id);

  it('answers as the array form: the new records counted, existing ids skipped', async () => {
    const flow = flowId();
    const records = [1, 2, 3].map((i) => message(flow, i));
    expect(ok(await call('POST', `${live.api}/chatmessage/${flow}`, lines(records), NDJSON))).toEqual({ affected: 3 });
    expect(ok(await call('POST', `${live.api}/chatmessage/${flow}`, lines(records), NDJSON))).toEqual({ affected: 0 });
    // Blank lines, CRLF and no newline after the last line are all lines as meant.
    const more = [4, 5].map((i) => message(flow, i));
    expect(ok(await call('POST', `${live.api}/chatmessage/${flow}`, `\n${JSON.stringify(more[0])}\r\n  \n${JSON.stringify(more[1])}`, NDJSON))).toEqual({ affected: 2 });
    expect(await ids(flow)).toEqual([1, 2, 3, 4, 5].map((i) => `${flow}-${i}`));
    // The other ingest routes take it too.
    expect(ok(await call('POST', `${live.api}/variables/import`, lines([{ id: uuid(1), name: 'NDJSON_ONE' }, { id: uuid(2), name: 'NDJSON_TWO' }]), NDJSON))).toEqual({ affected: 2 });
  });

  it('an empty body writes nothing and answers so', async () => {
    expect(ok(await call('POST', `${live.api}/chatmessage/${flowId()}`, '', NDJSON))).toEqual({ affected: 0 });
    expect(ok(await call('POST', `${live.api}/variables/import`, '\n\n', NDJSON))).toEqual({ affected: 0 });
  });

  it('a bad line in the middle: the batches before it are written, nothing from its batch on, and the answer says which', async () => {
    const flow = flowId();
    const n = MAX_INGEST_ITEMS * 2 + 500;
    const bad = MAX_INGEST_ITEMS + 1234;
    const records: unknown[] = Array.from({ length: n }, (_, i) => message(flow, i + 1));
    records[bad - 1] = { ...message(flow, bad), role: 'robot' };
    const reply = await call('POST', `${live.api}/chatmessage/${flow}`, lines(records), NDJSON);
    expectError(reply, 400, `line ${bad}: role must be one of`);
    expect(reply.body.message).toContain(`lines 1–${MAX_INGEST_ITEMS} were written (${MAX_INGEST_ITEMS} new), nothing from line ${MAX_INGEST_ITEMS + 1} on`);
    const written = await ids(flow);
    expect(written).toHaveLength(MAX_INGEST_ITEMS);
    expect(written.at(-1)).toBe(`${flow}-${MAX_INGEST_ITEMS}`);
    // The same records as an array: nothing at all (one batch).
    const other = flowId();
    expectError(await call('POST', `${live.api}/chatmessage/${other}`, records.slice(0, 5).concat({ role: 'robot' })), 400, '[5].role');
    // A line that is not JSON, in the first batch: nothing written, the line named.
    expectError(await call('POST', `${live.api}/chatmessage/${other}`, `${JSON.stringify(message(other, 1))}\n{"role":\n`, NDJSON), 400, /^line 2: not valid JSON.*; nothing was written$/);
    expect(await ids(other)).toEqual([]);
  });

  it('of two bad lines in one batch, the first is the one named, whatever is wrong with each', async () => {
    const flow = flowId();
    const records = Array.from({ length: 3000 }, (_, i) => JSON.stringify(message(flow, i + 1)));
    records[4] = JSON.stringify({ ...message(flow, 5), role: 'robot' });
    records[2999] = '{"role":';
    expectError(await call('POST', `${live.api}/chatmessage/${flow}`, `${records.join('\n')}\n`, NDJSON), 400, /^line 5: role must be one of.*; nothing was written$/);
    // And the other way round: the line that is not JSON comes first.
    [records[4], records[2999]] = ['{"role":', JSON.stringify({ ...message(flow, 3000), role: 'robot' })];
    expectError(await call('POST', `${live.api}/chatmessage/${flow}`, `${records.join('\n')}\n`, NDJSON), 400, /^line 5: not valid JSON.*; nothing was written$/);
    expect(await ids(flow)).toEqual([]);
  });

  it("a store's refusal names the line, as the array form names the item", async () => {
    const flow = flowId();
    ok(await call('POST', `${live.api}/chatmessage/${flow}`, [message(flow, 1)]));
    const feedback = [{ id: uuid(10), messageId: `${flow}-1`, rating: 'THUMBS_UP' }, { id: uuid(11), messageId: 'no-such-message', rating: 'THUMBS_UP' }];
    expectError(await call('POST', `${live.api}/feedback/import`, lines(feedback), NDJSON), 400, 'line 2: messageId: no message no-such-message');
    expect(ok(await call('GET', `${live.api}/feedback/${flow}`))).toEqual([]);
  });

  it('a body of no type on an ingest route is still refused as the array form refuses it', async () => {
    for (const path of ['/chatmessage/x', '/variables/import', '/chatflows/import']) {
      const reply = await fetch(`${live.api}${path}`, { method: 'POST' });
      expect(reply.status, path).toBe(400);
    }
  });

  it('NDJSON on a route that takes no records is 415', async () => {
    expectError(await call('POST', `${live.api}/variables`, '{"name":"X"}\n', NDJSON), 415, 'application/x-ndjson');
  });

  it('a cut stream: the batches it committed stay, the rest is never written', async () => {
    const flow = flowId();
    const { req, answer } = streamedPost(`${live.api}/chatmessage/${flow}`);
    answer.catch(() => undefined);
    const records = Array.from({ length: MAX_INGEST_ITEMS + 3000 }, (_, i) => message(flow, i + 1));
    await write(req, lines(records));
    // Half a line more, then the connection goes, once the first batch is in.
    await write(req, JSON.stringify(message(flow, 0)).slice(0, 20));
    for (let got = 0; got < MAX_INGEST_ITEMS; ) got = (await ids(flow)).length;
    req.destroy();
    await expect(answer).rejects.toThrow();
    // Another request after the cut has been seen: still the first batch alone.
    const after = await ids(flow);
    expect(after).toHaveLength(MAX_INGEST_ITEMS);
    expect(after.at(-1)).toBe(`${flow}-${MAX_INGEST_ITEMS}`);
  });
});

describe.each(storeKinds)('NDJSON ingest limits on %s', (kind) => {
  let server: TestServer;
  const LIMIT = 4096;
  beforeAll(async () => {
    server = await startStoreServer(kind, { bodyLimit: LIMIT, timeouts: { requestMs: 1000 } });
  });
  afterAll(() => server?.dispose());
  const ids = async (flow: string) => (ok(await call('GET', `${server.api}/chatmessage/${flow}`)) as { id: string }[]).map((m) => m.id);

  it('a line over the limit is 413, refused before it is whole; nothing of its batch is written', async () => {
    const flow = flowId();
    const { req, answer } = streamedPost(`${server.api}/chatmessage/${flow}`);
    await write(req, lines([message(flow, 1)]));
    // A line that never ends: the answer comes without it.
    await write(req, `{"role":"userMessage","content":"${'x'.repeat(LIMIT)}`);
    const { status, body } = await answer;
    req.destroy();
    expect(status).toBe(413);
    expect(JSON.parse(body).message).toBe(`line 2: longer than ${LIMIT} bytes, the most a line may hold; nothing was written`);
    expect(await ids(flow)).toEqual([]);
    // A body larger than the limit is taken when each line is within it.
    const many = Array.from({ length: 100 }, (_, i) => message(flow, i + 1));
    expect(lines(many).length).toBeGreaterThan(LIMIT);
    expect(ok(await call('POST', `${server.api}/chatmessage/${flow}`, lines(many), NDJSON))).toEqual({ affected: 100 });
  });

  it('a stream may take longer than the request timeout while it keeps coming; one that stalls is 408', async () => {
    const flow = flowId();
    const { req, answer } = streamedPost(`${server.api}/chatmessage/${flow}`);
    // Twelve lines 150 ms apart: the body takes longer than the 1 s a request may (time must pass here).
    const started = Date.now();
    for (let i = 1; i <= 12; i++) {
      await write(req, lines([message(flow, i)]));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(Date.now() - started).toBeGreaterThan(1000);
    req.end();
    const done = await answer;
    expect(done.status, done.body).toBe(200);
    expect(JSON.parse(done.body)).toEqual({ affected: 12 });

    const stalled = streamedPost(`${server.api}/chatmessage/${flowId()}`);
    await write(stalled.req, lines([message(flow, 100)]));
    const { status, body } = await stalled.answer;
    stalled.req.destroy();
    expect(status).toBe(408);
    expect(JSON.parse(body).message).toBe('the body brought nothing for 1s: the ingest stopped at line 2; nothing was written');
  });
});
