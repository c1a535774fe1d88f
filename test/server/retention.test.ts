// The service's own retention (src/server/retention.ts): old messages go in batches while requests
// are served, on SQLite and PostgreSQL; nothing newer and no other chatflow is touched.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/app.js';
import { call } from '../helpers/http.js';
import { openTestStore, removeTestStore, storeKinds } from '../helpers/stores.js';

const DAY = 86_400_000;
const OLD = 3000;

describe.each(storeKinds)('retention on %s', (kind) => {
  let server: RunningServer | undefined;
  let dir: string;
  afterEach(async () => {
    await server?.close();
    await removeTestStore(kind, dir);
  });

  it('prunes in batches while reads are answered; recent messages, exempt chatflows and their feedback stay; the period of a chatflow of its own applies', async () => {
    dir = mkdtempSync(join(tmpdir(), `chatflow-retention-${kind}-`));
    const store = await openTestStore(kind, dir);
    const now = Date.now();
    const old = Array.from({ length: OLD }, (_, i) => ({ id: `old-${i}`, role: 'userMessage', content: `m${i}`, createdDate: new Date(now - 40 * DAY - i * 1000).toISOString() }));
    const recent = [{ id: 'recent', role: 'userMessage', content: 'kept', createdDate: new Date(now - 29 * DAY).toISOString() }];
    await store.messages.ingest('pruned', [...old, ...recent]);
    await store.messages.ingest('exempt', old.slice(0, 10).map((m) => ({ ...m, id: `exempt-${m.id}` })));
    await store.messages.ingest('short', [{ id: 'short-1', role: 'userMessage', content: 'x', createdDate: new Date(now - 2 * DAY).toISOString() }]);
    await store.feedback.ingest([{ messageId: 'old-0', rating: 'THUMBS_UP' }, { messageId: 'recent', rating: 'THUMBS_DOWN' }]);
    const lines: string[] = [];
    server = await startServer({
      store,
      port: 0,
      retention: { keepMs: 30 * DAY, chatflows: { exempt: null, short: DAY }, batch: 500, log: (l) => lines.push(l) },
    });
    const api = `${server.url}/api/v1`;
    // Reads while the batches run: every one answered.
    const statuses: number[] = [];
    const reading = (async () => {
      for (let i = 0; i < 20; i++) statuses.push((await call('GET', `${api}/chatmessage/exempt?limit=5&page=1`)).status);
    })();
    await server.retention!.idle();
    await reading;
    expect(statuses.every((s) => s === 200)).toBe(true);
    const left = async (flow: string) => (await call<{ id: string }[]>('GET', `${api}/chatmessage/${flow}`)).body.map((m) => m.id);
    expect(await left('pruned')).toEqual(['recent']);
    expect(await left('exempt')).toHaveLength(10);
    expect(await left('short')).toEqual([]);
    expect((await call<{ messageId: string }[]>('GET', `${api}/feedback/pruned`)).body.map((f) => f.messageId)).toEqual(['recent']);
    expect(lines.sort()).toEqual([
      expect.stringMatching(/^retention: removed 1 message of chatflow short created before \d{4}-/),
      expect.stringMatching(new RegExp(`^retention: removed ${OLD} messages of chatflow pruned created before `)),
    ]);
  });
});
