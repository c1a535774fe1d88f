import { MESSAGE_JSON_FIELDS } from '../schema/enums.js';
import type { ChatMessage, ChatMessageIngest } from '../schema/resources.js';
import { type HttpCore, type JsonText, type ListResult, type QueryInput, path } from './core.js';
import type { FramedChunk } from './jsonStream.js';
import type { Dialect } from './dialect/index.js';
import { ChatflowError } from './errors.js';
import { type PageRequest, plannedBatches, plannedList, plannedStream } from './listing.js';
import type { MessageDeleteQuery, MessageListQuery } from './queries.js';

export type { MessageDeleteQuery, MessageListQuery } from './queries.js';

/** A messages delete as it will be sent, and what it must remove. */
export interface MessageDeletePlan {
  method: 'DELETE';
  /** Below /api/v1. */
  path: string;
  /** The query as it will be sent to this server (translated by its dialect). */
  query: QueryInput;
  /** How many messages the same filters list: what the delete must remove. */
  matched: number;
}

/** Older Flowise versions answer the structured fields as strings holding JSON. */
function normaliseMessage(item: unknown): ChatMessage {
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

export function messagesApi(core: HttpCore, dialect: (opts?: { fresh?: boolean }) => Promise<Dialect>) {
  const listPath = (chatflowId: string) => path`/chatmessage/${chatflowId}`;
  const nothing = (chatflowId: string, apiPath: string) =>
    new ChatflowError('http', `no chat messages of chatflow ${chatflowId} match`, { status: 404, method: 'DELETE', path: apiPath });

  /**
   * The delete the server will be sent, translated so that it removes exactly what the same filters
   * list (counted here), or a `refused` error (exit 2) where this server cannot do that.
   */
  const planDelete = async (chatflowId: string, query: MessageDeleteQuery = {}): Promise<MessageDeletePlan> => {
    const apiPath = listPath(chatflowId);
    // A delete asks which server it talks to afresh: a remembered answer may be out of date.
    const d = (await dialect({ fresh: true })).messageDelete(query);
    let matched = 0;
    if (d.listing.clientPages || d.listing.keep || d.conflict) {
      const { keep: _keep, ...all } = d.listing;
      for await (const m of plannedStream(core, apiPath, all, normaliseMessage)) {
        const conflict = d.conflict?.(m);
        if (conflict) throw conflict;
        if (!d.listing.keep || d.listing.keep(m)) matched++;
      }
    } else {
      const { items, total } = await plannedList(core, apiPath, d.listing, { page: 1, limit: 1 }, normaliseMessage);
      matched = total ?? items.length;
    }
    return { method: 'DELETE', path: apiPath, query: d.query, matched };
  };

  async function* streamTexts(chatflowId: string, query: MessageListQuery = {}): AsyncGenerator<string[]> {
    const plan = (await dialect()).messageList(query);
    if (!plan.keep && !plan.emptyOn) return yield* core.streamTexts(listPath(chatflowId), plan.query, normaliseMessage);
    let chunk: string[] = [];
    for await (const m of plannedStream(core, listPath(chatflowId), plan, normaliseMessage)) {
      chunk.push(JSON.stringify(m));
      if (chunk.length >= 1000) yield chunk.splice(0);
    }
    if (chunk.length) yield chunk;
  }

  return {
    list: async (chatflowId: string, query: MessageListQuery = {}): Promise<ListResult<ChatMessage>> => {
      const { page, limit, ...filters } = query;
      return plannedList(core, listPath(chatflowId), (await dialect()).messageList(filters), { page, limit } satisfies PageRequest, normaliseMessage);
    },
    stream: async function* (chatflowId: string, query: MessageListQuery = {}): AsyncGenerator<ChatMessage> {
      yield* plannedStream(core, listPath(chatflowId), (await dialect()).messageList(query), normaliseMessage);
    },
    /** stream, the messages of each chunk received together: for reading a long list at speed. */
    streamBatches: async function* (chatflowId: string, query: MessageListQuery = {}): AsyncGenerator<ChatMessage[]> {
      yield* plannedBatches(core, listPath(chatflowId), (await dialect()).messageList(query), normaliseMessage);
    },
    /** The messages' JSON texts, a chunk at a time, for copying a list cheaply (see HttpCore.streamTexts). */
    streamTexts,
    /**
     * The messages' JSON texts as bytes, each between `prefix` and `suffix`, a chunk at a time:
     * the cheapest copy of a list (see HttpCore.streamFramed).
     */
    streamFramed: async function* (chatflowId: string, query: MessageListQuery, prefix: Buffer, suffix: Buffer): AsyncGenerator<FramedChunk> {
      const plan = (await dialect()).messageList(query);
      if (!plan.keep && !plan.emptyOn) return yield* core.streamFramed(listPath(chatflowId), plan.query, normaliseMessage, prefix, suffix);
      const [head, tail] = [prefix.toString(), suffix.toString()];
      for await (const texts of streamTexts(chatflowId, query)) {
        yield { bytes: Buffer.from(texts.map((text) => `${head}${text}${tail}`).join('')), count: texts.length };
      }
    },
    planDelete,
    /**
     * Deletes what the filters list, and nothing more (no filter: every message of the chatflow),
     * with their feedback; sends the plan given, or plans it. Nothing matched is a 404 on every
     * server. Should the server report more removed than matched, that is an `inexact` error.
     */
    delete: async (chatflowId: string, query: MessageDeleteQuery | MessageDeletePlan = {}): Promise<{ affected: number }> => {
      const plan = 'matched' in query ? query : await planDelete(chatflowId, query);
      if (plan.matched === 0) throw nothing(chatflowId, plan.path);
      const { affected } = await core.affected('DELETE', plan.path, { query: plan.query });
      if (affected > plan.matched) {
        throw new ChatflowError(
          'inexact',
          `the server deleted ${plural(affected)} where the filters matched ${plural(plan.matched)}: ${affected - plan.matched} more than asked`,
          { method: 'DELETE', path: plan.path },
        );
      }
      return { affected };
    },
    /** Our service's extension (ids and dates kept); sent in batches under the body limit. */
    ingest: (chatflowId: string, messages: readonly (ChatMessageIngest | JsonText)[]): Promise<{ affected: number }> =>
      core.postBatches(listPath(chatflowId), messages),
  };
}

export type MessagesApi = ReturnType<typeof messagesApi>;
