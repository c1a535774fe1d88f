// The store interface the routes talk to: one repository per resource, SQLite and PostgreSQL
// alike. Its types come from the schema (records, bodies, query parameters); only what the store
// adds (inclusive instants instead of date bounds, the chatflow from the path) is written here.
// Refusals are the domain errors of ./errors.ts; database failures pass through as they are.
import type { Static, TObject } from '@sinclair/typebox';
import type { Pagination, SortOrder } from '../../schema/common.js';
import type { DateFilterKey, MessageFilterKey } from '../../schema/filters.js';
import type {
  Assistant,
  AssistantCreate,
  AssistantIngest,
  AssistantUpdate,
  ChatMessage,
  ChatMessageIngest,
  Chatflow,
  ChatflowFields,
  ChatflowDefinition,
  ChatflowIngest,
  ChatflowListItem,
  Feedback,
  FeedbackCreate,
  FeedbackIngest,
  FeedbackUpdate,
  UpsertHistory,
  UpsertHistoryIngest,
  Variable,
  VariableCreate,
  VariableIngest,
  VariableSet,
  VariableUpdate,
} from '../../schema/resources.js';
import type { ChatSummary } from '../../schema/chats.js';
import type { RouteQuery } from '../../schema/routes.js';
import type { Dialect } from './migrations.js';
import type { MessageRowValues } from './message-row.js';

/** `page`/`limit` both given: one page and the total; otherwise the whole result, streamed. */
export type PageRequest = Static<TObject<typeof Pagination>>;

export interface Listing<T> {
  /** Set when a page was asked for. */
  total?: number;
  /**
   * The rows a batch at a time (a page is one batch): a million rows cost an await per thousand,
   * not one each.
   */
  rows: AsyncIterable<readonly T[]> | Iterable<readonly T[]>;
  /**
   * The same rows as JSON texts (each exactly JSON.stringify of the row), when the database can
   * write them itself more cheaply; a streamed answer then sends these instead of `rows`. A batch
   * at a time as UTF-8 bytes, as the database wrote them: never decoded, never split.
   */
  texts?: AsyncIterable<JoinedRows>;
}

/** Between two rows of a list as the service sends it (a JSON array, one row a line). */
export const ROW_SEPARATOR = ',\n';

/**
 * `count` rows' JSON texts in UTF-8, joined by ROW_SEPARATOR: the bytes of `joined`, one after
 * the other (a row never spans two; PostgreSQL's batch of several MB is written into a few
 * buffers rather than one grown by copying).
 */
export interface JoinedRows {
  count: number;
  joined: readonly Buffer[];
}

/** Inclusive bounds, already normalised to stored ISO strings. */
export interface DateRange {
  start?: string;
  end?: string;
}

/** Every filter of the table (schema/filters.ts) as the route validated it; the dates as a DateRange. */
export interface MessageFilter extends DateRange, Pick<RouteQuery<'listMessages'>, Exclude<MessageFilterKey, DateFilterKey>> {
  chatflowid: ChatMessage['chatflowid'];
  /** Only messages that have feedback (and attach it); with `feedbackType`, of that rating. */
  withFeedback?: boolean;
}

/** Which chats `chats` sums up: their messages by the message filters, the chats by the rest. */
export interface ChatFilter extends DateRange, Pick<RouteQuery<'listChats'>, 'chatType' | 'sessionId' | 'feedbackType' | 'search' | 'chatIdStart'> {
  chatflowid: ChatMessage['chatflowid'];
}

export interface FeedbackFilter extends DateRange, Pick<RouteQuery<'listFeedback'>, 'chatId'> {
  chatflowid: Feedback['chatflowid'];
}

export interface UpsertFilter extends DateRange {
  /** Absent: every chatflow. */
  chatflowid?: UpsertHistory['chatflowid'];
}

/** Ingest: one transaction, ids and dates kept, existing ids skipped; answers how many were new. */
type Ingest<T> = (records: T[]) => Promise<number>;

