// The SQLite file itself: new files get 16 KiB pages (faster bulk imports and deletes), and a
// file made with SQLite's default 4 KiB pages, as earlier versions made them, keeps working. The
// WAL is checkpointed in large steps (an import's pages copied into the file once, not at each
// commit), on a thread of its own. A delete of most of the messages empties the table and writes
// back the few that stay, instead of deleting each message from five B-trees (and writing every
// page of them to the WAL).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import { openSqliteFile, pragmaValue } from '../helpers/sqlite-file.js';

const dir = mkdtempSync(join(tmpdir(), 'chatflow-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pageSize = (path: string) => {
  const db = openSqliteFile(path, { readonly: true });
  try {
    return pragmaValue(db, 'page_size');
  } finally {
    db.close();
  }
};

const message = (id: string) => ({ id, role: 'userMessage' as const, content: id, createdDate: '2026-01-01T00:00:00.000Z' });

describe('the SQLite file', () => {
  it('a new file has 16 KiB pages', async () => {
    const path = join(dir, 'new.db');
    const store = await openSqliteStore(path);
    await store.messages.ingest('flow', [message('a')]);
    await store.close();
    expect(pageSize(path)).toBe(16_384);
  });

  it('a new file another process is writing (setting it up at the same moment) opens once it is done: no "database is locked"', async () => {
    const path = join(dir, 'raced.db');
    // That other process: a connection holding the file's write lock, let go 300 ms later.
    const other = openSqliteFile(path);
    other.exec('create table other_setup (a)');
    other.exec('begin immediate');
    other.exec('insert into other_setup values (1)');
    const done = new Promise<void>((resolve) => setTimeout(() => (other.exec('commit'), resolve()), 300));
    try {
      const store = await openSqliteStore(path);
      expect(await store.messages.ingest('flow', [message('a')])).toBe(1);
      await store.close();
    } finally {
      await done;
      other.close();
    }
  });

  it('a file with 4 KiB pages opens, keeps its data and its page size, and takes writes', async () => {
    const path = join(dir, 'old.db');
    const old = openSqliteFile(path);
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.close();
    const first = await openSqliteStore(path);
    await first.messages.ingest('flow', [message('a')]);
    await first.close();

    const again = await openSqliteStore(path);
    expect(await again.messages.ingest('flow', [message('a'), message('b')])).toBe(1);
    const { rows } = await again.messages.list({ chatflowid: 'flow' }, 'asc', {});
    const ids: string[] = [];
    for await (const batch of rows) ids.push(...batch.map((m) => m.id));
    expect(ids).toEqual(['a', 'b']);
    await again.close();
    expect(pageSize(path)).toBe(4096);
  });

  it('commits of tens of MB stay in the WAL, not copied into the file at each commit', async () => {
    const path = join(dir, 'wal.db');
    const store = await openSqliteStore(path);
    // Some 40 MB in ten commits: SQLite's default checkpoints once the WAL holds 1,000 pages
    // (16 MB), copying them into the file.
    const text = 'x'.repeat(1000);
    for (let c = 0; c < 10; c++) {
      const batch = Array.from({ length: 3000 }, (_, i) => ({ ...message(`m-${c}-${i}`), content: `${text}${c}-${i}` }));
      expect(await store.messages.ingest('flow', batch)).toBe(3000);
    }
    const inFile = statSync(path).size;
    const inWal = statSync(`${path}-wal`).size;
    expect(inWal).toBeGreaterThan(30_000_000);
    expect(inFile).toBeLessThan(1_000_000);
    await store.close();
    // Closed, everything is in the file (and the WAL gone).
    expect(statSync(path).size).toBeGreaterThan(30_000_000);
  });

  it('a WAL past its checkpoint size is copied into the file by the checkpointer while the store stays open', async () => {
    const path = join(dir, 'checkpointed.db');
    const store = await openSqliteStore(path, { checkpointBytes: 4_000_000 });
    const text = 'y'.repeat(1000);
    for (let c = 0; c < 3; c++) {
      const batch = Array.from({ length: 3000 }, (_, i) => ({ ...message(`m-${c}-${i}`), content: `${text}${c}-${i}` }));
      expect(await store.messages.ingest('flow', batch)).toBe(3000);
    }
    // On its own thread: waited for, not timed.
    while (statSync(path).size < 8_000_000) await new Promise((resolve) => setTimeout(resolve, 20));
    const { rows } = await store.messages.list({ chatflowid: 'flow' }, 'asc', {});
    let count = 0;
    for await (const batch of rows) count += batch.length;
    expect(count).toBe(9000);
    await store.close();
    expect(() => statSync(`${path}-wal`)).toThrow();
  });

  it('a delete of most of the messages writes a few pages, not the whole table, and keeps the rest as it was', async () => {
    const path = join(dir, 'emptied.db');
    let store = await openSqliteStore(path);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
    const flow = (name: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ ...message(`${name}-${i}`), content: `message ${i} of ${name} `.repeat(8), sessionId: `s-${i % 50}`, createdDate: at(i) }));
    for (let c = 0; c < 30_000; c += 5_000) await store.messages.ingest('big', flow('big', 30_000).slice(c, c + 5_000));
    await store.messages.ingest('a-flow', flow('a', 500));
    await store.messages.ingest('z-flow', flow('z', 500));
    for (const messageId of ['big-5', 'big-29999', 'a-7', 'z-499']) await store.feedback.create({ messageId, rating: 'THUMBS_UP' });
    // Closed and opened again: everything in the file, the WAL starting empty.
    await store.close();
    store = await openSqliteStore(path);
    const file = statSync(path).size;

    // All of big but its last hundred messages.
    expect(await store.messages.delete({ chatflowid: 'big', end: at(29_899) })).toBe(29_900);
    expect(statSync(`${path}-wal`).size).toBeLessThan(file / 20);

    const ids = async (chatflowid: string, filter = {}) => {
      const out: string[] = [];
      for await (const batch of (await store.messages.list({ chatflowid, ...filter }, 'asc', {})).rows) out.push(...batch.map((m) => m.id));
      return out;
    };
    expect(await ids('big')).toEqual(flow('big', 30_000).slice(29_900).map((m) => m.id));
    expect(await ids('a-flow')).toEqual(flow('a', 500).map((m) => m.id));
    expect(await ids('z-flow', { sessionId: 's-49' })).toEqual(flow('z', 500).filter((m) => m.sessionId === 's-49').map((m) => m.id));
    const rated = async (chatflowid: string) => {
      const out: string[] = [];
      for await (const batch of (await store.feedback.list({ chatflowid }, 'asc', {})).rows) out.push(...batch.map((f) => f.messageId));
      return out;
    };
    expect([await rated('big'), await rated('a-flow'), await rated('z-flow')]).toEqual([['big-29999'], ['a-7'], ['z-499']]);
    // A message gone can come again, and be rated again.
    expect(await store.messages.ingest('big', [message('big-5')])).toBe(1);
    await store.feedback.create({ messageId: 'big-5', rating: 'THUMBS_DOWN' });
    await store.close();
  });
});
