import { MESSAGE_JSON_FIELDS } from '../schema/enums.js';
import type { ChatMessage, ChatMessageIngest, Feedback } from '../schema/resources.js';
import { ChatFeedbackGuard, type RatedChat } from './chat-feedback.js';
import { routePath } from '../schema/paths.js';
import type { HttpCore, JsonText, ListResult, QueryInput } from './core.js';
import type { IngestStream } from './ingest-stream.js';
import type { FramedChunk } from './jsonStream.js';
import type { Dialect, ListPlan } from './dialect/index.js';
import { ChatflowError } from './errors.js';
import { type PageRequest, ofChatflow, plannedBatches, plannedList, plannedStream } from './listing.js';
import type { MessageDeleteQuery, MessageListQuery } from './queries.js';

export type { MessageDeleteQuery, MessageListQuery } from './queries.js';

/** A messages delete as it will be sent, and what it must remove. */
export interface MessageDeletePlan {
  method: 'DELETE';
  /** Below /api/v1. */
  path: string;
  /** The query as it will be sent to this server (translated by its dialect). */
  query: QueryInput;
  /** When chats are spared: one request per chat, each query, instead of `query`. */
  chats?: QueryInput[];
  /** How many messages the same filters list: what the delete must remove. */
  matched: number;
  /** Ratings of the matched messages: they go with them. */
  ratings: number;
  /**
   * Chats left out whole (`spareRatedChats`): the server would take the ratings of their kept
   * messages. Their matched messages are not counted in `matched`.
   */
  spared: RatedChat[];
  /** The feedback as it was, to check afterwards that nothing else went (Flowise). */
  guard?: ChatFeedbackGuard;
}

export interface PlanOptions {
  /**
   * Where the server's delete takes the ratings of every chat it touches (Flowise), leave out the
   * chats whose kept messages are rated, instead of refusing the delete.
   */
  spareRatedChats?: boolean;
}

