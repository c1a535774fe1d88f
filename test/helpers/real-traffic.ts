// A chatflow shaped like real traffic (issue 38), the same every run: 400 chats of 2-20 messages
// lasting minutes and overlapping, over 40 days; three returning visitors whose chat goes on over
// weeks; one chat in twenty without a session id and one in twenty with a session id apart from its
// chat id; chat types INTERNAL, EXTERNAL and MCP; 50 rated answers, 6 rated down in sessionless
// chats; some rows stored without milliseconds; messages at one millisecond where the first windows
// meet, oldest and newest first (src/client/date-windows.ts). Rows as the Flowise fixture seeds them.
import type { SeedRow } from './flowise-fixture.js';

export const DAY = 86_400_000;
export const MINUTE = 60_000;
/** A whole second: the first message of the chat that ends first is here (where the first window ends). */
export const T0 = Date.UTC(2026, 8, 1, 8, 0, 0);
/** The last message of the chats that end last (where the first window newest first begins). */
export const TEND = T0 + 41 * DAY;

/** A small seeded generator (mulberry32): the same chatflow every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Chat {
  chatId: string;
  sessionId: string | null;
  chatType: string;
  memoryType: string | null;
  times: number[];
  /** Stored without milliseconds: which of its messages. */
  plain?: Set<number>;
}

export function realTraffic(): { messages: SeedRow[]; feedback: SeedRow[]; chats: Chat[] } {
  const rnd = random(38);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const chats: Chat[] = [];
  const kind = (n: number) => ({
    sessionId: n % 20 === 7 ? null : n % 20 === 13 ? `sess-${n}` : `chat-${n}`,
    chatType: n % 10 === 3 ? 'MCP' : n % 2 ? 'EXTERNAL' : 'INTERNAL',
    memoryType: n % 3 === 0 ? null : 'Buffer Memory',
  });
  // The chat that ends first (two messages from T0, a whole second, stored without milliseconds).
  chats.push({ chatId: 'chat-first', sessionId: 'chat-first', chatType: 'INTERNAL', memoryType: 'Buffer Memory', times: [T0, T0 + 10_000], plain: new Set([0]) });
  // Chats that meet it at T0 and hold messages at one millisecond a minute later (where the first
  // sized window ends), stored both ways.
  for (let k = 0; k < 3; k++) {
    chats.push({ chatId: `chat-edge-${k}`, sessionId: `chat-edge-${k}`, chatType: 'EXTERNAL', memoryType: null, times: [T0, T0 + 30_000, T0 + MINUTE, T0 + 2 * MINUTE, T0 + 5 * MINUTE], plain: new Set(k === 1 ? [0, 2] : []) });
  }
  // 400 chats of 2-20 messages, 5-90 s apart, starting at random over 40 days.
  for (let n = 0; n < 400; n++) {
    const length = 2 + Math.floor(rnd() * 19);
    let t = T0 + 10 * MINUTE + Math.floor(rnd() * 40 * DAY);
    const times: number[] = [];
    for (let i = 0; i < length; i++) times.push(t), (t += 5_000 + Math.floor(rnd() * 85_000));
    const plain = new Set(times.map((_, i) => i).filter(() => rnd() < 0.15));
    // Stored without milliseconds: the row's instant is its whole second.
    for (const i of plain) times[i] = Math.floor(times[i]! / 1000) * 1000;
    chats.push({ chatId: `chat-${n}`, ...kind(n), times, plain });
  }
  // Three returning visitors: one chat id, visits over weeks (the first before T0).
  for (let v = 0; v < 3; v++) {
    const times: number[] = [];
    for (let visit = 0; visit < 5; visit++) {
      const at = T0 - 2 * DAY + v * 3 * DAY + visit * 8 * DAY + Math.floor(rnd() * DAY);
      for (let i = 0; i < 4; i++) times.push(at + i * 20_000 + v);
    }
    chats.push({ chatId: `visitor-${v}`, sessionId: v === 2 ? null : `visitor-${v}`, chatType: 'EXTERNAL', memoryType: 'Buffer Memory', times });
  }
  // The chats that end last, at one millisecond, and a sessionless message with them; messages at
  // one millisecond a minute before (where the first sized window newest first begins).
  for (let k = 0; k < 2; k++) chats.push({ chatId: `chat-last-${k}`, sessionId: `chat-last-${k}`, chatType: 'INTERNAL', memoryType: null, times: [TEND - 3 * MINUTE, TEND - MINUTE, TEND], plain: new Set(k ? [1, 2] : []) });
  chats.push({ chatId: 'chat-last-none', sessionId: null, chatType: 'INTERNAL', memoryType: null, times: [TEND - MINUTE, TEND] });

  const messages: SeedRow[] = [];
  const answers: { row: SeedRow; chat: Chat }[] = [];
  for (const chat of chats) {
    chat.times.forEach((t, i) => {
      const row: SeedRow = {
        id: `${chat.chatId}-m${i}`,
        role: i % 2 ? 'apiMessage' : 'userMessage',
        content: `${i % 2 ? 'answer' : 'question'} ${i} of ${chat.chatId}`,
        chatId: chat.chatId,
        sessionId: chat.sessionId,
        chatType: chat.chatType,
        memoryType: chat.memoryType,
        createdDate: new Date(t).toISOString(),
        ms: !chat.plain?.has(i),
      };
      messages.push(row);
      if (i % 2) answers.push({ row, chat });
    });
  }
  // Stored in no date order (Flowise's rows come as they were written, chats interleaved).
  for (let i = messages.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [messages[i], messages[j]] = [messages[j]!, messages[i]!];
  }
  // 50 rated answers: 6 rated down in chats without a session, the rest at random.
  const sessionless = answers.filter((a) => a.chat.sessionId === null);
  const rated = new Set<SeedRow>(sessionless.slice(0, 6).map((a) => a.row));
  while (rated.size < 50) rated.add(pick(answers).row);
  const feedback = [...rated].map((row, i) => ({
    id: `fb-${i}`,
    chatId: String(row.chatId),
    messageId: row.id,
    rating: i < 6 || i % 3 === 0 ? 'THUMBS_DOWN' : 'THUMBS_UP',
    content: null,
    createdDate: new Date(Date.parse(row.createdDate) + MINUTE).toISOString(),
  }));
  return { messages, feedback, chats };
}

