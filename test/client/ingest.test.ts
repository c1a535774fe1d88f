// The client's ingest: long lists split into requests within its batch bounds, counted in bytes
// as the server's body limit counts them; or records streamed as NDJSON in one request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BATCH, JsonText, createClient } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('ingest in batches, and streamed', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ bodyLimit: 4096 });
  });
  afterAll(() => server?.dispose());

  it('counts bytes, not characters: CJK records under a small body limit all arrive', async () => {
    const client = createClient({ baseUrl: server.url, batch: { maxBytes: 3500, maxItems: 100 } });
    // 300 characters, 900 bytes each: counted as characters, eight would go in one 7 KB request.
    const messages = Array.from({ length: 20 }, (_, i) => ({ id: `cjk-${i}`, role: 'userMessage' as const, content: '中'.repeat(300) }));
    expect(await client.messages.ingest('cjk', messages)).toEqual({ affected: 20 });
    expect((await client.messages.list('cjk')).items).toHaveLength(20);
    await client.close();
  });

  it('records given as JSON text (JsonText) are sent as written, batched by their bytes like objects', async () => {
    const client = createClient({ baseUrl: server.url, batch: { maxBytes: 3500, maxItems: 100 } });
    const texts = Array.from({ length: 12 }, (_, i) => new JsonText(JSON.stringify({ id: `text-${i}`, role: 'apiMessage', content: `→ ${'中'.repeat(300)} ${i}` })));
    expect(await client.messages.ingest('texts', texts)).toEqual({ affected: 12 });
    const { items } = await client.messages.list('texts');
    expect(items.map((m) => [m.id, m.content]).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => [`text-${i}`, `→ ${'中'.repeat(300)} ${i}`]).sort(),
    );
    await client.close();
  });

  it('a client with the default bounds keeps under the default body limit of 1 MiB', async () => {
    const wide = await startTestServer();
    try {
      const client = createClient({ baseUrl: wide.url });
      expect(client.batch).toEqual(DEFAULT_BATCH);
      expect(DEFAULT_BATCH.maxBytes).toBeLessThan(1024 * 1024);
      const messages = Array.from({ length: 3000 }, (_, i) => ({ id: `big-${i}`, role: 'apiMessage' as const, content: 'é'.repeat(500) }));
      expect(await client.messages.ingest('big', messages)).toEqual({ affected: 3000 });
      await client.close();
    } finally {
      await wide.dispose();
    }
  });

  it('a streamed ingest (IngestStream) sends the records as written, in one request of any length, and answers the new ones', async () => {
    const client = createClient({ baseUrl: server.url });
    const stream = client.messages.ingestStream('streamed');
    // Some 3 MB, far over the body limit: each line is within it.
    for (let i = 0; i < 6000; i++) await stream.write(JSON.stringify({ id: `s-${i}`, role: 'userMessage', content: `${i} ${'中'.repeat(150)}` }));
    expect(await stream.end()).toEqual({ affected: 6000 });
    expect((await client.messages.list('streamed')).items).toHaveLength(6000);
    await client.close();
  });

  it("a refusal while the client still writes: the service's answer, not a broken connection, and the writes stop", async () => {
    const client = createClient({ baseUrl: server.url });
    const stream = client.messages.ingestStream('refused');
    await stream.write(JSON.stringify({ id: 'r-0', role: 'robot' }));
    let written = 1;
    let stopped: unknown;
    try {
      // Far more than the connection holds: a write waits once the service stops reading.
      for (; written < 200_000; written++) await stream.write(JSON.stringify({ id: `r-${written}`, role: 'userMessage', content: 'x'.repeat(100) }));
    } catch (err) {
      stopped = err;
    }
    expect(written).toBeLessThan(200_000);
    expect(stopped).toMatchObject({ kind: 'http', status: 400 });
    await expect(stream.end()).rejects.toMatchObject({ kind: 'http', status: 400, serverMessage: expect.stringContaining('line 1: role must be one of') });
    expect((await client.messages.list('refused')).items).toEqual([]);
    await client.close();
  });
});
