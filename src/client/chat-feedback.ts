// What a messages delete takes beyond its messages on a server whose delete also removes every
// feedback of each chat it touches (Flowise: `ChatMessageFeedback.delete({ chatId })` for each
// chat of the deleted messages, on the messages it keeps too). The feedback of the chatflow is read
// once before the delete (it is small beside the messages), each matched message is checked against
// it as the listing streams by, and what would go unasked is named per chat.
import type { Feedback } from '../schema/resources.js';

/** A chat where a delete would take the ratings of messages it keeps. */
export interface RatedChat {
  chatId: string;
  /** Matched messages of this chat (what the delete would remove of it). */
  messages: number;
  /** Ratings of messages the delete keeps: what the server would remove unasked. */
  ratings: number;
}

/** The feedback of one chatflow, and the delete's matched messages checked against it. */
export class ChatFeedbackGuard {
  /** chatId → the rated message ids of that chat (a message may be rated more than once on Flowise). */
  private readonly rated = new Map<string, Map<string, number>>();
  /** Matched messages per rated chat, and which of that chat's rated messages are matched. */
  private readonly touched = new Map<string, { messages: number; ratedMatched: Set<string> }>();
  /** Every feedback id seen before the delete, and the message and chat it rates. */
  private readonly before = new Map<string, { messageId: string; chatId: string }>();
  /** Ratings of matched messages: they go with them. */
  taken = 0;

  constructor(feedback: Iterable<Pick<Feedback, 'id' | 'chatId' | 'messageId'>>) {
    for (const f of feedback) {
      this.before.set(f.id, { messageId: f.messageId, chatId: f.chatId });
      const chat = this.rated.get(f.chatId) ?? new Map<string, number>();
      chat.set(f.messageId, (chat.get(f.messageId) ?? 0) + 1);
      this.rated.set(f.chatId, chat);
    }
  }

  /** A message the delete matched. */
  matched(m: { id: string; chatId: string }): void {
    const chat = this.rated.get(m.chatId);
    if (!chat) return;
    let t = this.touched.get(m.chatId);
    if (!t) this.touched.set(m.chatId, (t = { messages: 0, ratedMatched: new Set() }));
    t.messages++;
    const ratings = chat.get(m.id);
    if (ratings !== undefined && !t.ratedMatched.has(m.id)) {
      t.ratedMatched.add(m.id);
      this.taken += ratings;
    }
  }

  /** Chats the delete touches whose kept messages are rated. */
  collateral(): RatedChat[] {
    const out: RatedChat[] = [];
    for (const [chatId, t] of this.touched) {
      let ratings = 0;
      for (const [messageId, n] of this.rated.get(chatId)!) if (!t.ratedMatched.has(messageId)) ratings += n;
      if (ratings > 0) out.push({ chatId, messages: t.messages, ratings });
    }
    return out;
  }

  /** Ratings of matched messages in these chats (left out of a delete that spares them). */
  takenIn(chats: ReadonlySet<string>): number {
    let n = 0;
    for (const chatId of chats) for (const id of this.touched.get(chatId)?.ratedMatched ?? []) n += this.rated.get(chatId)!.get(id)!;
    return n;
  }

  /**
   * How many ratings that were not on a deleted message are gone after the delete: `after` is the
   * feedback listed after it; chats in `spared` were left out of it.
   */
  lost(after: Iterable<{ id: string }>, spared: ReadonlySet<string> = new Set()): number {
    const left = new Set<string>();
    for (const f of after) left.add(f.id);
    let lost = 0;
    for (const [id, { messageId, chatId }] of this.before) {
      const deleted = !spared.has(chatId) && this.touched.get(chatId)?.ratedMatched.has(messageId);
      if (!left.has(id) && !deleted) lost++;
    }
    return lost;
  }
}
