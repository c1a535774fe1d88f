// A list whose batch is too large for one SQLite value: SQLite joins a batch of a list's rows into
// one value (store/engine.ts), and a value may hold at most 1e9 bytes (SQLITE_TOOBIG), which a
// thousand messages of a megabyte reach. The list goes on, fewer rows a batch. Here the database
// refuses any joined value over a few kilobytes, as SQLite refuses one over its limit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyStore } from '../../src/server/store/kysely-store.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { Database as Tables } from '../../src/server/store/tables.js';
import { ROW_SEPARATOR } from '../../src/server/store/types.js';
import { openSqliteFile, type SqliteConnection } from '../helpers/sqlite-file.js';

const LIMIT = 4096;
const tooBig = () => Object.assign(new Error('string or blob too big'), { code: 'SQLITE_TOOBIG' });

/** `sqlite`, except that a query's joined value over LIMIT bytes fails as SQLite's over its length limit. */
function withLengthLimit(sqlite: SqliteConnection): SqliteConnection {
  return new Proxy(sqlite, {
    get(db, key) {
      if (key !== 'prepare') return Reflect.get(db, key, db);
      return (text: string) => {
        const statement = db.prepare(text);
        if (!text.includes('group_concat')) return statement;
        return new Proxy(statement, {
          get(s, k) {
            if (k !== 'all') return Reflect.get(s, k, s);
            return (params: readonly unknown[]) => {
              const rows = s.all(params) as { joined?: unknown }[];
              if (rows.some((r) => r.joined instanceof Uint8Array && r.joined.length > LIMIT)) throw tooBig();
              return rows;
            };
          },
        });
      };
    },
  });
}

describe('SQLite: a list of rows too large to join a thousand at a time', () => {
  let dir: string;
  let path: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatflow-large-rows-'));
    path = join(dir, 'chatflow.db');
    const store = await openSqliteStore(path);
    await store.messages.ingest(
      'flow',
      Array.from({ length: 40 }, (_, i) => ({
        role: 'userMessage' as const,
        chatId: 'chat',
        content: `${String(i).padStart(2, '0')} ${'x'.repeat(600)}`,
        createdDate: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      })),
    );
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every message, in order, fewer a batch', async () => {
    const sqlite = openSqliteFile(path, { readonly: true });
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withLengthLimit(sqlite) }) });
    try {
      const listing = await new KyselyStore(db, 'sqlite').messages.list({ chatflowid: 'flow' }, 'asc', {});
      expect(listing.texts).toBeDefined();
      let text = '';
      for await (const { count, joined } of listing.texts!) if (count > 0) text += (text ? ROW_SEPARATOR : '') + Buffer.concat(joined).toString();
      const contents = text.split(ROW_SEPARATOR).map((line) => (JSON.parse(line) as { content: string }).content.slice(0, 2));
      expect(contents).toEqual(Array.from({ length: 40 }, (_, i) => String(i).padStart(2, '0')));
    } finally {
      await db.destroy();
    }
  });
});