export interface VariableRepository {
  create(input: VariableCreate): Promise<Variable>;
  list(page: PageRequest): Promise<Listing<Variable>>;
  /** Throws NotFound. */
  update(id: string, patch: VariableUpdate): Promise<Variable>;
  /** Answers how many went; throws NotFound when none. */
  delete(id: string): Promise<number>;
  ingest: Ingest<VariableIngest>;
  /**
   * Updates the one variable of this name, or creates it: one transaction, which sets of the same
   * name at once wait for (names are not unique: two of the name throw Conflict).
   */
  set(input: VariableCreate): Promise<VariableSet>;
}

export interface FeedbackRepository {
  /** Fills chatId/chatflowid from the message; throws NotFound (message), BadReference, Conflict. */
  create(input: FeedbackCreate): Promise<Feedback>;
  list(filter: FeedbackFilter, order: SortOrder, page: PageRequest): Promise<Listing<Feedback>>;
  /** Throws NotFound. */
  update(id: string, patch: FeedbackUpdate): Promise<Feedback>;
  /**
   * Also skips messages that already have feedback; fills chatId/chatflowid from the message;
   * throws BadReference for an unknown message or a contradicting chatId/chatflowid.
   */
  ingest: Ingest<FeedbackIngest>;
}

export interface AssistantRepository {
  create(input: AssistantCreate): Promise<Assistant>;
  list(type: Assistant['type'] | undefined, page: PageRequest): Promise<Listing<Assistant>>;
  /** Throws NotFound. */
  get(id: string): Promise<Assistant>;
  /** Merges `details`; throws NotFound. */
  update(id: string, patch: AssistantUpdate): Promise<Assistant>;
  /** Answers how many went; throws NotFound when none. */
  delete(id: string): Promise<number>;
  ingest: Ingest<AssistantIngest>;
}

export interface MessageRepository {
  list(filter: MessageFilter, order: SortOrder, page: PageRequest): Promise<Listing<ChatMessage>>;
  /**
   * Deletes the matching messages and their feedback; answers how many messages went. With
   * `limit`, at most that many (one transaction: a batch of a longer delete, as retention runs it).
   */
  delete(filter: MessageFilter, opts?: { limit?: number }): Promise<number>;
  ingest(chatflowid: string, messages: ChatMessageIngest[]): Promise<number>;
  /** Rows made by message-row.ts (a streamed ingest's, made on its parsing thread), as `ingest` writes them. */
  ingestRows(rows: readonly MessageRowValues[]): Promise<number>;
  /** One page of the chats, newest activity first, with how many there are in all: one query. */
  chats(filter: ChatFilter, page: { page: number; limit: number }): Promise<{ total: number; items: ChatSummary[] }>;
}

export interface UpsertHistoryRepository {
  list(filter: UpsertFilter, order: SortOrder, page: PageRequest): Promise<Listing<UpsertHistory>>;
  /** Marks the records deleted (they are kept, never listed again); answers how many were marked. */
  softDelete(chatflowid: string | undefined, ids: string[]): Promise<number>;
  ingest(chatflowid: string, records: UpsertHistoryIngest[]): Promise<number>;
}

// ---- chatflow definitions (issue 33)
export interface ChatflowRepository {
  create(input: ChatflowFields): Promise<ChatflowDefinition>;
  /** Every definition (of one type), by name. */
  list(type?: ChatflowDefinition['type']): Promise<ChatflowDefinition[]>;
  /** Throws NotFound. */
  get(id: string): Promise<ChatflowDefinition>;
  /** Throws NotFound. */
  update(id: string, patch: Partial<ChatflowFields>): Promise<ChatflowDefinition>;
  /** The definition only; answers how many went; throws NotFound when none. */
  delete(id: string): Promise<number>;
  ingest: Ingest<ChatflowIngest>;
}
// ---- end chatflow definitions

export interface Store {
  readonly kind: Dialect;
  readonly variables: VariableRepository;
  readonly feedback: FeedbackRepository;
  readonly assistants: AssistantRepository;
  readonly messages: MessageRepository;
  readonly upsertHistory: UpsertHistoryRepository;
  readonly chatflows: ChatflowRepository;

  /** Chatflow ids that have messages, feedback or upsert history. */
  listChatflows(): Promise<Chatflow[]>;
  /**
   * The chatflows stored (of one type), by name; then, without a type, the ids only records
   * name, as `{id, name: id}`.
   */
  listAllChatflows(type?: ChatflowDefinition['type']): Promise<ChatflowListItem[]>;
  /** Cheap round trip, for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
