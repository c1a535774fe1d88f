// The binary-COPY-to-JSON writer of the PostgreSQL store, byte for byte, without a database: a
// COPY answer in PostgreSQL's binary format, cut into CopyData chunks anywhere, must come out as
// JSON.stringify of each row, joined by ROW_SEPARATOR.
import { describe, expect, it } from 'vitest';
import type { JsonColumn } from '../../src/server/store/engine.js';
import { CopyOutJson } from '../../src/server/store/postgres/copy-out-json.js';
import { ROW_SEPARATOR } from '../../src/server/store/types.js';

const COLUMNS: JsonColumn[] = [
  { key: 'id', ref: 'm.id', kind: 'text' },
  { key: 'content', ref: 'm.content', kind: 'text' },
  { key: 'usedTools', ref: 'm.usedTools', kind: 'json' },
  { key: 'memoryType', ref: 'm.memoryType', kind: 'text' },
  { key: 'sessionId', ref: 'm.sessionId', kind: 'text' },
  { key: 'leadEmail', ref: 'm.leadEmail', kind: 'text' },
  { key: 'createdDate', ref: 'm.createdDate', kind: 'date' },
];
type Row = [string, string, unknown, string | null, string | null, string | null, number];

const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const int16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const field = (bytes: Buffer | null) => (bytes === null ? int32(-1) : Buffer.concat([int32(bytes.length), bytes]));
function timestamptz(ms: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(ms - PG_EPOCH_MS) * 1000n);
  return b;
}

/** A whole COPY … TO STDOUT (FORMAT binary) answer of the rows, as PostgreSQL writes it. */
function binaryCopy(rows: Row[]): Buffer {
  const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), int32(0), int32(0)]);
  const text = (s: string | null) => field(s === null ? null : Buffer.from(s));
  const body = rows.map(([id, content, tools, memory, session, lead, ms]) =>
    Buffer.concat([
      int16(COLUMNS.length),
      text(id),
      text(content),
      text(tools === null ? null : JSON.stringify(tools)),
      text(memory),
      text(session),
      text(lead),
      field(timestamptz(ms)),
    ]),
  );
  return Buffer.concat([header, ...body, int16(-1)]);
}

/** What the writer must give: each row as JSON.stringify writes it. */
const expected = (rows: Row[]) =>
  rows
    .map(([id, content, usedTools, memoryType, sessionId, leadEmail, ms]) =>
      JSON.stringify({ id, content, usedTools, memoryType, sessionId, leadEmail, createdDate: new Date(ms).toISOString() }),
    )
    .join(ROW_SEPARATOR);

/** Feeds the answer to the writer in the given chunks, as pg hands them over; answers its bytes. */
async function written(chunks: Buffer[]): Promise<{ text: string; count: number; last: string }> {
  const copy = new CopyOutJson('copy (select 1) to stdout (format binary)', COLUMNS);
  // pg hands over views of a read buffer it then reuses: each chunk is overwritten after the call.
  for (const chunk of chunks) {
    const reused = Buffer.from(chunk);
    copy.handleCopyData({ chunk: reused });
    reused.fill(0xee);
  }
  copy.handleReadyForQuery();
  const { joined, count, last } = await copy.done;
  return { text: Buffer.concat(joined).toString('utf8'), count, last: last.toString('utf8') };
}

const ROWS: Row[] = [
  ['m1', 'plain', null, null, null, null, Date.UTC(2026, 0, 31, 12, 0, 0, 7)],
  ['m2', 'quote " backslash \\ tab \t newline \n nul-free controls \u0001\u001f', [{ tool: 'x', input: { q: 'é' } }], 'Buffer', 's1', null, Date.UTC(2026, 0, 31, 23, 59, 59, 999)],
  ['m3', 'ünïcödé 😀 and </script>', [], null, 's1', 'a@b.c', Date.UTC(2026, 1, 1, 0, 0, 0, 0)],
  ['m4', '', null, null, null, null, Date.UTC(1999, 11, 31, 23, 59, 59, 500)],
  ['m5', 'year 0 and 9999', { a: [1, 2, 3] }, 'x', null, null, new Date(0).setUTCFullYear(0, 0, 1)],
  ['m6', 'last', null, null, null, 'z', new Date(0).setUTCFullYear(9999, 11, 31) + 86_399_999],
];

describe('CopyOutJson (PostgreSQL binary COPY to JSON)', () => {
  it('writes each row as JSON.stringify does: text escaped, JSON as stored, dates as toISOString, runs of nulls', async () => {
    const { text, count, last } = await written([binaryCopy(ROWS)]);
    expect(text).toBe(expected(ROWS));
    expect(count).toBe(ROWS.length);
    expect(last).toBe(expected(ROWS.slice(-1)));
    for (const line of text.split(ROW_SEPARATOR)) JSON.parse(line);
  });

  it('gives the same bytes however the answer is cut into CopyData chunks', async () => {
    const whole = binaryCopy(ROWS);
    const want = expected(ROWS);
    for (let cut = 1; cut < whole.length; cut++) {
      expect((await written([whole.subarray(0, cut), whole.subarray(cut)])).text, `cut at ${cut}`).toBe(want);
    }
    const bytes = [...whole].map((b) => Buffer.from([b]));
    expect((await written(bytes)).text).toBe(want);
  });

  it('refuses an answer without the binary header, or of another number of columns', async () => {
    const whole = binaryCopy(ROWS);
    await expect(written([Buffer.concat([Buffer.from('PGCOPX'), whole.subarray(6)])])).rejects.toThrow(/binary header/);
    const header = whole.subarray(0, 19);
    await expect(written([Buffer.concat([header, int16(2), field(Buffer.from('a')), field(null), int16(-1)])])).rejects.toThrow(/rows of 2 columns, not 7/);
  });
});
