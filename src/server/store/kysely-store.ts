// The store, written once over kysely: the SQLite and PostgreSQL stores differ only in how they
// connect (sqlite.ts, postgres.ts), in the column type of dates (migrations.ts), in the SQL that
// writes a streamed message list as JSON (messageJson), in how a bulk insert passes its rows
// (insertSql), and in PostgreSQL keeping streamed lists in index order (inIndexOrder).
import { randomUUID } from 'node:crypto';
import { CompiledQuery, sql, type ExpressionBuilder, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely';
import type { SortOrder } from '../../schema/common.js';
import {
  MESSAGE_JSON_FIELDS,
  type Assistant,
  type AssistantCreate,
  type AssistantDetails,
  type AssistantIngest,
  type AssistantUpdate,
  type ChatMessage,
  type ChatMessageIngest,
  type Chatflow,
  type Feedback,
  type FeedbackCreate,
  type FeedbackIngest,
  type FeedbackUpdate,
  type UpsertHistory,
  type UpsertHistoryIngest,
  type Variable,
  type VariableCreate,
  type VariableIngest,
  type VariableUpdate,
} from '../../schema/resources.js';
import { normaliseDateTime } from '../dates.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { Dialect } from './migrations.js';
import {
  DATE_COLUMNS,
  type AssistantRow,
  type ChatMessageRow,
  type Database,
  type FeedbackRow,
  type StoredDate,
  type UpsertHistoryRow,
  type VariableRow,
} from './tables.js';
import type {
  DateRange,
  FeedbackFilter,
  Listing,
  MessageFilter,
  PageRequest,
  Store,
  UpsertFilter,
} from './types.js';

/** Rows fetched per round trip when a whole list is streamed. */
const STREAM_BATCH = 1000;
/** Rows per INSERT statement (SQLite allows 32,766 bound values; a message row binds 16). */
const INSERT_CHUNK = 500;

// Queries are assembled from column names chosen at run time (sort keys, filters over joined
// tables), which kysely's static types cannot follow: those builders are typed loosely here.
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnySelect = SelectQueryBuilder<any, any, any>;
type AnyEb = ExpressionBuilder<any, any>;

const iso = (d: StoredDate): string => (d instanceof Date ? d.toISOString() : d);
const now = () => new Date().toISOString();
const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
/** A given date in the one stored form (validation has already checked it parses). */
const storedDate = (given: string | undefined, fallback: string) =>
  given === undefined ? fallback : (normaliseDateTime(given) ?? fallback);
const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

function rangeConditions(eb: AnyEb, column: string | Expression<unknown>, range: DateRange): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (range.start) out.push(eb(column, '>=', range.start));
  if (range.end) out.push(eb(column, '<=', range.end));
  return out;
}

const toVariable = (r: VariableRow): Variable => ({
  id: r.id,
  name: r.name,
  value: r.value,
  type: r.type,
  createdDate: iso(r.createdDate),
  updatedDate: iso(r.updatedDate),
});

const toFeedback = (r: FeedbackRow): Feedback => ({
  id: r.id,
  chatflowid: r.chatflowid,
  chatId: r.chatId,
  messageId: r.messageId,
  rating: r.rating as Feedback['rating'],
  content: r.content,
  createdDate: iso(r.createdDate),
});

const toAssistant = (r: AssistantRow): Assistant => ({
  id: r.id,
  details: JSON.parse(r.details) as AssistantDetails,
  credential: r.credential,
  iconSrc: r.iconSrc,
  type: r.type as Assistant['type'],
  createdDate: iso(r.createdDate),
  updatedDate: iso(r.updatedDate),
});

function toMessage(r: ChatMessageRow & Partial<Record<`f_${keyof FeedbackRow}`, unknown>>): ChatMessage {
  const message = {
    id: r.id,
    role: r.role,
    chatflowid: r.chatflowid,
    content: r.content,
    ...Object.fromEntries(MESSAGE_JSON_FIELDS.map((f) => [f, parseJson(r[f])])),
    chatType: r.chatType,
    chatId: r.chatId,
    memoryType: r.memoryType,
    sessionId: r.sessionId,
    leadEmail: r.leadEmail,
    createdDate: iso(r.createdDate),
  } as ChatMessage;
  if (r.f_id !== undefined) {
    message.feedback = toFeedback({
      id: r.f_id as string,
      chatflowid: r.chatflowid,
      chatId: r.chatId,
      messageId: r.id,
      rating: r.f_rating as string,
      content: r.f_content as string | null,
      createdDate: r.f_createdDate as StoredDate,
    });
  }
  return message;
}

