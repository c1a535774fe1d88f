// The store interface the routes talk to; SQLite and PostgreSQL implement it alike.
import type { SortOrder } from '../../schema/common.js';
import type {
  Assistant,
  AssistantCreate,
  AssistantIngest,
  AssistantUpdate,
  ChatMessage,
  ChatMessageIngest,
  Chatflow,
  Feedback,
  FeedbackCreate,
  FeedbackIngest,
  FeedbackUpdate,
  Rating,
  UpsertHistory,
  UpsertHistoryIngest,
  Variable,
  VariableCreate,
  VariableIngest,
  VariableUpdate,
} from '../../schema/resources.js';

/** `page`/`limit` both given: one page and the total; otherwise the whole result, streamed. */
export interface PageRequest {
  page?: number;
  limit?: number;
}

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
   * write them itself more cheaply; a streamed answer then sends these instead of `rows`.
   */
  texts?: AsyncIterable<readonly string[]>;
}

/** Inclusive bounds, already normalised to stored ISO strings. */
export interface DateRange {
  start?: string;
  end?: string;
}

export interface MessageFilter extends DateRange {
  chatflowid: string;
  chatTypes?: string[];
  chatId?: string;
  memoryType?: string;
  sessionId?: string;
  /** Only messages that have feedback (and attach it). */
  withFeedback?: boolean;
  /** Only messages whose feedback has this rating. */
  feedbackType?: Rating;
}

export interface FeedbackFilter extends DateRange {
  chatflowid: string;
  chatId?: string;
}

export interface UpsertFilter extends DateRange {
  /** Absent: every chatflow. */
  chatflowid?: string;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';

  createVariable(input: VariableCreate): Promise<Variable>;
  listVariables(page: PageRequest): Promise<Listing<Variable>>;
  updateVariable(id: string, patch: VariableUpdate): Promise<Variable | undefined>;
  deleteVariable(id: string): Promise<number>;
  /** Inserts in one transaction, ids and dates kept, existing ids skipped; answers how many were new. */
  ingestVariables(variables: VariableIngest[]): Promise<number>;

  /** Fills chatId/chatflowid from the message; throws ServiceError 404/400/409. */
  createFeedback(input: FeedbackCreate): Promise<Feedback>;
  listFeedback(filter: FeedbackFilter, order: SortOrder, page: PageRequest): Promise<Listing<Feedback>>;
  updateFeedback(id: string, patch: FeedbackUpdate): Promise<Feedback | undefined>;
  /**
   * Inserts in one transaction, ids and dates kept; skips existing ids and messages that already
   * have feedback; fills chatId/chatflowid from the message; throws ServiceError 400 for an unknown
   * message or a contradicting chatId/chatflowid.
   */
  ingestFeedback(feedback: FeedbackIngest[]): Promise<number>;

  createAssistant(input: AssistantCreate): Promise<Assistant>;
  listAssistants(type: string | undefined, page: PageRequest): Promise<Listing<Assistant>>;
  getAssistant(id: string): Promise<Assistant | undefined>;
  updateAssistant(id: string, patch: AssistantUpdate): Promise<Assistant | undefined>;
  deleteAssistant(id: string): Promise<number>;
  /** Inserts in one transaction, ids and dates kept, existing ids skipped; answers how many were new. */
  ingestAssistants(assistants: AssistantIngest[]): Promise<number>;

  listMessages(filter: MessageFilter, order: SortOrder, page: PageRequest): Promise<Listing<ChatMessage>>;
  /** Deletes the matching messages and their feedback; answers how many messages went. */
  deleteMessages(filter: MessageFilter): Promise<number>;
  /** Inserts the messages in one transaction, skipping ids that exist; answers how many were new. */
  ingestMessages(chatflowid: string, messages: ChatMessageIngest[]): Promise<number>;

  listUpsertHistory(filter: UpsertFilter, order: SortOrder, page: PageRequest): Promise<Listing<UpsertHistory>>;
  /** Marks the records deleted (they are kept, never listed again); answers how many were marked. */
  softDeleteUpsertHistory(chatflowid: string | undefined, ids: string[]): Promise<number>;
  ingestUpsertHistory(chatflowid: string, records: UpsertHistoryIngest[]): Promise<number>;

  listChatflows(): Promise<Chatflow[]>;

  /** Cheap round trip, for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
