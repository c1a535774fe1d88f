// A chat as `chats list` shows it: its messages summed up (one row per chatId), newest activity
// first. Our service answers it from one query (GET /chats/:id); on Flowise the client builds it
// from session pages (src/client/chats.ts).
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, FreeId, Nullable } from './common.js';

export const ChatSummary = Type.Object({
  chatId: FreeId,
  sessionId: Nullable(Type.String({ maxLength: 255 })),
  chatType: Type.String({ minLength: 1, maxLength: 64 }),
  /** The first and the last message's dates (within the date filters, when given). */
  firstDate: DateTime,
  lastDate: DateTime,
  messages: Type.Integer({ minimum: 1 }),
  /** The first user message's text; null when the chat has none. */
  firstQuestion: Nullable(Type.String()),
  up: Type.Integer({ minimum: 0 }),
  down: Type.Integer({ minimum: 0 }),
});
export type ChatSummary = Static<typeof ChatSummary>;
