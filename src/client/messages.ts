import { MESSAGE_JSON_FIELDS } from '../schema/enums.js';
import type { ChatMessage, ChatMessageIngest } from '../schema/resources.js';
import type { RouteQuery } from '../schema/routes.js';
import { type HttpCore, type ListResult, type QueryInput, path } from './core.js';

type QueryBool = boolean | 'true' | 'false' | '1' | '0';

export type MessageListQuery = Omit<RouteQuery<'listMessages'>, 'feedback' | 'chatType'> & {
  /** Only messages with feedback (each gets a `feedback` object). */
  feedback?: QueryBool;
  chatType?: string | string[];
};
export type MessageDeleteQuery = Omit<RouteQuery<'deleteMessages'>, 'hardDelete' | 'chatType'> & {
  hardDelete?: QueryBool;
  chatType?: string | string[];
};


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

/** `false` is left out: Flowise takes any value of `feedback`, even `false`, as true. */
function withBooleans(query: Record<string, unknown>, keys: string[]): QueryInput {
  const out: Record<string, unknown> = { ...query };
  for (const key of keys) {
    const v = out[key];
    if (v === false || v === 'false' || v === '0') delete out[key];
    else if (v === true || v === '1') out[key] = 'true';
  }
  return out as QueryInput;
}

export function messagesApi(core: HttpCore) {
  const listPath = (chatflowId: string) => path`/chatmessage/${chatflowId}`;
  return {
    list: (chatflowId: string, query: MessageListQuery = {}): Promise<ListResult<ChatMessage>> =>
      core.list(listPath(chatflowId), withBooleans(query, ['feedback']), normaliseMessage),
    stream: (chatflowId: string, query: MessageListQuery = {}): AsyncIterable<ChatMessage> =>
      core.stream(listPath(chatflowId), withBooleans(query, ['feedback']), normaliseMessage),
    /** The messages' JSON texts, a chunk at a time, for copying a list cheaply (see HttpCore.streamTexts). */
    streamTexts: (chatflowId: string, query: MessageListQuery = {}): AsyncIterable<string[]> =>
      core.streamTexts(listPath(chatflowId), withBooleans(query, ['feedback']), normaliseMessage),
    /** No filter deletes every message of the chatflow. */
    delete: (chatflowId: string, query: MessageDeleteQuery = {}): Promise<{ affected: number }> =>
      core.affected('DELETE', listPath(chatflowId), { query: withBooleans(query, ['hardDelete']) }),
    /** Our service's extension (ids and dates kept); sent in batches under the body limit. */
    ingest: (chatflowId: string, messages: readonly ChatMessageIngest[]): Promise<{ affected: number }> =>
      core.postBatches(listPath(chatflowId), messages),
  };
}

export type MessagesApi = ReturnType<typeof messagesApi>;
