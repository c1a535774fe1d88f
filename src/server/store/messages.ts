// Chat messages: the big table. Lists are streamed (as JSON the database writes itself when no
// feedback is joined), filters steer SQLite to the right index, deletes take the feedback along.
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { SortOrder } from '../../schema/common.js';
import { MESSAGE_FILTERS, type DateFilterKey, type MessageFilterKey } from '../../schema/filters.js';
import { MESSAGE_JSON_FIELDS } from '../../schema/enums.js';
import type { ChatMessage, ChatMessageIngest } from '../../schema/resources.js';
import { iso, jsonObject, rangeConditions, type AnyEb, type AnySelect, type Engine, type JsonColumn } from './engine.js';
import { now } from './dates.js';
import { MESSAGE_KEYS, messageRow, type MessageRowValues } from './message-row.js';
import { toFeedback } from './feedback.js';
import { DATE_COLUMNS, type ChatMessageRow, type Database, type FeedbackRow, type StoredDate } from './tables.js';
import type { ChatSummary } from '../../schema/chats.js';
import type { ChatFilter, Listing, MessageFilter, MessageRepository, PageRequest } from './types.js';

/** Messages a step of a delete on SQLite: some 10-30 ms of work, the longest a list waits. */
const DELETE_STEP = 1000;
/**
 * A delete on SQLite empties the table and writes back the messages that stay (see
 * deleteByEmptying) when at least EMPTIED_MIN messages go, at most KEPT_MAX stay, and those
 * that stay are at most one in EMPTIED_RATIO of those that go.
 */
const EMPTIED_MIN = 20_000;
const KEPT_MAX = 50_000;
const EMPTIED_RATIO = 8;
/** The exact-match filters' columns with an index (with the chatflow) of their own: migration 0004. */
const INDEXED_COLUMNS: ReadonlySet<string> = new Set(['chatId', 'sessionId']);

type KeyedFilter = Exclude<MessageFilterKey, DateFilterKey>;
/** A filter's value as the store applies it by key; an empty list of values is no filter. */
function givenValue<K extends KeyedFilter>(f: MessageFilter, key: K): MessageFilter[K] | undefined {
  const value = f[key];
  return Array.isArray(value) && value.length === 0 ? undefined : value;
}

/** Whether a filter takes fewer than all of a chatflow's messages in its date range. */
export const narrowed = (f: MessageFilter): boolean =>
  f.withFeedback === true || MESSAGE_FILTERS.some((def) => def.match !== 'dateBound' && givenValue(f, def.key) !== undefined);

const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

const JSON_KEYS: ReadonlySet<string> = new Set(MESSAGE_JSON_FIELDS);
type Kind = JsonColumn['kind'];
const kindOf = (k: string): Kind => (JSON_KEYS.has(k) ? 'json' : DATE_COLUMNS.has(k) ? 'date' : 'text');
const FIELDS: readonly { key: keyof ChatMessageRow; kind: Kind }[] = MESSAGE_KEYS.map((key) => ({ key, kind: kindOf(key) }));

function toMessage(r: ChatMessageRow & Partial<Record<`f_${keyof FeedbackRow}`, unknown>>): ChatMessage {
  const message: Record<string, unknown> = {};
  for (const { key, kind } of FIELDS) message[key] = kind === 'json' ? parseJson(r[key] as string | null) : kind === 'date' ? iso(r[key] as StoredDate) : r[key];
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
  // (Every field of the message: MESSAGE_KEYS holds every column of the row derived from it.)
  return message as unknown as ChatMessage;
}

/**
 * SQLite: a message row as the database itself writes it in JSON, the very text
 * JSON.stringify(toMessage(row)) gives: the same keys in the same order, strings escaped alike,
 * JSON columns as JSON.stringify wrote them. A streamed list then costs one string a row instead
 * of sixteen values, an object and a stringify: about a quarter of the work. (PostgreSQL's
 * driver writes it from the columns instead: MESSAGE_COLUMNS.)
 */