/** The keys of toMessage, in its order (a message without feedback). */
const MESSAGE_KEYS = [
  'id', 'role', 'chatflowid', 'content', ...MESSAGE_JSON_FIELDS, 'chatType', 'chatId', 'memoryType', 'sessionId', 'leadEmail', 'createdDate',
] as const;
const JSON_KEYS: ReadonlySet<string> = new Set(MESSAGE_JSON_FIELDS);

/**
 * A message row as the database itself writes it in JSON, the very text JSON.stringify(toMessage(row))
 * gives: the same keys in the same order, strings escaped alike, dates in ISO form, JSON columns
 * as JSON.stringify wrote them. A streamed list then costs one string a row instead of sixteen
 * values, an object and a stringify: about a quarter of the work. (PostgreSQL's row_to_json is
 * the compact one; json_build_object puts spaces around its colons.)
 */
function messageJson(dialect: Dialect, prefix: string): RawBuilder<string> {
  const value = (k: string) => {
    const ref = sql.ref(`${prefix}${k}`);
    if (JSON_KEYS.has(k)) return dialect === 'sqlite' ? sql`json(${ref})` : sql`${ref}::json`;
    if (dialect === 'postgres' && DATE_COLUMNS.has(k)) return sql`to_char(${ref} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    return ref;
  };
  if (dialect === 'sqlite') return sql<string>`json_object(${sql.join(MESSAGE_KEYS.map((k) => sql`${sql.lit(k)}, ${value(k)}`))})`;
  const columns = MESSAGE_KEYS.map((k) => sql`${value(k)} as ${sql.id(k)}`);
  return sql<string>`(select row_to_json(x)::text from (select ${sql.join(columns)}) x)`;
}

const toUpsert = (r: UpsertHistoryRow): UpsertHistory => ({
  id: r.id,
  chatflowid: r.chatflowid,
  result: JSON.parse(r.result),
  flowData: JSON.parse(r.flowData),
  date: iso(r.date),
});

export class KyselyStore implements Store {
  private readonly insertSqlCache = new Map<string, string>();

  constructor(
    private readonly db: Kysely<Database>,
    readonly kind: Dialect,
  ) {}

  // ---------------------------------------------------------------- listing

  /**
   * A page with its total when both `page` and `limit` are given; otherwise every row, fetched
   * in keyset-ordered batches so that a million rows never sit in memory nor hold a connection.
   */
  private async listing<R, T>(
    build: () => AnySelect,
    /** `indexed: false` for a join whose order no index gives (see inIndexOrder). */
    sort: { column: string; key: string; id: string; order: SortOrder; indexed?: boolean },
    page: PageRequest,
    map: (row: R) => T,
    /** The database's own rendering of a row as the JSON text of `map(row)`, when it has one. */
    json?: RawBuilder<string>,
  ): Promise<Listing<T>> {
    const { column, key, id, order } = sort;
    if (page.page !== undefined || page.limit !== undefined) {
      const limit = page.limit ?? 100;
      const offset = ((page.page ?? 1) - 1) * limit;
      const [count, rows] = await Promise.all([
        build()
          .clearSelect()
          .select((eb: AnyEb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
        build().orderBy(column, order).orderBy(id, order).limit(limit).offset(offset).execute(),
      ]);
      return { total: Number((count as { n: number | string | bigint }).n), rows: [(rows as R[]).map(map)] };
    }
    type Row = Record<string, unknown>;
    const keyOf = (row: Row): [unknown, unknown] => [row[key], row.id];
    const run = this.kind === 'postgres' && sort.indexed !== false ? (q: AnySelect) => this.inIndexOrder(q) : (q: AnySelect) => q.execute();
    async function* batches(select: (q: AnySelect) => AnySelect, cursorOf: (last: Row) => [unknown, unknown]): AsyncGenerator<Row[]> {
      let cursor: [unknown, unknown] | undefined;
      for (;;) {
        let q = select(build());
        if (cursor) {
          const after = cursor;
          q = q.where((eb: AnyEb) => eb(eb.refTuple(column, id), order === 'asc' ? '>' : '<', eb.tuple(after[0], after[1])));
        }
        const rows = (await run(q.orderBy(column, order).orderBy(id, order).limit(STREAM_BATCH))) as Row[];
        yield rows;
        if (rows.length < STREAM_BATCH) return;
        cursor = cursorOf(rows[rows.length - 1]!);
      }
    }
    async function* rows(): AsyncGenerator<T[]> {
      for await (const batch of batches((q) => q, keyOf)) yield (batch as R[]).map(map);
    }
    async function* texts(rendered: RawBuilder<string>): AsyncGenerator<string[]> {
      // Only the text is turned into a JavaScript value; the next batch starts after the key
      // read back from the last row's text.
      const select = (q: AnySelect) => q.clearSelect().select(rendered.as('json'));
      const cursorOf = (last: Row) => keyOf(JSON.parse(last.json as string) as Row);
      for await (const batch of batches(select, cursorOf)) yield batch.map((row) => row.json as string);
    }
    return { rows: rows(), ...(json ? { texts: texts(json) } : {}) };
  }

  /**
   * PostgreSQL: runs a keyset batch with sorting priced out, so that it walks the index that has
   * its order. Statistics lag a bulk load (rows dated after the last ANALYZE look like none): the
   * planner then bitmap-scans and sorts every remaining row for each batch of a thousand, which
   * made exporting a freshly imported million messages quadratic.
   */
  private inIndexOrder(q: AnySelect): Promise<unknown[]> {
    return this.db.transaction().execute(async (trx) => {
      await sql`set local enable_sort = off`.execute(trx);
      return (await trx.executeQuery(q.compile())).rows;
    });
  }

  /**
   * The SQL of an insert of `count` rows of `columns` (on PostgreSQL, of any count), skipping
   * those that clash on `id` (on any unique key for feedback: one a message). Built by kysely once
   * per shape: building a 500-row insert afresh (8,000 value nodes) cost as much as SQLite took to
   * run it.
   */
  private insertSql(table: keyof Database, columns: readonly string[], count: number): string {
    const key = `${table}\0${columns.join(',')}\0${this.kind === 'postgres' ? 0 : count}`;
    let text = this.insertSqlCache.get(key);
    if (text === undefined) {
      const insert = this.db.insertInto(table);
      const nulls = () => Object.fromEntries(columns.map((c) => [c, null]));
      const filled =
        this.kind === 'postgres'
          ? // One array a column, unnested into rows: PostgreSQL parses and plans one parameter a
            // column instead of one a value, and the statement is the same for any row count.
            insert.columns(columns as any).expression(
              sql`select * from unnest(${sql.join(columns.map((c) => sql`${null}::${sql.raw(DATE_COLUMNS.has(c) ? 'timestamptz' : 'text')}[]`))})`,
            )
          : insert.values(Array.from({ length: count }, nulls) as any);
      text = filled.onConflict((oc) => (table === 'chat_message_feedback' ? oc : oc.column('id')).doNothing()).compile().sql;
      this.insertSqlCache.set(key, text);
    }
    return text;
  }

  /** Inserts rows (all of one shape), skipping those that clash (see insertSql); answers how many were new. */
  private async insertChunks(
    trx: Transaction<Database>,
    table: keyof Database,
    rows: readonly object[],
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const columns = Object.keys(rows[0]!);
    if (this.kind === 'postgres') {
      const all = rows as Record<string, unknown>[];
      const parameters = columns.map((c) => all.map((row) => row[c]));
      const result = await trx.executeQuery(CompiledQuery.raw(this.insertSql(table, columns, rows.length), parameters));
      return Number(result.numAffectedRows ?? 0n);
    }
    let inserted = 0;
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK) as Record<string, unknown>[];
      // Parameters in the order kysely writes them: row by row, column by column.
      const parameters: unknown[] = [];
      for (const row of chunk) for (const c of columns) parameters.push(row[c]);
      const result = await trx.executeQuery(CompiledQuery.raw(this.insertSql(table, columns, chunk.length), parameters));
      inserted += Number(result.numAffectedRows ?? 0n);
    }
    return inserted;
  }

  // ---------------------------------------------------------------- variables

  async createVariable(input: VariableCreate): Promise<Variable> {
    const at = now();
    const row: VariableRow = {
      id: randomUUID(),
      name: input.name,
      value: input.value ?? '',
      type: input.type ?? 'static',
      createdDate: at,
      updatedDate: at,
    };
    await this.db.insertInto('variable').values(row).execute();
    return toVariable(row);
  }

  listVariables(page: PageRequest): Promise<Listing<Variable>> {
    return this.listing(
      () => this.db.selectFrom('variable').selectAll(),
      { column: 'updatedDate', key: 'updatedDate', id: 'id', order: 'desc' },
      page,
      toVariable,
    );
  }

  async updateVariable(id: string, patch: VariableUpdate): Promise<Variable | undefined> {
    const row = await this.db
      .updateTable('variable')
      .set({ ...pick(patch, ['name', 'value', 'type']), updatedDate: now() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toVariable(row);
  }

  async deleteVariable(id: string): Promise<number> {
    const r = await this.db.deleteFrom('variable').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async ingestVariables(variables: VariableIngest[]): Promise<number> {
    const at = now();
    const rows = variables.map((v): VariableRow => {
      const createdDate = storedDate(v.createdDate, at);
      return {
        id: v.id ?? randomUUID(),
        name: v.name,
        value: v.value ?? '',
        type: v.type ?? 'static',
        createdDate,
        updatedDate: storedDate(v.updatedDate, createdDate),
      };
    });
    return this.db.transaction().execute((trx) => this.insertChunks(trx, 'variable', rows));
  }

  // ---------------------------------------------------------------- feedback

  /**
   * The messages of these ids, each kept from being deleted until the transaction ends: feedback
   * is written only for a message that stays (on PostgreSQL by a KEY SHARE lock, there being no
   * foreign key, see migration 0003; on SQLite the write transaction holds off every other writer).
   */
  private async messagesToRate(trx: Transaction<Database>, ids: readonly string[]) {
    const messages = new Map<string, { id: string; chatflowid: string; chatId: string }>();
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      const q = trx.selectFrom('chat_message').select(['id', 'chatflowid', 'chatId']).where('id', 'in', ids.slice(i, i + INSERT_CHUNK));
      for (const m of await (this.kind === 'postgres' ? q.forKeyShare() : q).execute()) messages.set(m.id, m);
    }
    return messages;
  }

  async createFeedback(input: FeedbackCreate): Promise<Feedback> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const message = (await this.messagesToRate(trx, [input.messageId])).get(input.messageId);
        if (!message) throw notFound('message', input.messageId);
        for (const field of ['chatflowid', 'chatId'] as const) {
          const given = input[field];
          if (given !== undefined && given !== message[field]) {
            throw badRequest(`${field} ${given} does not match the message's ${field} ${message[field]}`);
          }
        }
        const row: FeedbackRow = {
          id: randomUUID(),
          chatflowid: message.chatflowid,
          chatId: message.chatId,
          messageId: message.id,
          rating: input.rating,
          content: input.content ?? null,
          createdDate: now(),
        };
        await trx.insertInto('chat_message_feedback').values(row).execute();
        return toFeedback(row);
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // (Asked after the transaction: on PostgreSQL a failed statement ends what it can do.)
      const existing = await this.db
        .selectFrom('chat_message_feedback')
        .select('id')
        .where('messageId', '=', input.messageId)
        .executeTakeFirst();
      throw conflict(
        `message ${input.messageId} already has feedback ${existing?.id ?? ''}: change it with PUT /feedback/${existing?.id ?? '{id}'}`,
      );
    }
  }

  listFeedback(filter: FeedbackFilter, order: SortOrder, page: PageRequest): Promise<Listing<Feedback>> {
    // As for messages: `+column` keeps SQLite on the (chatflow, chat) index when a date range is given too.
    const dateColumn = filter.chatId !== undefined && this.kind === 'sqlite' ? sql`+${sql.ref('createdDate')}` : 'createdDate';
    return this.listing(
      () =>
        this.db
          .selectFrom('chat_message_feedback')
          .selectAll()
          .where((eb) =>
            eb.and([
              eb('chatflowid', '=', filter.chatflowid),
              ...(filter.chatId !== undefined ? [eb('chatId', '=', filter.chatId)] : []),
              ...rangeConditions(eb as AnyEb, dateColumn, filter),
            ]),
          ),
      { column: 'createdDate', key: 'createdDate', id: 'id', order },
      page,
      toFeedback,
    );
  }

  async updateFeedback(id: string, patch: FeedbackUpdate): Promise<Feedback | undefined> {
    const set = pick(patch, ['rating', 'content']);
    const query = this.db.updateTable('chat_message_feedback').where('id', '=', id);
    const row =
      Object.keys(set).length > 0
        ? await query.set(set).returningAll().executeTakeFirst()
        : await this.db.selectFrom('chat_message_feedback').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toFeedback(row);
  }

  async ingestFeedback(feedback: FeedbackIngest[]): Promise<number> {
    const at = now();
    return this.db.transaction().execute(async (trx) => {
      // Each rated message must exist: its chatflow and chat fill in (or must match) the feedback's.
      const messages = await this.messagesToRate(trx, [...new Set(feedback.map((f) => f.messageId))]);
      const rows = feedback.map((f, i): FeedbackRow => {
        const message = messages.get(f.messageId);
        if (!message) throw badRequest(`[${i}].messageId: no message ${f.messageId} (import the messages first)`);
        for (const field of ['chatflowid', 'chatId'] as const) {
          const given = f[field];
          if (given !== undefined && given !== message[field]) {
            throw badRequest(`[${i}].${field} ${given} does not match the message's ${field} ${message[field]}`);
          }
        }
        return {
          id: f.id ?? randomUUID(),
          chatflowid: message.chatflowid,
          chatId: message.chatId,
          messageId: f.messageId,
          rating: f.rating,
          content: f.content ?? null,
          createdDate: storedDate(f.createdDate, at),
        };
      });
      return this.insertChunks(trx, 'chat_message_feedback', rows);
    });
  }

  // ---------------------------------------------------------------- assistants

  async createAssistant(input: AssistantCreate): Promise<Assistant> {
    const at = now();
    const row: AssistantRow = {
      id: randomUUID(),
      details: JSON.stringify(input.details),
      credential: input.credential ?? null,
      iconSrc: input.iconSrc ?? null,
      type: input.type ?? 'CUSTOM',
      createdDate: at,
      updatedDate: at,
    };
    await this.db.insertInto('assistant').values(row).execute();
    return toAssistant(row);
  }

  listAssistants(type: string | undefined, page: PageRequest): Promise<Listing<Assistant>> {
    return this.listing(
      () => {
        const q = this.db.selectFrom('assistant').selectAll();
        return type === undefined ? q : q.where('type', '=', type);
      },
      { column: 'createdDate', key: 'createdDate', id: 'id', order: 'asc' },
      page,
      toAssistant,
    );
  }

  async getAssistant(id: string): Promise<Assistant | undefined> {
    const row = await this.db.selectFrom('assistant').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAssistant(row);
  }

  async updateAssistant(id: string, patch: AssistantUpdate): Promise<Assistant | undefined> {
    return this.db.transaction().execute(async (trx) => {
      // details are merged: the row stays locked from this read to the write, or two merges at
      // once would each write their own key over the other's (SQLite's transactions are
      // IMMEDIATE, which locks as much already).
      const select = trx.selectFrom('assistant').selectAll().where('id', '=', id);
      const current = await (this.kind === 'postgres' ? select.forUpdate() : select).executeTakeFirst();
      if (!current) return undefined;
      const details = patch.details ? { ...JSON.parse(current.details), ...patch.details } : undefined;
      const row = await trx
        .updateTable('assistant')
        .set({
          ...pick(patch, ['credential', 'iconSrc', 'type']),
          ...(details ? { details: JSON.stringify(details) } : {}),
          updatedDate: now(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAssistant(row);
    });
  }

  async deleteAssistant(id: string): Promise<number> {
    const r = await this.db.deleteFrom('assistant').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async ingestAssistants(assistants: AssistantIngest[]): Promise<number> {
    const at = now();
    const rows = assistants.map((a): AssistantRow => {
      const createdDate = storedDate(a.createdDate, at);
      return {
        id: a.id ?? randomUUID(),
        details: JSON.stringify(a.details),
        credential: a.credential ?? null,
        iconSrc: a.iconSrc ?? null,
        type: a.type ?? 'CUSTOM',
        createdDate,
        updatedDate: storedDate(a.updatedDate, createdDate),
      };
    });
    return this.db.transaction().execute((trx) => this.insertChunks(trx, 'assistant', rows));
  }

  // ---------------------------------------------------------------- chat messages

  /** The exact-match and date conditions of a message filter, on columns prefixed by `p`. */
  private messageConditions(eb: AnyEb, f: MessageFilter, p: string): Expression<SqlBool> {
    const conditions: Expression<SqlBool>[] = [eb(`${p}chatflowid`, '=', f.chatflowid)];
    if (f.chatTypes?.length) conditions.push(eb(`${p}chatType`, 'in', f.chatTypes));
    let exact = false;
    for (const key of ['chatId', 'memoryType', 'sessionId'] as const) {
      if (f[key] !== undefined) {
        conditions.push(eb(`${p}${key}`, '=', f[key]));
        exact = true;
      }
    }
    // SQLite keeps no statistics, so with a date range it would pick the (chatflow, date) index
    // and scan the whole range; `+column` steers it to the index of the exact-match filter.
    const dateColumn = exact && this.kind === 'sqlite' ? sql`+${sql.ref(`${p}createdDate`)}` : `${p}createdDate`;
    conditions.push(...rangeConditions(eb, dateColumn, f));
    return eb.and(conditions);
  }

  private selectMessages(f: MessageFilter): AnySelect {
    const base = this.db.selectFrom('chat_message as m').selectAll('m');
    if (!f.withFeedback && !f.feedbackType) return base.where((eb) => this.messageConditions(eb as AnyEb, f, 'm.'));
    return base
      .innerJoin('chat_message_feedback as f', 'f.messageId', 'm.id')
      .select(['f.id as f_id', 'f.rating as f_rating', 'f.content as f_content', 'f.createdDate as f_createdDate'])
      .where((eb) =>
        eb.and([
          this.messageConditions(eb as AnyEb, f, 'm.'),
          ...(f.feedbackType ? [eb('f.rating', '=', f.feedbackType)] : []),
        ]),
      );
  }

  listMessages(filter: MessageFilter, order: SortOrder, page: PageRequest): Promise<Listing<ChatMessage>> {
    const plain = !filter.withFeedback && !filter.feedbackType;
    return this.listing(
      () => this.selectMessages(filter),
      // Joined with feedback, walking the messages in order to find the few with feedback would
      // cost more than sorting those few.
      { column: 'm.createdDate', key: 'createdDate', id: 'm.id', order, indexed: plain },
      page,
      toMessage,
      plain ? messageJson(this.kind, 'm.') : undefined,
    );
  }

  async deleteMessages(filter: MessageFilter): Promise<number> {
    // The messages, then the chatflow's feedback left without its message, a lookup per feedback
    // (feedback always has its message's chatflow): one transaction, so that no feedback outlives
    // its message. A cascade would look up the feedback of every deleted message instead.
    const removeAndSweep = (db: Kysely<Database>) =>
      db.transaction().execute(async (trx) => {
        const query = filter.feedbackType
          ? trx.deleteFrom('chat_message').where('id', 'in', this.selectMessages(filter).clearSelect().select('m.id'))
          : trx.deleteFrom('chat_message').where((eb) => this.messageConditions(eb as AnyEb, filter, ''));
        const deleted = Number((await query.executeTakeFirst()).numDeletedRows);
        await trx
          .deleteFrom('chat_message_feedback as f')
          .where('f.chatflowid', '=', filter.chatflowid)
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('chat_message as m').select(sql.lit(1).as('one')).whereRef('m.id', '=', 'f.messageId'))),
          )
          .execute();
        return deleted;
      });
    // PostgreSQL has no foreign key there (migration 0003).
    if (this.kind !== 'sqlite') return removeAndSweep(this.db);
    // SQLite keeps its key with its cascade: off for this one transaction (the pragma only takes
    // effect outside one).
    return this.db.connection().execute(async (conn) => {
      await sql`pragma foreign_keys = off`.execute(conn);
      try {
        return await removeAndSweep(conn);
      } finally {
        await sql`pragma foreign_keys = on`.execute(conn);
      }
    });
  }

  async ingestMessages(chatflowid: string, messages: ChatMessageIngest[]): Promise<number> {
    const at = now();
    const rows = messages.map(
      (m): ChatMessageRow => ({
        id: m.id ?? randomUUID(),
        role: m.role,
        chatflowid,
        content: m.content ?? '',
        ...(Object.fromEntries(MESSAGE_JSON_FIELDS.map((f) => [f, json(m[f])])) as Record<
          (typeof MESSAGE_JSON_FIELDS)[number],
          string | null
        >),
        chatType: m.chatType ?? 'INTERNAL',
        chatId: m.chatId ?? randomUUID(),
        memoryType: m.memoryType ?? null,
        sessionId: m.sessionId ?? null,
        leadEmail: m.leadEmail ?? null,
        createdDate: storedDate(m.createdDate, at),
      }),
    );
    return this.db.transaction().execute((trx) => this.insertChunks(trx, 'chat_message', rows));
  }

  // ---------------------------------------------------------------- upsert history

  listUpsertHistory(filter: UpsertFilter, order: SortOrder, page: PageRequest): Promise<Listing<UpsertHistory>> {
    return this.listing(
      () =>
        this.db
          .selectFrom('upsert_history')
          .selectAll()
          .where((eb) =>
            eb.and([
              eb('deletedDate', 'is', null),
              ...(filter.chatflowid !== undefined ? [eb('chatflowid', '=', filter.chatflowid)] : []),
              ...rangeConditions(eb as AnyEb, 'date', filter),
            ]),
          ),
      { column: 'date', key: 'date', id: 'id', order },
      page,
      toUpsert,
    );
  }

  async softDeleteUpsertHistory(chatflowid: string | undefined, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    let query = this.db
      .updateTable('upsert_history')
      .set({ deletedDate: now() })
      .where('id', 'in', ids)
      .where('deletedDate', 'is', null);
    if (chatflowid !== undefined) query = query.where('chatflowid', '=', chatflowid);
    const r = await query.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async ingestUpsertHistory(chatflowid: string, records: UpsertHistoryIngest[]): Promise<number> {
    const at = now();
    const rows = records.map(
      (r): UpsertHistoryRow => ({
        id: r.id ?? randomUUID(),
        chatflowid,
        result: JSON.stringify(r.result ?? {}),
        flowData: JSON.stringify(r.flowData ?? {}),
        date: storedDate(r.date, at),
        deletedDate: null,
      }),
    );
    return this.db.transaction().execute((trx) => this.insertChunks(trx, 'upsert_history', rows));
  }

  // ---------------------------------------------------------------- chatflows

  async listChatflows(): Promise<Chatflow[]> {
    // A loose index scan of each table: one seek per chatflow for the next id after the last,
    // where SELECT DISTINCT reads every row (a second for a million messages).
    const flow = sql.ref('chatflowid');
    const ids = (name: string, table: keyof Database, live = sql``) => sql`${sql.id(name)}(id) as (
      select min(${flow}) from ${sql.table(table)} where ${flow} is not null${live}
      union all
      select (select min(${flow}) from ${sql.table(table)} where ${flow} > ${sql.id(name)}.id${live})
        from ${sql.id(name)} where ${sql.id(name)}.id is not null)`;
    const { rows } = await sql<{ id: string }>`with recursive
      ${ids('m', 'chat_message')}, ${ids('f', 'chat_message_feedback')},
      ${ids('u', 'upsert_history', sql` and ${sql.ref('deletedDate')} is null`)}
      select id from m where id is not null
      union select id from f where id is not null
      union select id from u where id is not null
      order by id`.execute(this.db);
    return rows.map((r) => ({ id: r.id, name: r.id }));
  }

  async ping(): Promise<void> {
    await this.db.selectFrom('variable').select('id').limit(1).execute();
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

/** The given keys of a patch that are set (undefined means "leave as it is"). */
function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
