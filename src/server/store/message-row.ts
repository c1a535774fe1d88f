// A message ingested as the row it is stored as: its values in the table's column order. Pure (no
// database, no kysely): a streamed ingest's parsing thread makes its rows with it (ingest-rows.ts),
// so that the thread that writes only binds them; the array form makes them in the store.
import { MESSAGE_JSON_FIELDS } from '../../schema/enums.js';
import type { ChatMessageIngest } from '../../schema/resources.js';
import { storedDate } from './dates.js';
import { newId } from './ids.js';
import { everyKey, type ChatMessageRow } from './tables.js';

/**
 * A message's fields, in the order it is answered (toMessage, messageJson, MESSAGE_COLUMNS) and
 * its row's values are: every column of the row, which the compiler holds to the schema's message.
 */
export const MESSAGE_KEYS = everyKey<ChatMessageRow>()([
  'id', 'role', 'chatflowid', 'content', ...MESSAGE_JSON_FIELDS, 'chatType', 'chatId', 'memoryType', 'sessionId', 'leadEmail', 'followUpPrompts', 'executionId', 'createdDate',
]);
type MessageKey = (typeof MESSAGE_KEYS)[number];
type JsonField = (typeof MESSAGE_JSON_FIELDS)[number];

/** A message row's values, in the order of MESSAGE_KEYS. */
export type MessageRowValues = unknown[];

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** The row of message `m` of `chatflowid`, ingested at `at`: its own id and date where it has them. */
export function messageRow(chatflowid: string, m: ChatMessageIngest, at: string): MessageRowValues {
  // Every field but the JSON ones as a literal (the compiler checks them), then all in order.
  const row: Record<string, unknown> = {
    id: m.id ?? newId(),
    role: m.role,
    chatflowid,
    content: m.content ?? '',
    chatType: m.chatType ?? 'INTERNAL',
    chatId: m.chatId ?? newId(),
    memoryType: m.memoryType ?? null,
    sessionId: m.sessionId ?? null,
    leadEmail: m.leadEmail ?? null,
    followUpPrompts: m.followUpPrompts ?? null,
    executionId: m.executionId ?? null,
    createdDate: storedDate(m.createdDate, at),
  } satisfies Record<Exclude<MessageKey, JsonField>, unknown>;
  for (const f of MESSAGE_JSON_FIELDS) row[f] = json(m[f]);
  const values: MessageRowValues = new Array(MESSAGE_KEYS.length);
  for (let i = 0; i < MESSAGE_KEYS.length; i++) values[i] = row[MESSAGE_KEYS[i]!];
  return values;
}