function messageJson(prefix: string): RawBuilder<string> {
  const value = (k: string) => (JSON_KEYS.has(k) ? sql`json(${sql.ref(`${prefix}${k}`)})` : sql.ref(`${prefix}${k}`));
  return jsonObject(MESSAGE_KEYS, value);
}

/** A delete of the chatflow's feedback left without its message (a lookup of each feedback's). */
const orphanedFeedback = (db: Kysely<Database>, chatflowid: string) =>
  db
    .deleteFrom('chat_message_feedback as f')
    .where('f.chatflowid', '=', chatflowid)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('chat_message as m').select(sql.lit(1).as('one')).whereRef('m.id', '=', 'f.messageId'))),
    );

/** A message's columns as PostgreSQL's driver writes them as JSON (JsonColumn): toMessage's keys. */
const MESSAGE_COLUMNS: readonly JsonColumn[] = FIELDS.map(({ key, kind }) => ({ key, ref: `m.${key}`, kind }));

export class KyselyMessages implements MessageRepository {
  constructor(private readonly engine: Engine) {}

  /** The conditions of a message filter but its rating (see select), on columns prefixed by `p`. */
  private conditions(eb: AnyEb, f: MessageFilter, p: string): Expression<SqlBool> {
    const conditions: Expression<SqlBool>[] = [eb(`${p}chatflowid`, '=', f.chatflowid)];
    let indexed = false;
    for (const def of MESSAGE_FILTERS) {
      switch (def.match) {
        case 'exact': {
          const value = givenValue(f, def.key);
          if (value === undefined) break;
          conditions.push(eb(`${p}${def.key}`, '=', value));
          indexed ||= INDEXED_COLUMNS.has(def.key);
          break;
        }
        case 'anyOf': {
          const values = givenValue(f, def.key);
          if (values !== undefined) conditions.push(eb(`${p}${def.key}`, 'in', values));
          break;
        }
        case 'dateBound': // the range, below
        case 'rating': // a join with the feedback (select)
          break;
        default:
          def satisfies never;
      }
    }
    // SQLite keeps no statistics, so with a date range it would pick the (chatflow, date) index
    // and scan the whole range; `+column` steers it to the index of the exact-match filter.
    const dateColumn = indexed && this.engine.kind === 'sqlite' ? sql`+${sql.ref(`${p}createdDate`)}` : `${p}createdDate`;
    conditions.push(...rangeConditions(eb, dateColumn, f));
    return eb.and(conditions);
  }

  private select(f: MessageFilter): AnySelect {
    const base = this.engine.db.selectFrom('chat_message as m').selectAll('m');
    if (!f.withFeedback && !f.feedbackType) return base.where((eb) => this.conditions(eb as AnyEb, f, 'm.'));
    return base
      .innerJoin('chat_message_feedback as f', 'f.messageId', 'm.id')
      .select(['f.id as f_id', 'f.rating as f_rating', 'f.content as f_content', 'f.createdDate as f_createdDate'])
      .where((eb) =>
        eb.and([
          this.conditions(eb as AnyEb, f, 'm.'),
          ...(f.feedbackType ? [eb('f.rating', '=', f.feedbackType)] : []),
        ]),
      );
  }

  list(filter: MessageFilter, order: SortOrder, page: PageRequest): Promise<Listing<ChatMessage>> {
    const plain = !filter.withFeedback && !filter.feedbackType;
    return this.engine.listing(
      () => this.select(filter),
      // Joined with feedback, walking the messages in order to find the few with feedback would
      // cost more than sorting those few.
      { column: 'm.createdDate', key: 'createdDate', id: 'm.id', order, indexed: plain },
      page,
      toMessage,
      plain ? (this.engine.kind === 'postgres' ? MESSAGE_COLUMNS : messageJson('m.')) : undefined,
    );
  }