/** Older Flowise versions answer the structured fields as strings holding JSON. */
export function normaliseMessage(item: unknown): ChatMessage {
  const m = item as Record<string, unknown>;
  if (!m || typeof m !== 'object') return m as ChatMessage;
  let out: Record<string, unknown> | undefined;
  for (const field of MESSAGE_JSON_FIELDS) {
    const v = m[field];
    if (typeof v !== 'string' || !/^\s*[[{]/.test(v)) continue;
    try {
      (out ??= { ...m })[field] = JSON.parse(v) as unknown;
    } catch {
      // not JSON after all: keep the string
    }
  }
  return (out ?? m) as ChatMessage;
}

const plural = (n: number) => `${n} message${n === 1 ? '' : 's'}`;

const takesFeedback = (chatflowId: string, chats: RatedChat[]) => {
  const ratings = chats.reduce((n, c) => n + c.ratings, 0);
  const named = chats.slice(0, 3).map((c) => `${c.chatId} (${c.ratings} rated)`).join(', ') + (chats.length > 3 ? ` and ${chats.length - 3} more` : '');
  return new ChatflowError(
    'refused',
    `the delete would also remove ${ratings} rating${ratings === 1 ? '' : 's'} of messages it keeps in chatflow ${chatflowId}: this server deletes every rating of a chat it touches (chats ${named})`,
    { code: 'DELETE_TAKES_FEEDBACK', ratedChats: chats },
  );
};

export function messagesApi(core: HttpCore, dialect: (opts?: { fresh?: boolean }) => Promise<Dialect>) {
  const dialectOf = dialect;
    /** How this server is asked for the chatflow's messages. */
  const planOf = async (chatflowId: string, query: MessageListQuery) => {
    const d = await dialect();
    return rated(chatflowId, ofChatflow(d, chatflowId, d.messageList(query)));
  };
  /** The chatflow's ratings, where the plan keeps rated messages by them. */
  const rated = <P extends { rated?: ListPlan<ChatMessage>['rated'] }>(chatflowId: string, plan: P): P =>
    plan.rated ? { ...plan, rated: { ...plan.rated, ratings: () => core.stream<Feedback>(routePath('listFeedback', chatflowId)) } } : plan;
  const nothing = (chatflowId: string, apiPath: string) =>
    new ChatflowError('http', `no chat messages of chatflow ${chatflowId} match`, { status: 404, method: 'DELETE', path: apiPath });

  /** The chatflow's feedback, for a server whose delete takes the ratings of whole chats. */
  const feedbackGuard = async (chatflowId: string): Promise<ChatFeedbackGuard> => {
    const rows: Feedback[] = [];
    for await (const f of core.stream<Feedback>(routePath('listFeedback', chatflowId))) rows.push(f);
    return new ChatFeedbackGuard(rows);
  };

  /**
   * The delete the server will be sent, translated so that it removes exactly what the same filters
   * list (counted here), or a `refused` error (exit 2) where this server cannot do that, or where
   * it would take the ratings of messages it keeps (Flowise: `DELETE_TAKES_FEEDBACK`, naming the
   * chats; `spareRatedChats` leaves those chats out instead).
   */
  const planDelete = async (chatflowId: string, query: MessageDeleteQuery = {}, opts: PlanOptions = {}): Promise<MessageDeletePlan> => {
    const apiPath = routePath('deleteMessages', chatflowId);
    // A delete asks which server it talks to afresh: a remembered answer may be out of date.
    const dialect = await dialectOf({ fresh: true });
    const d = dialect.messageDelete(query);
    if (dialect.noSuchChatflow(chatflowId)) return { method: 'DELETE', path: apiPath, query: d.query, matched: 0, ratings: 0, spared: [] };
    const guard = dialect.deleteTakesChatFeedback ? await feedbackGuard(chatflowId) : undefined;
    const chats = opts.spareRatedChats && guard ? new Map<string, number>() : undefined;
    let matched = 0;
    let ratings = 0;
    if (d.listing.clientPages || d.listing.keep || d.conflict || guard) {
      const { keep: _keep, ...all } = d.listing;
      for await (const m of plannedStream(core, apiPath, all, normaliseMessage)) {
        const conflict = d.conflict?.(m);
        if (conflict) throw conflict;
        if (d.listing.keep && !d.listing.keep(m)) continue;
        matched++;
        guard?.matched(m);
        chats?.set(m.chatId, (chats.get(m.chatId) ?? 0) + 1);
      }
      ratings = guard?.taken ?? 0;
    } else {
      const count = async (plan: typeof d.listing) => {
        const { items, total } = await plannedList(core, apiPath, plan, { page: 1, limit: 1 }, normaliseMessage);
        return total ?? items.length;
      };
      matched = await count(d.listing);
      ratings = matched === 0 ? 0 : query.feedbackType !== undefined ? matched : await count(dialect.messageList({ ...d.listing.query, feedback: true }));
    }
    const plan: MessageDeletePlan = { method: 'DELETE', path: apiPath, query: d.query, matched, ratings, spared: [], ...(guard ? { guard } : {}) };
    const collateral = guard?.collateral() ?? [];
    if (collateral.length === 0) return plan;
    if (!chats) throw takesFeedback(chatflowId, collateral);
    // Every other chat alone (with chatId, Flowise takes the ratings of that chat only).
    const spared = new Set(collateral.map((c) => c.chatId));
    const kept = [...chats.keys()].filter((chatId) => !spared.has(chatId));
    return {
      ...plan,
      chats: kept.map((chatId) => dialect.messageDelete({ ...query, chatId }).query),
      matched: matched - collateral.reduce((n, c) => n + c.messages, 0),
      ratings: ratings - guard!.takenIn(spared),
      spared: collateral,
    };
  };

  async function* streamTexts(chatflowId: string, query: MessageListQuery = {}): AsyncGenerator<string[]> {
    const plan = await planOf(chatflowId, query);
    if (!plan.keep && !plan.emptyOn && !plan.none && !plan.windows && !plan.rated) return yield* core.streamTexts(routePath('listMessages', chatflowId), plan.query, normaliseMessage);
    // A received chunk's messages together: the first come out as soon as they are read.
    for await (const batch of plannedBatches(core, routePath('listMessages', chatflowId), plan, normaliseMessage)) yield batch.map((m) => JSON.stringify(m));
  }

  return {
    list: async (chatflowId: string, query: MessageListQuery = {}): Promise<ListResult<ChatMessage>> => {
      const { page, limit, ...filters } = query;
      return plannedList(core, routePath('listMessages', chatflowId), await planOf(chatflowId, filters), { page, limit } satisfies PageRequest, normaliseMessage);
    },
    stream: async function* (chatflowId: string, query: MessageListQuery = {}): AsyncGenerator<ChatMessage> {
      yield* plannedStream(core, routePath('listMessages', chatflowId), await planOf(chatflowId, query), normaliseMessage);
    },
    /** stream, the messages of each chunk received together: for reading a long list at speed. */
    streamBatches: async function* (chatflowId: string, query: MessageListQuery = {}): AsyncGenerator<ChatMessage[]> {
      yield* plannedBatches(core, routePath('listMessages', chatflowId), await planOf(chatflowId, query), normaliseMessage);
    },
    /** The messages' JSON texts, a chunk at a time, for copying a list cheaply (see HttpCore.streamTexts). */
    streamTexts,
    /**
     * The messages' JSON texts as bytes, each between `prefix` and `suffix`, a chunk at a time:
     * the cheapest copy of a list (see HttpCore.streamFramed).
     */
    streamFramed: async function* (chatflowId: string, query: MessageListQuery, prefix: Buffer, suffix: Buffer): AsyncGenerator<FramedChunk> {
      const plan = await planOf(chatflowId, query);
      if (!plan.keep && !plan.emptyOn && !plan.none && !plan.windows && !plan.rated) return yield* core.streamFramed(routePath('listMessages', chatflowId), plan.query, normaliseMessage, prefix, suffix);
      const [head, tail] = [prefix.toString(), suffix.toString()];
      for await (const texts of streamTexts(chatflowId, query)) {
        yield { bytes: Buffer.from(texts.map((text) => `${head}${text}${tail}`).join('')), count: texts.length };
      }
    },
    planDelete,
    /**
     * Deletes what the filters list, and nothing more (no filter: every message of the chatflow),
     * with their feedback; sends the plan given, or plans it. Nothing matched is a 404 on every
     * server. Should the server report more removed than matched, or should ratings outside the
     * plan be gone afterwards (Flowise), that is an `inexact` error.
     */
    delete: async (chatflowId: string, query: MessageDeleteQuery | MessageDeletePlan = {}): Promise<{ affected: number }> => {
      const plan = 'matched' in query ? query : await planDelete(chatflowId, query);
      if (plan.matched === 0) throw nothing(chatflowId, plan.path);
      let affected = 0;
      for (const q of plan.chats ?? [plan.query]) affected += (await core.affected('DELETE', plan.path, { query: q })).affected;
      if (affected > plan.matched) {
        throw new ChatflowError(
          'inexact',
          `the server deleted ${plural(affected)} where the filters matched ${plural(plan.matched)}: ${affected - plan.matched} more than asked`,
          { method: 'DELETE', path: plan.path },
        );
      }
      if (plan.guard) {
        const after: Feedback[] = [];
        for await (const f of core.stream<Feedback>(routePath('listFeedback', chatflowId))) after.push(f);
        const lost = plan.guard.lost(after, new Set(plan.spared.map((c) => c.chatId)));
        if (lost > 0) {
          throw new ChatflowError('inexact', `the server also deleted ${lost} rating${lost === 1 ? '' : 's'} of messages that were kept`, {
            method: 'DELETE',
            path: plan.path,
          });
        }
      }
      return { affected };
    },
    /** Our service's extension (ids and dates kept); sent in batches under the body limit. */
    ingest: (chatflowId: string, messages: readonly (ChatMessageIngest | JsonText)[]): Promise<{ affected: number }> =>
      core.postBatches(routePath('ingestMessages', chatflowId), messages),
    /** Our service's extension, streamed: records written one by one, one request (see IngestStream). */
    ingestStream: (chatflowId: string): IngestStream => core.ingestStream(routePath('ingestMessages', chatflowId)),
  };
}

export type MessagesApi = ReturnType<typeof messagesApi>;
