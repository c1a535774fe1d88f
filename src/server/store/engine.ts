// What every repository of the kysely store shares: the database and its dialect, the listing
// engine (a page with its total, or every row streamed in keyset batches) and the bulk insert
// (SQL built once per shape). The SQLite and PostgreSQL stores differ only in how they connect
// (sqlite.ts, postgres/), in the column type of dates (migrations.ts), in how a bulk insert
// passes its rows (insertSql), in PostgreSQL keeping streamed lists in index order and reading
// their JSON texts as bytes (PgDirect), and in the SQL that writes a message as JSON (messages.ts).
import { CompiledQuery, sql, type ExpressionBuilder, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely';
import type { SortOrder } from '../../schema/common.js';
import { DEFAULT_PAGE_SIZE } from '../../schema/limits.js';
import type { Dialect } from './migrations.js';
import { NotFound } from './errors.js';
import { DATE_COLUMNS, type Database, type StoredDate } from './tables.js';
import { ROW_SEPARATOR, type DateRange, type JoinedRows, type Listing, type PageRequest } from './types.js';

/** Rows fetched per round trip when a whole list is streamed (the first batch; see `listing`). */
const STREAM_BATCH = 1000;
/** PostgreSQL: the most rows a batch grows to. */
const PG_STREAM_BATCH = 16_000;
/** See `listing`. */
const SORT_PRICED_OUT = 'set local enable_sort = off';
/** Ids per `in (…)` list (SQLite allows 32,766 bound values). */
export const IN_LIST_CHUNK = 500;

/** A row's values, in the order of the columns it is inserted with. */
export type RowValues = readonly unknown[];

/** Runs an insert of one row, its values `?` in order, for each of `rows`; answers the rows inserted. */
export type BulkInsert = (text: string, rows: readonly RowValues[]) => Promise<number>;

/** Objects of one shape as the columns and rows an insert takes. */
export function rowsOf(objects: readonly object[]): [columns: readonly string[], rows: RowValues[]] {
  const columns = objects.length ? Object.keys(objects[0]!) : [];
  return [columns, (objects as Record<string, unknown>[]).map((o) => columns.map((c) => o[c]))];
}

/**
 * Runs statements in one transaction on a thread and a connection of their own, answering each
 * one's changes (SQLite, store/checkpointer.ts): for the few whose single statement takes longer
 * than a request may wait. The caller holds the writer's connection meanwhile.
 */
export type ApartTransaction = (statements: readonly CompiledQuery[]) => Promise<number[]>;

/** SQLite: a query's rows read straight through the driver, on the reader's connection (sqlite.ts). */
export type ReadRows = (query: CompiledQuery) => unknown[];

/**
 * What the PostgreSQL store runs on its pool itself, outside kysely (postgres/driver.ts).
 * - `rows` and `bytes` read a streamed list's batch: `setting` (a SET LOCAL statement), if any,
 *   then `query`, in one implicit transaction, one round trip. `rows` answers its rows; `bytes`
 *   its rows as JSON in UTF-8, joined as a list sends them, never decoded, and the last row's:
 *   of a query of one text column, its texts; with `columns`, each row's columns written as
 *   the JSON object they name.
 * - `copyIn` writes rows (all of one shape) with COPY, a transaction of its own, and answers how
 *   many; it fails, writing none, if any clashes on a unique key.
 */
export interface PgDirect {
  rows(query: CompiledQuery, setting?: string): Promise<unknown[]>;
  bytes(query: CompiledQuery, setting?: string, columns?: readonly JsonColumn[]): Promise<JoinedRows & { last: Buffer }>;
  copyIn(table: keyof Database, columns: readonly string[], rows: readonly RowValues[]): Promise<number>;
}

/**
 * A column of a row the driver writes as JSON itself (PgDirect's `bytes`): its key in the JSON,
 * the column, and how its value is written: text as a JSON string, JSON text as it is, a date as
 * an ISO string (null as null).
 */
export interface JsonColumn {
  key: string;
  ref: string;
  kind: 'text' | 'json' | 'date';
}

// Queries are assembled from column names chosen at run time (sort keys, filters over joined
// tables), which kysely's static types cannot follow: those builders are typed loosely here.
/* eslint-disable @typescript-eslint/no-explicit-any */
export type AnySelect = SelectQueryBuilder<any, any, any>;
export type AnyEb = ExpressionBuilder<any, any>;

export const iso = (d: StoredDate): string => (d instanceof Date ? d.toISOString() : d);

export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

export function rangeConditions(eb: AnyEb, column: string | Expression<unknown>, range: DateRange): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (range.start) out.push(eb(column, '>=', range.start));
  if (range.end) out.push(eb(column, '<=', range.end));
  return out;
}