  async delete(filter: MessageFilter, opts: { limit?: number } = {}): Promise<number> {
    const { db, kind } = this.engine;
    const limit = opts.limit ?? Infinity;
    // PostgreSQL has no foreign key there (migration 0003), and readers never wait for a writer:
    // one statement, then the chatflow's feedback left without its message, a lookup per feedback
    // (feedback always has its message's chatflow). One transaction, so that no feedback outlives
    // its message; a cascade would look up the feedback of every deleted message instead.
    if (kind !== 'sqlite') {
      return db.transaction().execute(async (trx) => {
        const ids = () => this.select(filter).clearSelect().select('m.id');
        const query =
          filter.feedbackType || opts.limit !== undefined
            ? trx.deleteFrom('chat_message').where('id', 'in', opts.limit !== undefined ? ids().limit(opts.limit) : ids())
            : trx.deleteFrom('chat_message').where((eb) => this.conditions(eb as AnyEb, filter, ''));
        const deleted = Number((await query.executeTakeFirst()).numDeletedRows);
        await orphanedFeedback(trx, filter.chatflowid).execute();
        return deleted;
      });
    }
    if (opts.limit === undefined) {
      const emptied = await this.deleteByEmptying(filter);
      if (emptied !== undefined) return emptied;
    }
    // SQLite runs on the service's thread: one statement deleting a million messages would hold
    // every request for seconds. One transaction still (all or nothing, and a random id index is
    // rewritten once, not once a step), deleting DELETE_STEP messages and their feedback a step,
    // with the event loop free between steps: lists read meanwhile on their own connection (see
    // Engine), from before the delete. Each step's messages are read off the index its filter
    // uses, which holds their ids and rowids: the feedback goes by message id, the messages by
    // rowid, so that no step looks each one up again in the (random) id index (a million messages
    // some 25% faster than by id). The key to the feedback stays, its cascade off for this
    // transaction (the pragma only takes effect outside one; the connection is ours throughout).
    // In (createdDate, id) order, which is the order rows were appended in as a rule: unordered,
    // SQLite walked the (chatflow, chat) index (any index of the chatflow covers id and rowid),
    // deleting all over the table and the date index.
    const rowid = sql<number>`${sql.ref('m.rowid')}`.as('rowid');
    const matching = () => this.select(filter).clearSelect().select(['m.id', rowid]).orderBy('m.createdDate').orderBy('m.id');
    return db.connection().execute(async (conn) => {
      await sql`pragma foreign_keys = off`.execute(conn);
      try {
        return await conn.transaction().execute(async (trx) => {
          let deleted = 0;
          for (;;) {
            const step = Math.min(DELETE_STEP, limit - deleted);
            const rows = step > 0 ? (await trx.executeQuery<{ id: string; rowid: number }>(matching().limit(step).compile())).rows : [];
            if (rows.length === 0) return deleted;
            const listed = (values: unknown[]) => sql<never>`(select value from json_each(${JSON.stringify(values)}))`;
            await trx.deleteFrom('chat_message_feedback').where('messageId', 'in', listed(rows.map((r) => r.id))).execute();
            const gone = await trx.deleteFrom('chat_message').where(sql.ref('rowid'), 'in', listed(rows.map((r) => r.rowid))).executeTakeFirst();
            deleted += Number(gone.numDeletedRows);
            if (rows.length < step) return deleted;
            await new Promise((resolve) => setImmediate(resolve));
          }
        });
      } finally {
        await sql`pragma foreign_keys = on`.execute(conn);
      }
    });
  }

