// A chatflow shaped like real traffic on Flowise, listed through the built CLI and compared with the
// fixture's own whole list (the truth, filtered and sorted here): 400 chats of 2-20 messages lasting
// minutes and overlapping, over 40 days; three returning visitors whose chat goes on over weeks; one
// chat in twenty without a session id and one in twenty with a session id apart from its chat id;
// chat types INTERNAL, EXTERNAL and MCP; 50 rated answers, some rated down in sessionless chats;
// some rows stored without milliseconds; messages at one millisecond where windows meet. On the 3.1.2
// and 3.1.4 dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, runCli } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture, type SeedRow } from '../helpers/flowise-fixture.js';

const DAY = 86_400_000;
const MINUTE = 60_000;
/** A whole second: the first message of the chat that ends first is here (where the first window ends). */
const T0 = Date.UTC(2026, 8, 1, 8, 0, 0);
/** The last message of the chats that end last (where the first window newest first begins). */
const TEND = T0 + 41 * DAY;

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

interface Chat {
  chatId: string;
  sessionId: string | null;
  chatType: string;
  memoryType: string | null;
  times: number[];
  /** Stored without milliseconds: which of its messages. */
  plain?: Set<number>;
}

function realTraffic(): { messages: SeedRow[]; feedback: SeedRow[]; chats: Chat[] } {
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

type Listed = { id: string; createdDate: string; chatType: string; chatId: string; sessionId: string | null; memoryType: string | null; feedback?: { rating: string } };

for (const version of ['3.1.2', '3.1.4']) {
  describe(`a chatflow shaped like real traffic, on Flowise ${version}`, () => {
    let fx: FlowiseFixture;
    let flow: string;
    /** Flowise's own whole list, as one request answers it. */
    let whole: Listed[];
    const data = realTraffic();
    const ratingOf = new Map(data.feedback.map((f) => [f.messageId as string, f.rating as string]));

    beforeAll(async () => {
      fx = await startFlowiseFixture({ version });
      fx.seed('real', data);
      flow = fx.idOf('real');
      const res = await fetch(`${fx.url}/api/v1/chatmessage/${flow}`, { headers: { authorization: `Bearer ${fx.apiKey}` } });
      whole = (await res.json()) as Listed[];
      expect(whole).toHaveLength(data.messages.length);
    });
    afterAll(() => fx?.close());

    /** The truth: the whole list filtered, sorted by date (stable: Flowise's order of ties kept), newest first reversed. */
    const truth = (keep: (m: Listed) => boolean, order: 'asc' | 'desc' = 'asc') => {
      const rows = whole.filter(keep).sort((a, b) => Date.parse(a.createdDate) - Date.parse(b.createdDate));
      return (order === 'desc' ? rows.reverse() : rows).map((m) => m.id);
    };
    const list = async (args: string[]) => {
      const n = fx.requests.length;
      fx.takeMaxInFlight();
      const r = await runCli(['messages', 'list', 'real', '-o', 'ndjson', ...args], { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } });
      expect(r.exitCode, r.stderr).toBe(0);
      // One request at a time, never the whole chatflow in one.
      expect(fx.takeMaxInFlight()).toBe(1);
      for (const q of fx.requests.slice(n).filter((q) => q.url.startsWith(`/api/v1/chatmessage/${flow}`))) {
        const p = new URL(q.url, 'http://x').searchParams;
        expect(p.has('startDate') || p.has('endDate') || p.has('page') || p.has('chatId') || p.has('sessionId'), q.url).toBe(true);
        expect(p.has('feedbackType'), q.url).toBe(false);
      }
      return parseNdjson(r.stdout) as Listed[];
    };
    const ids = (rows: Listed[]) => rows.map((m) => m.id);
    const t = (m: Listed) => Date.parse(m.createdDate);

    it('every message once, in date order, oldest and newest first', async () => {
      expect(ids(await list([]))).toEqual(truth(() => true));
      expect(ids(await list(['--order', 'desc']))).toEqual(truth(() => true, 'desc'));
    });

    it('--page and --limit: exactly those rows of the date order', async () => {
      expect(ids(await list(['--page', '3', '--limit', '40']))).toEqual(truth(() => true).slice(80, 120));
      expect(ids(await list(['--page', '2', '--limit', '25', '--order', 'desc']))).toEqual(truth(() => true, 'desc').slice(25, 50));
      expect(ids(await list(['--page', '4', '--limit', '7', '--chat-type', 'mcp']))).toEqual(truth((m) => m.chatType === 'MCP').slice(21, 28));
    });

    it('chat types, memory type, chat and session ids', async () => {
      expect(ids(await list(['--chat-type', 'mcp']))).toEqual(truth((m) => m.chatType === 'MCP'));
      expect(ids(await list(['--chat-type', 'internal', '--chat-type', 'external', '--order', 'desc']))).toEqual(
        truth((m) => m.chatType === 'INTERNAL' || m.chatType === 'EXTERNAL', 'desc'),
      );
      expect(ids(await list(['--memory-type', 'Buffer Memory']))).toEqual(truth((m) => m.memoryType === 'Buffer Memory'));
      expect(ids(await list(['--chat-id', 'visitor-1']))).toEqual(truth((m) => m.chatId === 'visitor-1'));
      expect(ids(await list(['--session-id', 'sess-13', '--order', 'desc']))).toEqual(truth((m) => m.sessionId === 'sess-13', 'desc'));
    });

    it('dates: bounds exact to the millisecond, rows stored without milliseconds on them included', async () => {
      const [start, end] = [T0 + MINUTE, T0 + 20 * DAY + 123];
      const inRange = (m: Listed) => t(m) >= start && t(m) <= end;
      expect(whole.filter((m) => t(m) === start).length).toBeGreaterThan(2);
      const args = ['--start-date', new Date(start).toISOString(), '--end-date', new Date(end).toISOString()];
      expect(ids(await list(args))).toEqual(truth(inRange));
      expect(ids(await list([...args, '--order', 'desc', '--chat-type', 'external']))).toEqual(truth((m) => inRange(m) && m.chatType === 'EXTERNAL', 'desc'));
      // Plain dates in UTC: whole days.
      const days = (m: Listed) => t(m) >= Date.UTC(2026, 8, 10) && t(m) < Date.UTC(2026, 8, 21);
      expect(ids(await list(['--start-date', '2026-09-10', '--end-date', '2026-09-20', '--utc']))).toEqual(truth(days));
    });

    it('--feedback and --feedback-type: every rated answer, sessionless chats included', async () => {
      const rated = await list(['--feedback']);
      expect(ids(rated)).toEqual(truth((m) => ratingOf.has(m.id)));
      expect(rated.map((m) => m.feedback?.rating)).toEqual(ids(rated).map((id) => ratingOf.get(id)));
      const down = await list(['--feedback-type', 'down']);
      expect(ids(down)).toEqual(truth((m) => ratingOf.get(m.id) === 'THUMBS_DOWN'));
      expect(down.filter((m) => m.sessionId === null).length).toBeGreaterThanOrEqual(6);
      expect(ids(await list(['--feedback', '--feedback-type', 'up', '--order', 'desc', '--chat-type', 'external']))).toEqual(
        truth((m) => ratingOf.get(m.id) === 'THUMBS_UP' && m.chatType === 'EXTERNAL', 'desc'),
      );
    });
  });
}
