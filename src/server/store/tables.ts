// Row shapes as stored. Dates are ISO strings (SQLite: TEXT; PostgreSQL: timestamptz, read back
// as Date); structured values are JSON text.
import type { MESSAGE_JSON_FIELDS } from '../../schema/enums.js';
import type { ChatMessage } from '../../schema/resources.js';

export type StoredDate = string | Date;

/** The columns that hold a StoredDate, in any table (timestamptz on PostgreSQL). */
export const DATE_COLUMNS: ReadonlySet<string> = new Set(['createdDate', 'updatedDate', 'date', 'deletedDate']);

export interface VariableRow {
  id: string;
  name: string;
  value: string;
  type: string;
  createdDate: StoredDate;
  updatedDate: StoredDate;
}

export interface FeedbackRow {
  id: string;
  chatflowid: string;
  chatId: string;
  messageId: string;
  rating: string;
  content: string | null;
  createdDate: StoredDate;
}

export interface AssistantRow {
  id: string;
  details: string;
  credential: string | null;
  iconSrc: string | null;
  type: string;
  createdDate: StoredDate;
  updatedDate: StoredDate;
}

/**
 * A message as stored: every field of the schema's message (schema/resources.ts) but its joined
 * feedback, the JSON ones as text, the date a StoredDate. A field added there is a column here,
 * which store/messages.ts must answer and write (the compiler says where).
 */
export type ChatMessageRow = {
  [K in Exclude<keyof ChatMessage, 'feedback'>]-?: K extends (typeof MESSAGE_JSON_FIELDS)[number] ? string | null : K extends 'createdDate' ? StoredDate : ChatMessage[K];
};

/** `keys` as given, when they name every key of T; a key left out fails the compile (`missing` names it). */
export const everyKey =
  <T>() =>
  <const K extends readonly (keyof T)[]>(keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, K[number]> })): K =>
    keys;

export interface UpsertHistoryRow {
  id: string;
  chatflowid: string;
  result: string;
  flowData: string;
  date: StoredDate;
  deletedDate: StoredDate | null;
}

// ---- chatflow definitions (issue 33)
export interface ChatflowRow {
  id: string;
  name: string;
  flowData: string;
  type: string;
  /** 'true' / 'false' / null: kept as text (a PostgreSQL bulk insert passes every column as text). */
  deployed: string | null;
  isPublic: string | null;
  apikeyid: string | null;
  category: string | null;
  chatbotConfig: string | null;
  apiConfig: string | null;
  analytic: string | null;
  speechToText: string | null;
  textToSpeech: string | null;
  followUpPrompts: string | null;
  mcpServerConfig: string | null;
  createdDate: StoredDate;
  updatedDate: StoredDate;
}
// ---- end chatflow definitions

export interface Database {
  variable: VariableRow;
  chat_message_feedback: FeedbackRow;
  assistant: AssistantRow;
  chat_message: ChatMessageRow;
  upsert_history: UpsertHistoryRow;
  chat_flow: ChatflowRow;
}