  /**
   * SQLite, most of the table going (a chatflow's million messages, the others' thousands): the
   * messages that stay are set aside, the table emptied at once and they are written back, with
   * the feedback of those gone. Deleted a row at a time, each message leaves five B-trees (its
   * row, its id, three indexes), rebalancing pages as they empty: ~10 µs a message, 10 s for a
   * million. Emptied, SQLite frees the tables' pages whole (its truncate optimisation of a DELETE
   * without WHERE): some 0.2 s a million, and a WAL of a few pages instead of the whole database.
   * That one statement would hold the service's thread for as long, so the transaction runs on
   * the store's thread for long work (Engine.apart), the writer's connection held meanwhile
   * (other writes queue as behind any transaction); lists read the last committed state as
   * always. Only for a chatflow, or a chatflow's date range: what stays is then a few index
   * ranges (other chatflows', this one's before and after), counted first, each up to a bound.
   * Answers undefined when the delete is not of that kind.
   */
  private async deleteByEmptying(filter: MessageFilter): Promise<number | undefined> {
    const { db, apart } = this.engine;
    const { chatflowid: flow, start, end } = filter;
    if (!apart || narrowed(filter)) return undefined;
    type Where = (q: AnySelect) => AnySelect;
    const staying: Where[] = [
      (q) => q.where('chatflowid', '<', flow),
      (q) => q.where('chatflowid', '>', flow),
      ...(start ? [(q: AnySelect) => q.where('chatflowid', '=', flow).where('createdDate', '<', start)] : []),
      ...(end ? [(q: AnySelect) => q.where('chatflowid', '=', flow).where('createdDate', '>', end)] : []),
    ];
    return db.connection().execute(async (conn) => {
      /** Rows of `q`, counted up to `cap` (an index range read that far at most). */
      const upTo = async (q: AnySelect, cap: number) => {
        const n = await conn.selectFrom(q.select(sql.lit(1).as('one')).limit(cap).as('x')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        return Number(n.n);
      };
      const messages = () => conn.selectFrom('chat_message') as unknown as AnySelect;
      let kept = 0;
      for (const where of staying) {
        kept += await upTo(where(messages()), KEPT_MAX + 1 - kept);
        if (kept > KEPT_MAX) return undefined;
      }
      const enough = Math.max(EMPTIED_MIN, kept * EMPTIED_RATIO);
      if ((await upTo(messages().where((eb: AnyEb) => this.conditions(eb, filter, '')), enough)) < enough) return undefined;
      const rowid = sql.ref('rowid');
      const [first, ...rest] = staying.map((where) => where(messages().select(rowid.as('r'))));
      const rowids = rest.reduce((all, q) => all.unionAll(q), first!);
      const changes = await apart([
        sql`create temp table chat_message_kept as select * from chat_message where 0`.compile(db),
        sql`insert into temp.chat_message_kept select * from chat_message where rowid in (${rowids}) order by rowid`.compile(db),
        db.deleteFrom('chat_message').compile(),
        sql`insert into chat_message select * from temp.chat_message_kept order by rowid`.compile(db),
        sql`drop table temp.chat_message_kept`.compile(db),
        orphanedFeedback(db, flow).compile(),
      ]);
      return changes[2]! - changes[3]!;
    });
  }

  ingest(chatflowid: string, messages: ChatMessageIngest[]): Promise<number> {
    const at = now();
    return this.ingestRows(messages.map((m) => messageRow(chatflowid, m, at)));
  }

  ingestRows(rows: readonly MessageRowValues[]): Promise<number> {
    return this.engine.insertAll('chat_message', MESSAGE_KEYS, rows);
  }

  /**
   * One statement: the chats grouped off the (chatflow, chat, date) index of 0001 (PostgreSQL:
   * 0006), which holds every column the grouping reads, then for the page's chats only their first
   * message, first question and ratings (the feedback's (chatflow, chat) index of 0002). The
   * window count gives the total with the page. Ties of the last date go by chat id.
   */
  async chats(f: ChatFilter, page: { page: number; limit: number }): Promise<{ total: number; items: ChatSummary[] }> {
    const { db } = this.engine;
    const flow = f.chatflowid;
    const like = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}`;
    const groups = db
      .selectFrom('chat_message as m')
      .where((eb) => {
        const and: Expression<SqlBool>[] = [this.conditions(eb as AnyEb, { chatflowid: flow, chatType: f.chatType, sessionId: f.sessionId, start: f.start, end: f.end }, 'm.')];
        if (f.chatIdStart) and.push(sql<SqlBool>`${sql.ref('m.chatId')} like ${`${like(f.chatIdStart)}%`} escape '\\'`);
        if (f.feedbackType) {
          and.push(eb('m.chatId', 'in', db.selectFrom('chat_message_feedback as r').select('r.chatId').where('r.chatflowid', '=', flow).where('r.rating', '=', f.feedbackType)));
        }
        if (f.search) {
          const found = db
            .selectFrom('chat_message as s')
            .select('s.chatId')
            .where('s.chatflowid', '=', flow)
            .where(sql<SqlBool>`lower(${sql.ref('s.content')}) like ${`%${like(f.search)}%`} escape '\\'`);
          and.push(eb('m.chatId', 'in', found));
        }
        return eb.and(and);
      })
      .groupBy('m.chatId')
      .select((eb) => [
        'm.chatId as chatId',
        eb.fn.min('m.createdDate').as('firstDate'),
        eb.fn.max('m.createdDate').as('lastDate'),
        eb.fn.countAll<number>().as('messages'),
        sql<number>`count(*) over ()`.as('total'),
      ])
      .orderBy('lastDate', 'desc')
      .orderBy('m.chatId', 'desc')
      .limit(page.limit)
      .offset((page.page - 1) * page.limit);
    const inChat = (alias: string) => sql`${sql.ref(`${alias}.chatflowid`)} = ${flow} and ${sql.ref(`${alias}.chatId`)} = ${sql.ref('g.chatId')}`;
    const first = (column: string, where = sql``) =>
      sql`(select ${sql.ref(`q.${column}`)} from chat_message as q where ${inChat('q')} ${where} order by ${sql.ref('q.createdDate')}, ${sql.ref('q.id')} limit 1)`;
    const rated = (rating: string) => sql<number>`(select count(*) from chat_message_feedback as r where ${inChat('r')} and ${sql.ref('r.rating')} = ${rating})`;
    const within = sql.join([sql`and ${sql.ref('q.role')} = 'userMessage'`, ...(f.start ? [sql`and ${sql.ref('q.createdDate')} >= ${f.start}`] : []), ...(f.end ? [sql`and ${sql.ref('q.createdDate')} <= ${f.end}`] : [])], sql` `);
    const query = db
      .selectFrom(groups.as('g'))
      .selectAll('g')
      .select([
        first('sessionId').as('sessionId'),
        first('chatType').as('chatType'),
        first('content', within).as('firstQuestion'),
        rated('THUMBS_UP').as('up'),
        rated('THUMBS_DOWN').as('down'),
      ])
      .orderBy('g.lastDate', 'desc')
      .orderBy('g.chatId', 'desc');
    type Row = { chatId: string; firstDate: StoredDate; lastDate: StoredDate; messages: number | string; total: number | string; sessionId: string | null; chatType: string; firstQuestion: string | null; up: number | string; down: number | string };
    const rows = (await this.engine.read(query.compile())) as Row[];
    let total = rows.length ? Number(rows[0]!.total) : 0;
    if (rows.length === 0 && page.page > 1) total = (await this.chats(f, { page: 1, limit: 1 })).total;
    const items = rows.map((r) => ({
      chatId: r.chatId,
      sessionId: r.sessionId,
      chatType: r.chatType,
      firstDate: iso(r.firstDate),
      lastDate: iso(r.lastDate),
      messages: Number(r.messages),
      firstQuestion: r.firstQuestion,
      up: Number(r.up),
      down: Number(r.down),
    }));
    return { total, items };
  }
}
