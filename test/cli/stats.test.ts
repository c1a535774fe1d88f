// `chatflow stats`: numbers checked against a known data set, the terminal chart at a fixed width
// (no colour) as a snapshot, the other formats, and a Flowise-shaped server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, csvRecords, runCli, type CliOptions } from '../helpers/cli.js';
import { CHATFLOW_A, CHATFLOW_B, startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { runInPty } from '../helpers/pty.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let flowise: FlowiseFixture;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });
const chart = (args: string[]) => cli(['stats', ...args, '-o', 'table'], { env: { COLUMNS: '80' } });

const FLOW = 'stats-flow';

/** Eight messages over four days (one empty), three sessions (s1 spans days), tools, three ratings. */
const MESSAGES = [
  { id: 'm1', role: 'userMessage', sessionId: 's1', createdDate: '2026-03-01T09:00:00.000Z' },
  { id: 'm2', role: 'apiMessage', sessionId: 's1', createdDate: '2026-03-01T09:00:05.000Z', usedTools: [{ tool: 'search' }] },
  { id: 'm3', role: 'userMessage', sessionId: 's2', createdDate: '2026-03-01T10:00:00.000Z' },
  { id: 'm4', role: 'apiMessage', sessionId: 's2', createdDate: '2026-03-01T10:00:05.000Z', usedTools: [{ tool: 'search' }, { tool: 'calculator' }] },
  { id: 'm5', role: 'userMessage', sessionId: 's3', createdDate: '2026-03-03T08:00:00.000Z' },
  { id: 'm6', role: 'apiMessage', sessionId: 's3', createdDate: '2026-03-03T08:00:05.000Z', usedTools: [{ tool: 'calculator' }] },
  { id: 'm7', role: 'userMessage', sessionId: 's1', createdDate: '2026-03-03T23:59:59.999Z' },
  { id: 'm8', role: 'apiMessage', sessionId: 's1', createdDate: '2026-03-04T00:00:00.000Z', usedTools: [{ tool: 'search' }] },
].map((m) => ({ ...m, content: `text of ${m.id}`, chatId: `chat-${m.sessionId}`, chatType: m.id === 'm5' || m.id === 'm6' ? 'INTERNAL' : 'EXTERNAL' }));

interface Stats {
  messages: number;
  userMessages: number;
  apiMessages: number;
  sessions: number;
  feedback: { up: number; down: number; total: number; positiveRatio: number | null };
  tools: { tool: string; count: number }[];
  periods: { period: string; start: string; messages: number; sessions: number; up: number; down: number }[];
  startDate: string | null;
  endDate: string | null;
}

beforeAll(async () => {
  [server, flowise] = await Promise.all([startTestServer(), startFlowiseFixture()]);
  expect((await call('POST', `${server.api}/chatmessage/${FLOW}`, MESSAGES)).status).toBe(200);
  // Another chatflow's messages never count.
  expect((await call('POST', `${server.api}/chatmessage/other-flow`, [{ id: 'x1', role: 'userMessage', content: 'x', createdDate: '2026-03-01T09:00:00.000Z' }])).status).toBe(200);
  for (const [messageId, rating] of [['m2', 'THUMBS_UP'], ['m4', 'THUMBS_DOWN'], ['m6', 'THUMBS_UP']] as const) {
    expect((await call('POST', `${server.api}/feedback`, { messageId, rating })).status).toBe(200);
  }
});
afterAll(async () => {
  await Promise.all([server?.dispose(), flowise?.close()]);
});

describe('chatflow stats', () => {
  it('counts messages per day, sessions, ratings and tools (JSON when piped)', async () => {
    const r = await cli(['stats', FLOW]);
    expect(r.exitCode, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Stats;
    expect(s).toMatchObject({
      chatflowId: FLOW,
      by: 'day',
      timeZone: 'UTC',
      startDate: '2026-03-01T00:00:00.000Z',
      endDate: '2026-03-04T23:59:59.999Z',
      messages: 8,
      userMessages: 4,
      apiMessages: 4,
      sessions: 3,
      feedback: { up: 2, down: 1, total: 3, positiveRatio: 0.667 },
      tools: [
        { tool: 'search', count: 3 },
        { tool: 'calculator', count: 2 },
      ],
    });
    expect(s.periods.map(({ period, messages, sessions, up, down }) => [period, messages, sessions, up, down])).toEqual([
      ['2026-03-01', 4, 2, 1, 1],
      ['2026-03-02', 0, 0, 0, 0],
      ['2026-03-03', 3, 2, 1, 0],
      ['2026-03-04', 1, 1, 0, 0],
    ]);
  });

  it('keeps to --start-date/--end-date (plain dates are whole UTC days) and --chat-type', async () => {
    const r = await cli(['stats', FLOW, '--start-date', '2026-03-02', '--end-date', '2026-03-03', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Stats;
    expect(s).toMatchObject({ messages: 3, sessions: 2, feedback: { up: 1, down: 0, total: 1 }, startDate: '2026-03-02T00:00:00.000Z', endDate: '2026-03-03T23:59:59.999Z' });
    expect(s.periods.map((p) => [p.period, p.messages])).toEqual([
      ['2026-03-02', 0],
      ['2026-03-03', 3],
    ]);

    const external = JSON.parse((await cli(['stats', FLOW, '--chat-type', 'EXTERNAL', '-o', 'json'])).stdout) as Stats;
    expect(external).toMatchObject({ messages: 6, sessions: 2, feedback: { up: 1, down: 1 } });
  });

  it('counts per hour', async () => {
    const r = await cli(['stats', FLOW, '--by', 'hour', '--start-date', '2026-03-01T08:00:00Z', '--end-date', '2026-03-01T11:59:59Z', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Stats;
    expect(s.periods.map((p) => [p.period, p.messages, p.sessions, p.up, p.down])).toEqual([
      ['2026-03-01 08:00', 0, 0, 0, 0],
      ['2026-03-01 09:00', 2, 1, 1, 0],
      ['2026-03-01 10:00', 2, 1, 0, 1],
      ['2026-03-01 11:00', 0, 0, 0, 0],
    ]);
  });

  it('draws a chart on a terminal: one bar per day', async () => {
    const r = await chart([FLOW]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect(r.stdout).toMatchInlineSnapshot(`
      "stats-flow · 2026-03-01 → 2026-03-04 · per day (UTC)

      Messages  8 (4 from users, 4 answers) in 3 sessions
      Feedback  ▲ 2 up  ▼ 1 down  67% positive  ████████████████████░░░░░░░░░░
                read them: chatflow chats list stats-flow --feedback-type down
      Busiest   2026-03-01, 4 messages · 3 of 4 days active

      day         msgs  sess  ▲  ▼
      2026-03-01     4     2  1  1  █████████████████████████████████████████████████
      2026-03-02     0     0  ·  ·
      2026-03-03     3     2  1  ·  ████████████████████████████████████▊
      2026-03-04     1     1  ·  ·  ████████████▎

      Top tools
        search      3  ██████████████████████████████████████████████████████████████
        calculator  2  █████████████████████████████████████████▍
      "
    `);
    for (const line of r.stdout.split('\n')) expect([...line].length).toBeLessThan(80);
  });

  it('goes through the pager when taller than the screen, as a list does; --no-pager turns it off', async () => {
    const marker = `sh -c 'echo PAGED-BY-TEST; cat'`;
    const [tall, noPager] = await Promise.all([
      runInPty(['stats', FLOW], { url: server.url, columns: 80, rows: 10, env: { CHATFLOW_PAGER: marker } }),
      runInPty(['stats', FLOW, '--no-pager'], { url: server.url, columns: 80, rows: 10, env: { CHATFLOW_PAGER: marker } }),
    ]);
    expect(tall.exitCode, tall.screen).toBe(0);
    expect(tall.screen).toMatch(/^PAGED-BY-TEST\r?$/m);
    expect(tall.screen).toContain('Top tools');
    expect(noPager.screen).not.toContain('PAGED-BY-TEST');
    expect(noPager.screen).toContain('Top tools');
  });

  it('groups the digits of large counts, the busiest period too', async () => {
    const many = Array.from({ length: 1200 }, (_, i) => ({ role: 'userMessage', content: 'x', sessionId: 'busy', createdDate: `2026-04-01T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z` }));
    expect((await call('POST', `${server.api}/chatmessage/busy-flow`, many)).status).toBe(200);
    const r = await chart(['busy-flow']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('Messages  1,200 (1,200 from users, 0 answers) in 1 session');
    expect(r.stdout).toContain('Busiest   2026-04-01, 1,200 messages · 1 of 1 day active');
  });

  it('draws a sparkline when there are many periods', async () => {
    const r = await chart([FLOW, '--by', 'hour']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatchInlineSnapshot(`
      "stats-flow · 2026-03-01 09:00 → 2026-03-04 00:00 · per hour (UTC)

      Messages  8 (4 from users, 4 answers) in 3 sessions
      Feedback  ▲ 2 up  ▼ 1 down  67% positive  ████████████████████░░░░░░░░░░
                read them: chatflow chats list stats-flow --feedback-type down
      Busiest   2026-03-01 09:00, 2 messages · 5 of 64 hours active

      Messages per hour, 64 hours, 1 column = 1 hour, peak 2
      ██                                             █              ▄▄
      2026-03-01 09:00                                2026-03-04 00:00

      Top tools
        search      3  ██████████████████████████████████████████████████████████████
        calculator  2  █████████████████████████████████████████▍
      "
    `);
  });

  it('colours the chart only on a terminal with colour on', async () => {
    expect((await cli(['stats', FLOW], { tty: true })).stdout).toMatch(/\u001b\[/);
    expect((await cli(['stats', FLOW], { tty: true, env: { NO_COLOR: '1' } })).stdout).not.toMatch(/\u001b\[/);
  });

  it('writes one row per period as csv, and says so when there are no messages', async () => {
    const csv = await cli(['stats', FLOW, '-o', 'csv']);
    expect(csvRecords(csv.stdout).map((r) => [r.period, r.messages, r.up])).toEqual([
      ['2026-03-01', '4', '1'],
      ['2026-03-02', '0', '0'],
      ['2026-03-03', '3', '1'],
      ['2026-03-04', '1', '0'],
    ]);
    const empty = await chart(['no-such-flow']);
    expect(empty.exitCode).toBe(0);
    expect(empty.stdout).toContain('no messages');
    const unknown = await cli(['stats', 'no-such-flow']);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ messages: 0, sessions: 0, periods: [], feedback: { positiveRatio: null } });
    // A typo says so, as a list does.
    expect(unknown.stderr).toBe('no chatflow no-such-flow on this server\n');
    expect((await cli(['stats', 'stats-flw'])).stderr).toContain('no chatflow stats-flw on this server; did you mean stats-flow?');
  });

  it('rejects bad flags with exit 2', async () => {
    expect((await cli(['stats', FLOW, '--by', 'week'])).exitCode).toBe(2);
    expect((await cli(['stats', FLOW, '--start-date', 'someday'])).exitCode).toBe(2);
    expect((await cli(['stats', FLOW, '--start-date', '2026-03-05', '--end-date', '2026-03-01'])).exitCode).toBe(2);
  });

  it('a bad date is refused upfront, as messages list refuses it: before a chatflow name is looked up on the server', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const stats = await runCli(['stats', 'a flow name', '--start-date', 'garbage'], { url });
    const list = await runCli(['messages', 'list', 'a flow name', '--start-date', 'garbage'], { url });
    expect(stats.exitCode).toBe(2);
    expect(stats.stderr).toBe(list.stderr);
    expect(stats.stderr).toMatch(/^chatflow: invalid --start-date "garbage": give 2026-10-01, [^\n]*\n$/);
  });
});

describe('chatflow stats against a Flowise server', () => {
  const fx = (): CliOptions => ({ url: flowise.url, env: { CHATFLOW_API_KEY: flowise.apiKey } });

  it('reads ratings through the feedback list of messages and tools from string-encoded usedTools', async () => {
    const a = await runCli(['stats', CHATFLOW_A, '-o', 'json'], fx());
    expect(a.exitCode, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ messages: 6, sessions: 3, feedback: { up: 1, down: 1, total: 2, positiveRatio: 0.5 } });
    const b = await runCli(['stats', CHATFLOW_B, '-o', 'json'], fx());
    expect(JSON.parse(b.stdout)).toMatchObject({ messages: 2, tools: [{ tool: 'calculator', count: 1 }] });
    // Flowise ignores a lone date bound on some lists: the CLI keeps to it anyway.
    const feb = await runCli(['stats', CHATFLOW_A, '--start-date', '2026-02-01', '--end-date', '2026-02-28', '-o', 'json'], fx());
    expect(JSON.parse(feb.stdout)).toMatchObject({ messages: 2, feedback: { down: 1, up: 0 } });
  });
});