/**
 * SQLite's `json_object` of these keys in their order, each key's value the SQL `value` gives (its
 * column by default): a row as the database writes it in JSON (messages.ts, variables.ts).
 */
export const jsonObject = (keys: readonly string[], value: (key: string) => RawBuilder<unknown> = (k) => sql.ref(k)): RawBuilder<string> =>
  sql<string>`json_object(${sql.join(keys.map((k) => sql`${sql.lit(k)}, ${value(k)}`))})`;

/** The given keys of a patch that are set (undefined means "leave as it is"). */
export function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/** How a listing is ordered: `column` in SQL, `key` the same value in a fetched row. */
export interface ListingSort {
  column: string;
  key: string;
  id: string;
  order: SortOrder;
  /** `false` for a join whose order no index gives: sorting then stays allowed (see SORT_PRICED_OUT in `listing`). */
  indexed?: boolean;
}

export class Engine {
  private readonly insertSqlCache = new Map<string, string>();
  /** The first batch's compiled query of each fixed listing (see `listing`), by how it is read and its size. */
  private readonly firstBatches = new WeakMap<AnySelect, Map<string, CompiledQuery>>();

  constructor(
    readonly db: Kysely<Database>,
    readonly kind: Dialect,
    /**
     * Where listings read. SQLite: a connection of its own, so that a list is answered between
     * the steps of a long write (a delete of a million messages, see messages.ts) from the last
     * committed state, instead of waiting for the writer's connection.
     */
    private readonly reader: Kysely<Database> = db,
    /** SQLite: runs an insert of one row for each of `rows` on the writer's connection (sqlite.ts). */
    private readonly bulk?: BulkInsert,
    /** PostgreSQL: how a streamed list's batches are read (postgres/driver.ts). */
    private readonly pgDirect?: PgDirect,
    /** SQLite with a file: see ApartTransaction (sqlite.ts). */
    readonly apart?: ApartTransaction,
    /**
     * SQLite with a reader of its own: its queries run without kysely's executor, whose
     * connection lock, result plugins and their promises cost GET /variables 2-3 µs of the
     * service's 65-80 µs of CPU a request.
     * Only a connection nothing else uses may: kysely's lock keeps a read on the writer's
     * connection out of a transaction in progress.
     */
    private readonly readRows?: ReadRows,
  ) {}

