// What a server dialect says: how the interface's meaning of a list or a delete is asked of one
// kind of server so that it answers exactly that meaning.
import type { ChatMessage, Feedback, UpsertHistory } from '../../schema/resources.js';
import type { QueryInput } from '../core.js';
import type { ChatflowError } from '../errors.js';
import type { FeedbackListQuery, MessageDeleteQuery, MessageListQuery, UpsertHistoryQuery } from '../queries.js';

/** `chatflow`: this project's service (the interface as docs/spec/SEMANTICS.md decides it). `flowise`: a Flowise 3.x server. */
export type ServerKind = 'chatflow' | 'flowise';

/** How one list is asked of the server. */
export interface ListPlan<T> {
  /** The query as sent. */
  query: QueryInput;
  /** Drops what the server answers beyond the meaning (the client filters the rest exactly). */
  keep?: (item: T) => boolean;
  /** The server ignores `page`/`limit` (or pages otherwise): the client pages the stream itself. */
  clientPages: boolean;
  /** An error that means "nothing to list" on this server. */
  emptyOn?: (err: ChatflowError) => boolean;
  /** Nothing to list, known without asking (see Dialect.noSuchChatflow). */
  none?: boolean;
  /**
   * A whole chatflow's messages that the server answers only whole, read by date windows instead
   * (Flowise: ../date-windows.ts) between these instants: the query's bounds, as read once.
   */
  windows?: { from?: number | undefined; to?: number | undefined };
  /**
   * Rated messages only (`rating`: of that rating), each with its `feedback`: decided by the client
   * from the chatflow's ratings (Flowise's own filter drops messages without a session).
   */
  rated?: {
    rating?: string | undefined;
    /** The chatflow's ratings (`GET /feedback/F`), given by the messages client, which knows the chatflow. */
    ratings?: () => AsyncIterable<Feedback>;
  };
}

/** How a messages delete is asked so that it removes exactly what the same filters list. */
export interface MessageDeleteTranslation {
  /** The DELETE's query as sent. */
  query: QueryInput;
  /** The listing whose kept records are exactly what the DELETE removes. */
  listing: ListPlan<ChatMessage>;
  /**
   * Records the listing's request answers that its `keep` drops but the DELETE would remove all
   * the same: if there are any, no exact delete exists.
   */
  conflict?: (m: ChatMessage) => ChatflowError | undefined;
}

export interface Dialect {
  readonly kind: ServerKind;
  /** The version the server reports (Flowise), when known. */
  readonly version?: string;
  /** An id no chatflow of this server can have (Flowise's are UUIDs): its lists are empty, unasked. */
  noSuchChatflow(chatflowId: string): boolean;
  /** Our service keeps a deleted upsert history record (never listed again); Flowise removes the row. */
  readonly upsertHistoryDelete: 'soft' | 'hard';
  /** A PATCH naming one unknown id deletes nothing of its batch (404: Flowise 3.1.3+). */
  readonly upsertDeleteAllOrNothing: boolean;
  /** `GET /upsert-history` answers only one chatflow's records (400 without one: Flowise 3.1.3+). */
  readonly upsertHistoryByChatflow: boolean;
  /**
   * The server's messages delete also removes every feedback of each chat it touches, on messages
   * it keeps too (Flowise): the client checks what a delete would take beyond its messages.
   */
  readonly deleteTakesChatFeedback: boolean;
  messageList(q: MessageListQuery): ListPlan<ChatMessage>;
  /** Throws a `refused` ChatflowError where this server cannot delete exactly that set. */
  messageDelete(q: MessageDeleteQuery): MessageDeleteTranslation;
  feedbackList(q: FeedbackListQuery): ListPlan<Feedback>;
  upsertHistoryList(q: UpsertHistoryQuery): ListPlan<UpsertHistory>;
}
