// Feedback: one rating per chat message, its chatflow and chat taken from the message.
import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { SortOrder } from '../../schema/common.js';
import type { Feedback, FeedbackCreate, FeedbackIngest, FeedbackUpdate } from '../../schema/resources.js';
import { IN_LIST_CHUNK, isUniqueViolation, iso, pick, rangeConditions, type AnyEb, rowsOf, type Engine } from './engine.js';
import { now, storedDate } from './dates.js';
import { BadReference, Conflict, NotFound } from './errors.js';
import type { Database, FeedbackRow } from './tables.js';
import type { FeedbackFilter, FeedbackRepository, Listing, PageRequest } from './types.js';

export const toFeedback = (r: FeedbackRow): Feedback => ({
  id: r.id,
  chatflowid: r.chatflowid,
  chatId: r.chatId,
  messageId: r.messageId,
  rating: r.rating as Feedback['rating'],
  content: r.content,
  createdDate: iso(r.createdDate),
});

type RatedMessage = { id: string; chatflowid: string; chatId: string };

/** The message's chatflow and chat, which the feedback may repeat but not contradict. */
function contradiction(given: { chatflowid?: string; chatId?: string }, message: RatedMessage): string | undefined {
  for (const field of ['chatflowid', 'chatId'] as const) {
    const value = given[field];
    if (value !== undefined && value !== message[field]) return `${field} ${value} does not match the message's ${field} ${message[field]}`;
  }
  return undefined;
}

export class KyselyFeedback implements FeedbackRepository {
  constructor(private readonly engine: Engine) {}

  /**
   * The messages of these ids, each kept from being deleted until the transaction ends: feedback
   * is written only for a message that stays (on PostgreSQL by a KEY SHARE lock, there being no
   * foreign key, see migration 0003; on SQLite the write transaction holds off every other writer).
   */
  private async messagesToRate(trx: Transaction<Database>, ids: readonly string[]) {
    const messages = new Map<string, RatedMessage>();
    for (let i = 0; i < ids.length; i += IN_LIST_CHUNK) {
      const q = trx.selectFrom('chat_message').select(['id', 'chatflowid', 'chatId']).where('id', 'in', ids.slice(i, i + IN_LIST_CHUNK));
      for (const m of await (this.engine.kind === 'postgres' ? q.forKeyShare() : q).execute()) messages.set(m.id, m);
    }
    return messages;
  }

  async create(input: FeedbackCreate): Promise<Feedback> {
    const { db } = this.engine;
    try {
      return await db.transaction().execute(async (trx) => {
        const message = (await this.messagesToRate(trx, [input.messageId])).get(input.messageId);
        if (!message) throw new NotFound('message', input.messageId);
        const wrong = contradiction(input, message);
        if (wrong) throw new BadReference(wrong);
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
      const existing = await db
        .selectFrom('chat_message_feedback')
        .select('id')
        .where('messageId', '=', input.messageId)
        .executeTakeFirst();
      throw new Conflict(
        `message ${input.messageId} already has feedback ${existing?.id ?? ''}`.trimEnd(),
        existing && { what: 'feedback', id: existing.id },
      );
    }
  }

  list(filter: FeedbackFilter, order: SortOrder, page: PageRequest): Promise<Listing<Feedback>> {
    // As for messages: `+column` keeps SQLite on the (chatflow, chat) index when a date range is given too.
    const dateColumn = filter.chatId !== undefined && this.engine.kind === 'sqlite' ? sql`+${sql.ref('createdDate')}` : 'createdDate';
    return this.engine.listing(
      () =>
        this.engine.db
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

  async update(id: string, patch: FeedbackUpdate): Promise<Feedback> {
    const { db } = this.engine;
    const set = pick(patch, ['rating', 'content']);
    const row =
      Object.keys(set).length > 0
        ? await db.updateTable('chat_message_feedback').where('id', '=', id).set(set).returningAll().executeTakeFirst()
        : await db.selectFrom('chat_message_feedback').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new NotFound('feedback', id);
    return toFeedback(row);
  }

  ingest(feedback: FeedbackIngest[]): Promise<number> {
    const at = now();
    return this.engine.db.transaction().execute(async (trx) => {
      // Each rated message must exist: its chatflow and chat fill in (or must match) the feedback's.
      const messages = await this.messagesToRate(trx, [...new Set(feedback.map((f) => f.messageId))]);
      const rows = feedback.map((f, i): FeedbackRow => {
        const message = messages.get(f.messageId);
        if (!message) throw new BadReference(`[${i}].messageId: no message ${f.messageId} (import the messages first)`);
        const wrong = contradiction(f, message);
        if (wrong) throw new BadReference(`[${i}].${wrong}`);
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
      return this.engine.insertChunks(trx, 'chat_message_feedback', ...rowsOf(rows));
    });
  }
}