  /** A listing's query, on the reader. */
  read(q: CompiledQuery): Promise<unknown[]> {
    if (!this.readRows) return this.reader.executeQuery(q).then((result) => result.rows);
    try {
      return Promise.resolve(this.readRows(q));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /**
   * `make()` compiled, or for the first batch of a fixed listing (`fixed`, see `listing`) the
   * query compiled for it before: kysely building and compiling the SQL afresh for each request
   * took some 15% of the service's CPU for GET /variables (20 variables, bench/million.js).
   */
  private compiled(fixed: AnySelect | undefined, key: string, make: () => AnySelect): CompiledQuery {
    if (!fixed) return make().compile();
    let queries = this.firstBatches.get(fixed);
    if (!queries) this.firstBatches.set(fixed, (queries = new Map()));
    let query = queries.get(key);
    if (!query) queries.set(key, (query = make().compile()));
    return query;
  }

  /**
   * A page with its total when both `page` and `limit` are given; otherwise every row, fetched
   * in keyset-ordered batches so that a million rows never sit in memory nor hold a connection.
   */
  async listing<R, T>(
    /**
     * The query, without order or limit: a function building it, or the builder itself when it
     * takes nothing from the request (a whole table). Such a listing is fixed: kysely's builders
     * are immutable, so the same builder always makes the same first batch, compiled once.
     */
    query: AnySelect | (() => AnySelect),
    sort: ListingSort,
    page: PageRequest,
    map: (row: R) => T,
    /**
     * The JSON text of `map(row)`, when the store has it without `map`: the database's own
     * rendering of a row, or the columns PostgreSQL's driver writes as JSON (JsonColumn).
     */
    json?: RawBuilder<string> | readonly JsonColumn[],
  ): Promise<Listing<T>> {
    const { column, key, id, order } = sort;
    const fixed = typeof query === 'function' ? undefined : query;
    const build = typeof query === 'function' ? query : () => query;
    if (page.page !== undefined || page.limit !== undefined) {
      const limit = page.limit ?? DEFAULT_PAGE_SIZE;
      const offset = ((page.page ?? 1) - 1) * limit;
      const [count, rows] = await Promise.all([
        this.read(build().clearSelect().select((eb: AnyEb) => eb.fn.countAll().as('n')).compile()),
        this.read(build().orderBy(column, order).orderBy(id, order).limit(limit).offset(offset).compile()),
      ]);
      return { total: Number((count[0] as { n: number | string | bigint }).n), rows: [(rows as R[]).map(map)] };
    }
    type Row = Record<string, unknown>;
    const keyOf = (row: Row): [unknown, unknown] => [row[key], row.id];
    const pg = this.kind === 'postgres';
    // PostgreSQL: each keyset batch runs with sorting priced out, so that it walks the index that
    // has its order. Statistics lag a bulk load (rows dated after the last ANALYZE look like none):
    // the planner then bitmap-scans and sorts every remaining row for each batch of a thousand,
    // which made exporting a freshly imported million messages quadratic.
    const reads = this.pgDirect;
    const setting = sort.indexed !== false ? SORT_PRICED_OUT : undefined;
    const run = reads ? (q: CompiledQuery) => reads.rows(q, setting) : (q: CompiledQuery) => this.read(q);
    const compiled = (how: string, make: () => AnySelect, first: boolean, size: number) =>
      this.compiled(first ? fixed : undefined, `${how} ${size}`, make);
    // PostgreSQL answers from another process: the next batch is asked for as soon as this one
    // has come (its key is known), and is computed there while this one is sent.
    async function* batches<B>(
      /** Reads a batch: `q` is its query of rows in order; `first` when it is the first batch. */
      fetch: (q: () => AnySelect, first: boolean, size: number) => Promise<B>,
      count: (batch: B) => number,
      cursorOf: (batch: B) => [unknown, unknown],
    ): AsyncGenerator<B> {
      // SQLite joins a batch into one value, which may hold at most 1e9 bytes (SQLITE_TOOBIG):
      // rows that large are asked for again a tenth as many at a time, down to one.
      let size = STREAM_BATCH;
      let cursor: [unknown, unknown] | undefined;
      const ask = () => {
        const after = cursor;
        const inOrder = () => {
          let q = build();
          if (after) q = q.where((eb: AnyEb) => eb(eb.refTuple(column, id), order === 'asc' ? '>' : '<', eb.tuple(after[0], after[1])));
          // The batch's size written into the SQL, not bound: SQLite ran GET /variables' query
          // (20 rows joined) in some 15 µs with a literal LIMIT, 28 µs with `limit ?`. (A few
          // sizes only, each its own statement, prepared once.)
          return q.orderBy(column, order).orderBy(id, order).limit(sql.lit(size));
        };
        const asked = fetch(inOrder, !after, size);
        asked.catch(() => {}); // a list abandoned meanwhile never awaits it
        return asked;
      };
      let next = ask();
      for (;;) {
        let batch: B;
        try {
          batch = await next;
        } catch (err) {
          if ((err as { code?: unknown }).code !== 'SQLITE_TOOBIG' || size === 1) throw err;
          size = Math.ceil(size / 10);
          next = ask();
          continue;
        }
        const full = count(batch) === size;
        if (full) cursor = cursorOf(batch);
        // PostgreSQL: each batch after a full one twice as large, up to PG_STREAM_BATCH: a query
        // planned and started, a connection taken and a promise settled for fewer rows, while
        // the first rows still come after a thousand.
        if (full && pg) size = Math.min(2 * size, PG_STREAM_BATCH);
        if (full && pg) next = ask();
        yield batch;
        if (!full) return;
        if (!pg) next = ask();
      }
    }
    const length = (batch: readonly unknown[]) => batch.length;
    async function* rows(): AsyncGenerator<T[]> {
      const fetch = (q: () => AnySelect, first: boolean, size: number) => run(compiled('rows', q, first, size)) as Promise<Row[]>;
      for await (const batch of batches(fetch, length, (b) => keyOf(b[b.length - 1]!))) yield (batch as R[]).map(map);
    }
    // A batch's texts come as the UTF-8 bytes of them all, joined as the answer sends them,
    // never decoded; the next batch starts after the key read back from the last row's text.
    // PostgreSQL: COPY's bytes as they came, or the JSON its driver writes of the `columns`
    // (PgDirect). SQLite: joined by the database itself
    // (group_concat) and handed over as one blob, the driver making one Buffer a batch instead of
    // a string a row (each decoded from UTF-8, two bytes a character as soon as one is not
    // Latin-1, and encoded again for the socket). The aggregate takes the rows in the order its
    // subquery (the batch, ORDER BY … LIMIT, a co-routine walking the index) yields them; an ORDER
    // BY of its own would sort them again (a third of the list's time in SQLite).
    const reader = this.reader;
    // (The batches' generator itself, not one delegating to it: a generator more in the chain cost a
    // small list's answer some 8% of the service's CPU, GET /variables.)
    function texts(rendered: RawBuilder<string> | readonly JsonColumn[]): AsyncGenerator<JoinedRows> {
      const columns = Array.isArray(rendered) ? (rendered as readonly JsonColumn[]) : undefined;
      const select = (q: AnySelect): AnySelect =>
        columns ? q.clearSelect().select(columns.map((c) => c.ref)) : q.clearSelect().select((rendered as RawBuilder<string>).as('json'));
      const joined = async (q: () => AnySelect, first: boolean, size: number): Promise<JoinedRows & { last: Buffer }> => {
        const [row] = (await run(
          compiled(
            'joined',
            () =>
              reader.selectFrom(select(q()).as('b')).select((eb: AnyEb) => [
                sql<Buffer | null>`cast(group_concat(${sql.ref('b.json')}, ${ROW_SEPARATOR}) as blob)`.as('joined'),
                eb.fn.countAll().as('count'),
              ]) as unknown as AnySelect,
            first,
            size,
          ),
        )) as { joined: Uint8Array | null; count: number }[];
        // (A Buffer from better-sqlite3, a Uint8Array from node:sqlite: seen as a Buffer, not copied.)
        const blob = row?.joined;
        const bytes = blob ? Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength) : Buffer.alloc(0);
        // (A JSON text holds no newline of its own: a separator is where one row ends.)
        const start = bytes.lastIndexOf(ROW_SEPARATOR);
        return { count: Number(row?.count ?? 0), joined: [bytes], last: bytes.subarray(start < 0 ? 0 : start + ROW_SEPARATOR.length) };
      };
      const fetch = reads
        ? (q: () => AnySelect, first: boolean, size: number) => reads.bytes(compiled('bytes', () => select(q()), first, size), setting, columns)
        : joined;
      return batches(fetch, (b) => b.count, (b) => keyOf(JSON.parse(b.last.toString()) as Row));
    }
    return { rows: rows(), ...(json ? { texts: texts(json) } : {}) };
  }

  /**
   * The SQL of an insert of rows of `columns`, skipping those that clash on `id` (on any unique
   * key for feedback: one a message). Built by kysely once per shape. PostgreSQL: one array a
   * column, unnested into rows, so that it parses and plans one parameter a column instead of one
   * a value, and the statement is the same for any row count. SQLite: one row, its values bound
   * by position (see insertChunks).
   */
  private insertSql(table: keyof Database, columns: readonly string[]): string {
    const key = `${table}\0${columns.join(',')}`;
    let text = this.insertSqlCache.get(key);
    if (text === undefined) {
      const insert = this.db.insertInto(table);
      const filled =
        this.kind === 'postgres'
          ? insert.columns(columns as any).expression(
              sql`select * from unnest(${sql.join(columns.map((c) => sql`${null}::${sql.raw(DATE_COLUMNS.has(c) ? 'timestamptz' : 'text')}[]`))})`,
            )
          : insert.values(Object.fromEntries(columns.map((c) => [c, sql.raw('?')])) as any);
      text = filled.onConflict((oc) => (table === 'chat_message_feedback' ? oc : oc.column('id')).doNothing()).compile().sql;
      this.insertSqlCache.set(key, text);
    }
    return text;
  }

  /** Inserts rows of `columns`, skipping those that clash (see insertSql); answers how many were new. */
  async insertChunks(trx: Transaction<Database>, table: keyof Database, columns: readonly string[], rows: readonly RowValues[]): Promise<number> {
    if (rows.length === 0) return 0;
    const text = this.insertSql(table, columns);
    if (this.bulk) {
      // The transaction holds SQLite's one connection: these statements run inside it. A row a statement, prepared once, its values bound by position
      // (no SQL of many rows, which SQLite ran slower than this).
      return this.bulk(text, rows);
    }
    const parameters = columns.map((_, i) => rows.map((row) => row[i]));
    const result = await trx.executeQuery(CompiledQuery.raw(text, parameters));
    return Number(result.numAffectedRows ?? 0n);
  }

  /** Deletes the one row of `table` with this id; NotFound (naming `what`) when there is none. */
  async deleteById(table: 'assistant' | 'variable' | 'chat_flow', what: string, id: string): Promise<number> {
    const r = await this.db.deleteFrom(table).where('id', '=', id).executeTakeFirst();
    if (r.numDeletedRows === 0n) throw new NotFound(what, id);
    return Number(r.numDeletedRows);
  }

  /**
   * insertChunks in a transaction of its own: all the rows or none. PostgreSQL first tries COPY,
   * which parses and writes rows at a fraction of an INSERT's cost (no arrays of parameters, no
   * check for a clash before each row), but cannot skip a row: when one clashes, it has written
   * none, and the insert that skips them runs instead.
   */
  async insertAll(table: keyof Database, columns: readonly string[], rows: readonly RowValues[]): Promise<number> {
    if (this.pgDirect && rows.length > 0) {
      try {
        return await this.pgDirect.copyIn(table, columns, rows);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
    return this.db.transaction().execute((trx) => this.insertChunks(trx, table, columns, rows));
  }
}
