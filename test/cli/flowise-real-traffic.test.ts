// A chatflow shaped like real traffic on Flowise (test/helpers/real-traffic.ts), listed through the
// built CLI and compared with the fixture's own whole list (the truth, filtered and sorted here):
// every filter, both orders and pages, on the 3.1.2 and 3.1.4 dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, runCli } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { DAY, MINUTE, T0, realTraffic } from '../helpers/real-traffic.js';

type Listed = { id: string; createdDate: string; chatType: string; chatId: string; sessionId: string | null; memoryType: string | null; feedback?: { rating: string } };

for (const version of ['3.1.2', '3.1.4']) {
  describe(`a chatflow shaped like real traffic, on Flowise ${version}`, () => {
    let fx: FlowiseFixture;
    let flow: string;
    /** Flowise's own whole list, as one request answers it, oldest and newest first. */
    let whole: Listed[];
    let wholeDesc: Listed[];
    const data = realTraffic();
    const ratingOf = new Map(data.feedback.map((f) => [f.messageId as string, f.rating as string]));

    beforeAll(async () => {
      fx = await startFlowiseFixture({ version });
      fx.seed('real', data);
      flow = fx.idOf('real');
      const get = async (query: string) =>
        (await (await fetch(`${fx.url}/api/v1/chatmessage/${flow}${query}`, { headers: { authorization: `Bearer ${fx.apiKey}` } })).json()) as Listed[];
      [whole, wholeDesc] = [await get(''), await get('?order=DESC')];
      expect(whole).toHaveLength(data.messages.length);
    });
    afterAll(() => fx?.close());

    /**
     * The truth: the whole list filtered and sorted by date, ties as Flowise orders them (kept by the
     * stable sort): in stored order both ways, a row stored without milliseconds before those with
     * at its instant oldest first, after them newest first (as the real 3.1.2 answered).
     */
    const truth = (keep: (m: Listed) => boolean, order: 'asc' | 'desc' = 'asc') => {
      const sign = order === 'desc' ? -1 : 1;
      return (order === 'desc' ? wholeDesc : whole)
        .filter(keep)
        .sort((a, b) => sign * (Date.parse(a.createdDate) - Date.parse(b.createdDate)))
        .map((m) => m.id);
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
