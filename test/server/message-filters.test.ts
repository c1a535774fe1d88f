// Every row of the message filter table (src/schema/filters.ts) must reach the store and be
// applied there: a filter the route validates but drops would widen a list and, worse, make
// `messages delete` delete more than asked. Each test walks the table, so a new row is held to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_FILTERS, type FilterSchema } from '../../src/schema/filters.js';
import type { RouteQuery } from '../../src/schema/routes.js';
import { messageRoutes } from '../../src/server/routes/messages.js';
import { narrowed } from '../../src/server/store/messages.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { MessageFilter, Store } from '../../src/server/store/types.js';

/** A valid value of each kind of filter. */
const SAMPLE: Record<FilterSchema, unknown> = {
  chatTypes: ['EXTERNAL'],
  freeId: 'chat-1',
  text: 'text-1',
  dateBound: '2026-01-01',
  rating: 'THUMBS_UP',
};
type Query = RouteQuery<'listMessages'>;
type Def = (typeof MESSAGE_FILTERS)[number];
const queryOf = (defs: readonly Def[]): Query => Object.fromEntries(defs.map((d) => [d.key, SAMPLE[d.schema]]));

/** The filter the route hands the store for a list (with feedback=true) and for a delete of `query`. */
async function storeFilters(query: Query): Promise<MessageFilter[]> {
  const seen: MessageFilter[] = [];
  const messages = {
    list: (filter: MessageFilter) => (seen.push(filter), { rows: [] }),
    delete: (filter: MessageFilter) => (seen.push(filter), 1),
  };
  const store = { messages } as unknown as Store;
  await messageRoutes.listMessages.handle({ store, params: { id: 'flow' }, query: { ...query, feedback: 'true' }, body: undefined as never });
  await messageRoutes.deleteMessages.handle({ store, params: { id: 'flow' }, query, body: undefined as never });
  return seen;
}

/** What the store takes for a row: its value under its key, or a date range for a date bound. */
const taken = (filter: MessageFilter, def: Def): unknown =>
  def.match === 'dateBound' ? (filter.start ?? filter.end) : (filter as unknown as Record<string, unknown>)[def.key];

describe('the message filter table reaches the store', () => {
  it('a query holding every filter: list and delete hand the store every one of them', async () => {
    const filters = await storeFilters(queryOf(MESSAGE_FILTERS));
    expect(filters).toHaveLength(2);
    for (const filter of filters) {
      expect(filter.chatflowid).toBe('flow');
      for (const def of MESSAGE_FILTERS) {
        if (def.match === 'dateBound') expect(taken(filter, def), def.key).toMatch(/^2026-01-01T/);
        else expect(taken(filter, def), def.key).toEqual(SAMPLE[def.schema]);
      }
    }
  });

  it('each filter alone narrows a delete beyond a chatflow and its date range (no emptying of the table)', async () => {
    for (const def of MESSAGE_FILTERS) {
      const [, deleted] = await storeFilters(queryOf([def]));
      expect(taken(deleted!, def), def.key).toBeDefined();
      expect(narrowed(deleted!), def.key).toBe(def.match !== 'dateBound');
    }
    expect(narrowed({ chatflowid: 'flow' })).toBe(false);
  });

  describe('the SQLite store applies each filter by key', () => {
    let dir: string;
    let store: Store;
    const keyed = MESSAGE_FILTERS.filter((d) => d.match === 'exact' || d.match === 'anyOf');
    /** A column's value that matches the row's sample (one of a list), or that does not. */
    const column = (d: Def, matching: boolean) => {
      const sample = SAMPLE[d.schema];
      return matching ? (Array.isArray(sample) ? sample[0] : sample) : 'other';
    };
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'chatflow-filters-'));
      store = await openSqliteStore(join(dir, 'chatflow.db'));
      await store.messages.ingest('flow', [
        { id: 'matching', role: 'apiMessage', ...Object.fromEntries(keyed.map((d) => [d.key, column(d, true)])) },
        { id: 'other', role: 'apiMessage', ...Object.fromEntries(keyed.map((d) => [d.key, column(d, false)])) },
      ]);
    });
    afterAll(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a list by one filter answers only the message it matches', async () => {
      expect(keyed.length).toBeGreaterThan(0);
      for (const def of keyed) {
        const [filter] = await storeFilters(queryOf([def]));
        const ids: string[] = [];
        for await (const batch of (await store.messages.list({ ...filter!, withFeedback: undefined }, 'asc', {})).rows) ids.push(...batch.map((m) => m.id));
        expect(ids, def.key).toEqual(['matching']);
      }
    });
  });
});
