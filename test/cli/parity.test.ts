// One meaning on every server: the same `messages`, `feedback` and `upsert-history` commands against
// our service and against the Flowise fixture as 3.1.2 and as 3.1.4 (test/helpers/flowise-fixture.ts,
// which answers as those versions do: docs/spec/flowise-observed.md section 4, docs/spec/flowise-versions.md) list and
// delete the same records. Where Flowise cannot delete
// exactly what the listing shows, the CLI refuses (exit 2) and deletes nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, runCli } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { CHATFLOW_A, startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const at = (date: string) => `${date}.000Z`;
const MESSAGES = [
  { id: 'p1', role: 'userMessage', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1', memoryType: 'Buffer Memory', createdDate: at('2026-01-10T12:00:00') },
  { id: 'p2', role: 'apiMessage', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1', memoryType: 'Buffer Memory', createdDate: at('2026-01-10T12:00:05') },
  { id: 'p3', role: 'userMessage', chatType: 'EXTERNAL', chatId: 'c2', sessionId: 's2', memoryType: null, createdDate: at('2026-02-15T12:00:00') },
  { id: 'p4', role: 'apiMessage', chatType: 'EXTERNAL', chatId: 'c2', sessionId: 's2', memoryType: null, createdDate: at('2026-02-15T12:00:05') },
  // At midnight, stored by Flowise without milliseconds: on the bound of `--start-date 2026-03-20`.
  { id: 'p5', role: 'userMessage', chatType: 'EXTERNAL', chatId: 'c3', sessionId: 's3', memoryType: 'Buffer Memory', createdDate: at('2026-03-20T00:00:00') },
  { id: 'p6', role: 'apiMessage', chatType: 'EXTERNAL', chatId: 'c3', sessionId: 's3', memoryType: 'Buffer Memory', createdDate: at('2026-03-20T23:59:59') },
].map((m) => ({ ...m, content: `text of ${m.id}` }));
const RATINGS = [
  { messageId: 'p2', rating: 'THUMBS_UP', createdDate: at('2026-01-10T12:00:06') },
  { messageId: 'p4', rating: 'THUMBS_DOWN', createdDate: at('2026-02-15T12:00:06') },
  { messageId: 'p6', rating: 'THUMBS_UP', createdDate: at('2026-03-21T00:00:00') },
];

interface Target {
  name: string;
  /** The Flowise fixture behind it, if it is one. */
  fx?: () => FlowiseFixture;
  url: () => string;
  env: () => Record<string, string>;
  /** A new chatflow holding MESSAGES and RATINGS. */
  seed(flow: string): Promise<void>;
}

/** Message ids are unique across chatflows on our service: each chatflow's are prefixed with its id. */
const own = (flow: string) => ({
  messages: MESSAGES.map((m) => ({ ...m, id: `${flow}.${m.id}` })),
  ratings: RATINGS.map((r) => ({ ...r, id: randomUUID(), messageId: `${flow}.${r.messageId}`, chatId: MESSAGES.find((m) => m.id === r.messageId)!.chatId })),
});

let ours: TestServer;
let fx: FlowiseFixture;
let fx4: FlowiseFixture;

const flowise = (name: string, fixture: () => FlowiseFixture): Target => ({
  name,
  fx: fixture,
  url: () => fixture().url,
  env: () => ({ CHATFLOW_API_KEY: fixture().apiKey }),
  async seed(flow) {
    const { messages, ratings } = own(flow);
    fixture().seed(flow, { messages, feedback: ratings });
  },
});

const targets: Target[] = [
  {
    name: 'our service',
    url: () => ours.url,
    env: () => ({}),
    async seed(flow) {
      const { messages, ratings } = own(flow);
      const m = await call('POST', `${ours.api}/chatmessage/${flow}`, messages);
      expect(m.body, m.text).toEqual({ affected: messages.length });
      const f = await call('POST', `${ours.api}/feedback/import`, ratings);
      expect(f.body, f.text).toEqual({ affected: ratings.length });
    },
  },
  flowise('Flowise 3.1.2', () => fx),
  flowise('Flowise 3.1.4', () => fx4),
];

beforeAll(async () => {
  [ours, fx, fx4] = await Promise.all([startTestServer(), startFlowiseFixture(), startFlowiseFixture({ version: '3.1.4' })]);
  await Promise.all(targets.map((t) => t.seed('parity')));
});
afterAll(async () => {
  await Promise.all([ours?.dispose(), fx?.close(), fx4?.close()]);
});

const LISTS: [string, string[], string[]][] = [
  ['everything', [], ['p1', 'p2', 'p3', 'p4', 'p5', 'p6']],
  ['a plain --end-date is the whole day', ['--end-date', '2026-02-15'], ['p1', 'p2', 'p3', 'p4']],
  ['a plain --start-date takes a row stored at midnight', ['--start-date', '2026-03-20'], ['p5', 'p6']],
  ['both bounds are inclusive', ['--start-date', '2026-02-15T12:00:00Z', '--end-date', '2026-02-15T12:00:05Z'], ['p3', 'p4']],
  ['--chat-type, newest first', ['--chat-type', 'EXTERNAL', '--order', 'desc'], ['p6', 'p5', 'p4', 'p3']],
  ['--chat-type in any case, sent as the server spells it', ['--chat-type', 'external'], ['p3', 'p4', 'p5', 'p6']],
  ['--memory-type with --session-id', ['--memory-type', 'Buffer Memory', '--session-id', 's3'], ['p5', 'p6']],
  ['--feedback: only rated messages', ['--feedback'], ['p2', 'p4', 'p6']],
  ['--feedback-type: only those rated so', ['--feedback-type', 'down'], ['p4']],
  ['--page/--limit page the messages', ['--page', '2', '--limit', '2'], ['p3', 'p4']],
  ['--feedback with --page/--limit pages the rated messages', ['--feedback', '--page', '1', '--limit', '2'], ['p2', 'p4']],
];

const FEEDBACK_LISTS: [string, string[], string[]][] = [
  ['a lone --start-date', ['--start-date', '2099-01-01'], []],
  ['a lone plain --end-date, the whole day', ['--end-date', '2026-02-15'], ['p2', 'p4']],
  ['a lone --start-date on a row stored at midnight', ['--start-date', '2026-03-21'], ['p6']],
  ['--order desc', ['--order', 'desc'], ['p6', 'p4', 'p2']],
  ['--page/--limit', ['--page', '2', '--limit', '1'], ['p4']],
];

/**
 * [why, flags, messages left, ratings deleted with them, refused by Flowise]: Flowise's delete takes
 * every rating of a chat it touches (docs/spec/flowise-versions.md 1), so a delete of part of a chat whose kept
 * messages are rated is refused there (exit 2, nothing deleted), where our service deletes exactly.
 */
const DELETES: [string, string[], string[], number, boolean?][] = [
  ['--chat-id with a lone --start-date (Flowise alone deletes the whole chat)', ['--chat-id', 'c2', '--start-date', '2026-02-15T12:00:03Z'], ['p1', 'p2', 'p3', 'p5', 'p6'], 1],
  ['a plain --end-date covers that day', ['--end-date', '2026-02-15'], ['p5', 'p6'], 2],
  ['--chat-id with --start-date on a row stored at midnight', ['--chat-id', 'c3', '--start-date', '2026-03-20'], ['p1', 'p2', 'p3', 'p4'], 1],
  ['--chat-id with a lone --end-date (its rated answer is kept)', ['--chat-id', 'c1', '--end-date', '2026-01-10T12:00:02Z'], ['p2', 'p3', 'p4', 'p5', 'p6'], 0, true],
  ['--session-id', ['--session-id', 's1'], ['p3', 'p4', 'p5', 'p6'], 1],
  ['--chat-id with --chat-type and --memory-type', ['--chat-id', 'c3', '--chat-type', 'EXTERNAL', '--memory-type', 'Buffer Memory'], ['p1', 'p2', 'p3', 'p4'], 1],
];

describe.each(targets)('against $name', (target) => {
  const cli = (args: string[]) => runCli(args, { url: target.url(), env: target.env() });
  const ids = async (args: string[]) => {
    const r = await cli([...args, '-o', 'ndjson']);
    expect(r.exitCode, r.stderr).toBe(0);
    const id = (x: unknown) => (x as { messageId?: string }).messageId ?? (x as { id: string }).id;
    return parseNdjson(r.stdout).map((x) => id(x).replace(/^.*\./, ''));
  };

  it.each(LISTS)('messages list: %s', async (_why, flags, expected) => {
    expect(await ids(['messages', 'list', 'parity', ...flags])).toEqual(expected);
  });

  it.each(FEEDBACK_LISTS)('feedback list: %s', async (_why, flags, expected) => {
    expect(await ids(['feedback', 'list', 'parity', ...flags])).toEqual(expected);
  });

  it('a chatflow the server does not know lists nothing (exit 0), and a note says so', async () => {
    const r = await cli(['messages', 'list', '9e6a1f55-0000-4000-8000-000000000000', '-o', 'json']);
    expect([r.exitCode, JSON.parse(r.stdout), r.stderr.trim()]).toEqual([0, [], 'No messages found.\nno chatflow 9e6a1f55-0000-4000-8000-000000000000 on this server']);
  });

  it('the chat types of Flowise 3.1.3+ in any case, sent as the server spells them; one that cannot match is refused', async () => {
    const flow = 'chat-types';
    const typed = ['MCP', 'SCHEDULED', 'WEBHOOK'].map((chatType, i) => ({ ...MESSAGES[i]!, id: `${flow}.t${i}`, chatType }));
    if (target.fx) target.fx().seed(flow, { messages: typed });
    else expect((await call('POST', `${ours.api}/chatmessage/${flow}`, typed)).status).toBeLessThan(300);
    expect(await ids(['messages', 'list', flow, '--chat-type', 'mcp', '--chat-type', 'Webhook'])).toEqual(['t0', 't2']);
    const r = await cli(['messages', 'list', flow, '--chat-type', 'mcp2']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^chatflow[^:]*: invalid --chat-type "mcp2": use INTERNAL, EXTERNAL, EVALUATION, MCP, SCHEDULED or WEBHOOK/);
  });

  it('upsert-history list of a chatflow the server does not know: an empty list, exit 0', async () => {
    for (const flow of ['9e6a1f55-0000-4000-8000-000000000001', 'no-such-flow']) {
      const r = await cli(['upsert-history', 'list', flow, '-o', 'json']);
      expect([r.exitCode, JSON.parse(r.stdout), r.stderr]).toEqual([0, [], expect.any(String)]);
    }
  });

  it('upsert-history delete: what exists is deleted, each missing id reported by its id (exit 3)', async () => {
    const flow = 'history';
    const records = ['1', '2'].map((n) => ({ id: `${n}aaaaaaa-0000-4000-8000-00000000000${n}`, result: { numAdded: Number(n) }, flowData: {}, date: `2026-01-0${n}T00:00:00.000Z` }));
    if (target.fx) target.fx().seed(flow, { messages: [], upserts: records.map((u) => ({ ...u, result: JSON.stringify(u.result), flowData: '{}' })) });
    else expect((await call('POST', `${ours.api}/upsert-history/${flow}`, records)).status).toBeLessThan(300);
    const missing = '3aaaaaaa-0000-4000-8000-000000000003';
    const r = await cli(['upsert-history', 'delete', records[0]!.id, missing, '--yes']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(`deleted upsert history record ${records[0]!.id}`);
    expect(r.stderr).toContain(`upsert history record ${missing} not found`);
    expect(await ids(['upsert-history', 'list', flow])).toEqual([records[1]!.id]);
  });

  it('an unreadable date is exit 2 naming the flag', async () => {
    const r = await cli(['messages', 'list', 'parity', '--start-date', 'garbage']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^chatflow: invalid --start-date "garbage"/);
  });

  it.each(DELETES.map(([why, flags, left, ratings, refuses], i) => [why, flags, left, ratings, refuses ?? false, i] as const))('messages delete: %s', async (why, flags, left, ratings, flowiseRefuses, i) => {
    const flow = `del-${i}`;
    await target.seed(flow);
    const before = await ids(['messages', 'list', flow]);
    const rated = await ids(['feedback', 'list', flow]);
    if (flowiseRefuses && target.fx) {
      const r = await cli(['messages', 'delete', flow, ...flags, '--yes']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/^chatflow: this delete would also remove 1 rating of messages it keeps/);
      expect([await ids(['messages', 'list', flow]), await ids(['feedback', 'list', flow])]).toEqual([before, rated]);
      return;
    }
    const matched = before.length - left.length;
    const taken = ratings ? ` (and ${ratings} rating${ratings === 1 ? '' : 's'})` : '';
    const dry = await cli(['messages', 'delete', flow, ...flags, '--dry-run']);
    expect(dry.stderr, why).toContain(`${matched} message${matched === 1 ? '' : 's'}${taken} match`);
    const r = await cli(['messages', 'delete', flow, ...flags, '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deleted ${matched} message${matched === 1 ? '' : 's'}${taken}`);
    expect(await ids(['messages', 'list', flow])).toEqual(left);
    // Every rating of a message kept is still there.
    expect(await ids(['feedback', 'list', flow])).toEqual(rated.filter((id) => left.includes(id)));
  });
});

describe('where Flowise cannot delete exactly what the listing shows, the CLI refuses', () => {
  const cli = (args: string[]) => runCli(args, { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } });

  it.each([
    ['--feedback-type (Flowise also deletes the question before each rated answer)', ['--feedback-type', 'down'], /^chatflow: --feedback-type cannot be deleted exactly on this server/],
    ['--memory-type without --chat-id (Flowise ignores it)', ['--memory-type', 'Buffer Memory'], /^chatflow: --memory-type without --chat-id is ignored/],
  ])('%s: exit 2, one line, nothing deleted', async (_why, flags, message) => {
    fx.seed('refused', { messages: own('refused').messages });
    const deletes = () => fx.requests.filter((q) => q.method === 'DELETE').length;
    const n = deletes();
    const r = await cli(['messages', 'delete', 'refused', ...flags, '--yes']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(deletes()).toBe(n);
  });

  it('--dry-run shows the request Flowise really gets: explicit instants, the lone bound paired', async () => {
    fx.seed('dry', { messages: own('dry').messages });
    const r = await cli(['messages', 'delete', 'dry', '--chat-id', 'c2', '--start-date', '2026-02-15T12:00:03Z', '--dry-run', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'DELETE',
      path: `/api/v1/chatmessage/${fx.idOf('dry')}`,
      query: { chatId: 'c2', startDate: '2026-02-15T12:00:02.999Z', endDate: '9999-12-31T23:59:59.999Z' },
    });
  });
});

describe('PostgreSQL behind Flowise: bad input never reaches the database', () => {
  let pgfx: FlowiseFixture;
  beforeAll(async () => {
    pgfx = await startFlowiseFixture({ postgres: true });
  });
  afterAll(() => pgfx?.close());
  const cli = (args: string[]) => runCli(args, { url: pgfx.url, env: { CHATFLOW_API_KEY: pgfx.apiKey } });

  it.each([
    ['messages', 'No messages found.'],
    ['feedback', 'No feedback found.'],
    ['upsert-history', 'No upsert history records found.'],
  ])('%s list of a name that is no chatflow: empty, exit 0, as on every server; never sent', async (group, says) => {
    const r = await cli([group, 'list', 'demo-thing', '-o', 'json']);
    expect([r.exitCode, JSON.parse(r.stdout)]).toEqual([0, []]);
    expect(r.stderr).toContain(says);
    expect(pgfx.requests.filter((q) => q.url.includes('demo-thing'))).toEqual([]);
  });

  it('an unreadable date is refused before it is sent (exit 2)', async () => {
    const r = await cli(['feedback', 'list', CHATFLOW_A, '--start-date', 'garbage', '--end-date', 'garbage']);
    expect(r.exitCode).toBe(2);
    expect(pgfx.requests.filter((q) => q.url.includes('garbage'))).toEqual([]);
  });
});
