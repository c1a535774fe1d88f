// `chatflow messages`: list with filters and bulk delete, over messages seeded through the
// service's ingest route (POST /api/v1/chatmessage/{chatflowId}).
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvRecords, parseNdjson, runCli, tableRows, type CliOptions } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });

const FLOW = 'flow-messages';

interface Message {
  id: string;
  role: string;
  content: string;
  chatType: string;
  sessionId: string | null;
  usedTools: unknown;
  feedback?: { rating: string } | null;
}

const SEED = [
  { id: 'm1', role: 'userMessage', content: 'hi', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1', createdDate: '2026-01-10T12:00:00.000Z' },
  {
    id: 'm2', role: 'apiMessage', content: 'hello, "you"\nsecond line', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1',
    createdDate: '2026-01-10T12:00:05.000Z', usedTools: [{ tool: 'calculator', toolInput: { x: '1+1' }, toolOutput: '2' }],
  },
  { id: 'm3', role: 'userMessage', content: 'question', chatType: 'EXTERNAL', chatId: 'c2', sessionId: 's2', createdDate: '2026-02-15T12:00:00.000Z' },
  { id: 'm4', role: 'apiMessage', content: 'answer', chatType: 'EXTERNAL', chatId: 'c2', sessionId: 's2', createdDate: '2026-02-15T12:00:05.000Z' },
  { id: 'm5', role: 'userMessage', content: 'late', chatType: 'EXTERNAL', chatId: 'c3', sessionId: 's3', createdDate: '2026-03-20T12:00:00.000Z' },
];

async function serverMessageIds(): Promise<string[]> {
  return (await call<Message[]>('GET', `${server.api}/chatmessage/${FLOW}`)).body.map((m) => m.id);
}

beforeAll(async () => {
  server = await startTestServer();
  const res = await call('POST', `${server.api}/chatmessage/${FLOW}`, SEED);
  expect(res.status, res.text).toBeLessThan(300);
  for (const [messageId, rating] of [['m2', 'THUMBS_UP'], ['m4', 'THUMBS_DOWN']]) {
    const fb = await call('POST', `${server.api}/feedback`, { messageId, rating });
    expect(fb.status, fb.text).toBeLessThan(300);
  }
});
afterAll(async () => {
  await server?.dispose();
});

describe('chatflow messages list', () => {
  it('an unknown chatflow: an empty list, exit 0, and a note naming the nearest chatflow the service knows', async () => {
    const r = await cli(['messages', 'list', 'flow-mesages', '-o', 'json']);
    expect([r.exitCode, r.stdout]).toEqual([0, '[]\n']);
    expect(r.stderr).toBe('No messages found.\nno chatflow flow-mesages on this server; did you mean flow-messages?\n');
    const far = await cli(['feedback', 'list', 'zzzz-unrelated', '-o', 'json']);
    expect(far.stderr).toBe('No feedback found.\nno chatflow zzzz-unrelated on this server\n');
  });

  it('a chatflow whose id is a UUID (data from Flowise) is taken by the start of it, as tables show it', async () => {
    const flow = '5e1f0a77-1234-4abc-8def-0123456789ab';
    await call('POST', `${server.api}/chatmessage/${flow}`, [{ id: 'uuid-flow-m1', role: 'userMessage', content: 'hi', chatType: 'INTERNAL', chatId: 'c', sessionId: 's' }]);
    const r = await cli(['messages', 'list', '5e1f0a77', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((m) => m.id)).toEqual(['uuid-flow-m1']);
  });

  it('ndjson prints the very messages json does, one JSON text a line (also with --feedback, and an empty list)', async () => {
    for (const extra of [[], ['--feedback']]) {
      const json = await cli(['messages', 'list', FLOW, '-o', 'json', ...extra]);
      const ndjson = await cli(['messages', 'list', FLOW, '-o', 'ndjson', ...extra]);
      expect(ndjson.exitCode, ndjson.stderr).toBe(0);
      const list = JSON.parse(json.stdout) as Message[];
      expect(list.length).toBeGreaterThan(1);
      expect(ndjson.stdout).toBe(list.map((m) => `${JSON.stringify(m)}\n`).join(''));
    }
    const none = await cli(['messages', 'list', FLOW, '-o', 'ndjson', '--session-id', 'nobody']);
    expect([none.exitCode, none.stdout, none.stderr.trim()]).toEqual([0, '', 'No messages found.']);
  });

  it('prints every message oldest first, structured fields as JSON (json)', async () => {
    const r = await cli(['messages', 'list', FLOW, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as Message[];
    expect(list.map((m) => m.id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(list[1]!.usedTools).toEqual(SEED[1]!.usedTools);
  });

  it('--session-id narrows; csv quotes commas, quotes and line breaks', async () => {
    const r = await cli(['messages', 'list', FLOW, '--session-id', 's1', '-o', 'csv', '--fields', 'id,content,usedTools']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(csvRecords(r.stdout)).toEqual([
      { id: 'm1', content: 'hi', usedTools: '' },
      { id: 'm2', content: 'hello, "you"\nsecond line', usedTools: JSON.stringify(SEED[1]!.usedTools) },
    ]);
  });

  it('--chat-type with --order desc, ids only', async () => {
    const r = await cli(['messages', 'list', FLOW, '--chat-type', 'EXTERNAL', '--order', 'desc', '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('m5\nm4\nm3\n');
  });

  it('--start-date and --end-date are inclusive; a plain end date is the whole day (ndjson)', async () => {
    const r = await cli(['messages', 'list', FLOW, '--start-date', '2026-01-10T12:00:05Z', '--end-date', '2026-02-15', '-o', 'ndjson', '--fields', 'id']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseNdjson(r.stdout)).toEqual([{ id: 'm2' }, { id: 'm3' }, { id: 'm4' }]);
  });

  it('--feedback keeps rated messages with their feedback; --feedback-type narrows (yaml)', async () => {
    const [all, down] = await Promise.all([
      cli(['messages', 'list', FLOW, '--feedback', '-o', 'yaml']),
      cli(['messages', 'list', FLOW, '--feedback-type', 'down', '-q']),
    ]);
    expect(all.exitCode, all.stderr).toBe(0);
    const rated = parseYaml(all.stdout) as Message[];
    expect(rated.map((m) => [m.id, m.feedback?.rating])).toEqual([['m2', 'THUMBS_UP'], ['m4', 'THUMBS_DOWN']]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(down.stdout).toBe('m4\n');
  });

  it('--page/--limit prints one page and the total on stderr', async () => {
    const r = await cli(['messages', 'list', FLOW, '--page', '2', '--limit', '2', '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('m3\nm4\n');
    expect(r.stderr).toContain('5 messages in all');
  });

  it('on a terminal: a table whose cells stay on one line', async () => {
    const r = await cli(['messages', 'list', FLOW, '--session-id', 's1'], { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    const [head, ...rows] = tableRows(r.stdout);
    expect(head).toEqual(['createdDate', 'role', 'sessionId', 'chatType', 'content', 'id']);
    expect(rows).toEqual([
      ['2026-01-10 12:00', 'userMessage', 's1', 'INTERNAL', 'hi', 'm1'],
      ['2026-01-10 12:00', 'apiMessage', 's1', 'INTERNAL', 'hello, "you" second line', 'm2'],
    ]);
  });

  it('an invalid --page is exit 2', async () => {
    const badPage = await cli(['messages', 'list', FLOW, '--page', '0']);
    expect(badPage.exitCode).toBe(2);
    expect(badPage.stderr).toMatch(/--page "0"/);
  });
});

describe('chatflow messages delete', () => {
  it('without --yes and no terminal: refuses with exit 2, saying how many would go', async () => {
    const r = await cli(['messages', 'delete', FLOW, '--session-id', 's2']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Delete 2 messages of chatflow flow-messages matching the filters.*refused without confirmation/);
    expect(await serverMessageIds()).toContain('m3');
  });

  it('--dry-run prints the request and deletes nothing', async () => {
    const r = await cli(['messages', 'delete', FLOW, '--session-id', 's2', '--chat-type', 'EXTERNAL', '--dry-run', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'DELETE',
      path: `/api/v1/chatmessage/${FLOW}`,
      query: { chatType: ['EXTERNAL'], sessionId: 's2' },
    });
    expect(await serverMessageIds()).toHaveLength(5);
  });

  it('--yes deletes the matching messages and their feedback', async () => {
    const r = await cli(['messages', 'delete', FLOW, '--session-id', 's2', '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('deleted 2 messages');
    expect(await serverMessageIds()).toEqual(['m1', 'm2', 'm5']);
    const feedback = (await call<{ messageId: string }[]>('GET', `${server.api}/feedback/${FLOW}`)).body;
    expect(feedback.map((f) => f.messageId)).toEqual(['m2']);
  });

  it('nothing matching is exit 0 with a note, with or without --yes', async () => {
    const [asked, forced] = await Promise.all([
      cli(['messages', 'delete', FLOW, '--session-id', 'nobody']),
      cli(['messages', 'delete', FLOW, '--session-id', 'nobody', '-y']),
    ]);
    for (const r of [asked, forced]) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/nothing was deleted/);
    }
    expect(await serverMessageIds()).toHaveLength(3);
  });
});
