// `chatflow feedback`: list, create, update against a real service holding ingested messages.
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvRecords, parseNdjson, runCli, tableRows, type CliOptions } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });

const FLOW = 'flow-feedback';

interface Feedback {
  id: string;
  chatflowid: string;
  chatId: string;
  messageId: string;
  rating: string;
  content: string | null;
  createdDate: string;
}

beforeAll(async () => {
  server = await startTestServer();
  const messages = [
    { id: 'm1', role: 'userMessage', content: 'hi', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1', createdDate: '2026-01-10T12:00:00.000Z' },
    { id: 'm2', role: 'apiMessage', content: 'hello', chatType: 'INTERNAL', chatId: 'c1', sessionId: 's1', createdDate: '2026-01-10T12:00:05.000Z' },
    { id: 'm3', role: 'userMessage', content: 'again', chatType: 'EXTERNAL', chatId: 'c2', sessionId: 's2', createdDate: '2026-02-10T12:00:00.000Z' },
    { id: 'm4', role: 'apiMessage', content: 'answer', chatType: 'EXTERNAL', chatId: 'c2', sessionId: 's2', createdDate: '2026-02-10T12:00:05.000Z' },
  ];
  const res = await call('POST', `${server.api}/chatmessage/${FLOW}`, messages);
  expect(res.status, res.text).toBeLessThan(300);
});
afterAll(async () => {
  await server?.dispose();
});

async function serverFeedback(): Promise<Feedback[]> {
  return (await call<Feedback[]>('GET', `${server.api}/feedback/${FLOW}`)).body;
}

describe('chatflow feedback', () => {
  it('create rates a message; its chat and chatflow are filled in (json)', async () => {
    const r = await cli(['feedback', 'create', '--message-id', 'm2', '--rating', 'up', '--content', 'spot on', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ messageId: 'm2', chatId: 'c1', chatflowid: FLOW, rating: 'THUMBS_UP', content: 'spot on' });
  });

  it('create with THUMBS_DOWN spelled out, printed as yaml', async () => {
    const r = await cli(['feedback', 'create', '--message-id', 'm4', '--rating', 'THUMBS_DOWN', '-o', 'yaml']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseYaml(r.stdout)).toMatchObject({ messageId: 'm4', chatId: 'c2', rating: 'THUMBS_DOWN' });
  });

  it('a second rating of the same message is refused with exit 2', async () => {
    const r = await cli(['feedback', 'create', '--message-id', 'm2', '--rating', 'down']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/already has feedback/);
    expect((await serverFeedback()).filter((f) => f.messageId === 'm2')).toHaveLength(1);
  });

  it('rating an unknown message is exit 3', async () => {
    const r = await cli(['feedback', 'create', '--message-id', 'no-such-message', '--rating', 'up']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('no-such-message');
  });

  it('a missing or invalid --rating is exit 2 and sends nothing', async () => {
    const [missing, invalid] = await Promise.all([
      cli(['feedback', 'create', '--message-id', 'm1', '--no-input']),
      cli(['feedback', 'create', '--message-id', 'm1', '--rating', 'sideways']),
    ]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/missing --rating/);
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toMatch(/invalid --rating "sideways"/);
    expect((await serverFeedback()).some((f) => f.messageId === 'm1')).toBe(false);
  });

  it('list prints the chatflow feedback as csv, oldest first', async () => {
    const r = await cli(['feedback', 'list', FLOW, '-o', 'csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = csvRecords(r.stdout);
    expect(rows.map((f) => f.messageId)).toEqual(['m2', 'm4']);
    expect(rows[0]).toMatchObject({ rating: 'THUMBS_UP', content: 'spot on', chatId: 'c1' });
    expect(rows[1]!.content).toBe('');
  });

  it('list filters by chat and sorts newest first (ndjson)', async () => {
    const [byChat, desc] = await Promise.all([
      cli(['feedback', 'list', FLOW, '--chat-id', 'c2', '-o', 'ndjson']),
      cli(['feedback', 'list', FLOW, '--order', 'desc', '-o', 'ndjson', '--fields', 'messageId']),
    ]);
    expect(byChat.exitCode, byChat.stderr).toBe(0);
    expect((parseNdjson(byChat.stdout) as Feedback[]).map((f) => f.messageId)).toEqual(['m4']);
    expect(desc.exitCode, desc.stderr).toBe(0);
    expect(parseNdjson(desc.stdout)).toEqual([{ messageId: 'm4' }, { messageId: 'm2' }]);
  });

  it('list on a terminal is a table of the usual columns', async () => {
    const r = await cli(['feedback', 'list', FLOW], { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    const [head, ...rows] = tableRows(r.stdout);
    expect(head).toEqual(['id', 'messageId', 'chatId', 'rating', 'content', 'createdDate']);
    expect(rows.map((row) => row[1])).toEqual(['m2', 'm4']);
    expect(rows[0]![5]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  });

  it('list for a chatflow without feedback prints an empty list and a note', async () => {
    const r = await cli(['feedback', 'list', 'flow-without-feedback', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toContain('No feedback found.');
  });

  it('update changes the rating, keeps the comment, and prints the feedback (json)', async () => {
    const target = (await serverFeedback()).find((f) => f.messageId === 'm2')!;
    const r = await cli(['feedback', 'update', target.id, '--rating', 'down', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: target.id, rating: 'THUMBS_DOWN', content: 'spot on' });
    expect((await serverFeedback()).find((f) => f.id === target.id)!.rating).toBe('THUMBS_DOWN');
  });

  it('update of an unknown id is exit 3', async () => {
    const unknown = await cli(['feedback', 'update', '00000000-0000-4000-8000-000000000000', '--content', 'x']);
    expect(unknown.exitCode).toBe(3);
    expect(unknown.stderr).toMatch(/not found/);
  });

  it('update takes the start of a feedback id; a malformed id is one usage line naming the command and <id>', async () => {
    const target = (await serverFeedback()).find((f) => f.messageId === 'm2')!;
    const r = await cli(['feedback', 'update', target.id.slice(0, 8), '--content', 'by prefix', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: target.id, content: 'by prefix' });
    const malformed = await cli(['feedback', 'update', 'e1!', '--rating', 'down']);
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toBe('chatflow: feedback update: invalid <id> "e1!": give a feedback id, or 4 or more of its first characters\n');
  });

  it('create takes the start of a message id with --chatflowid, where it is looked up', async () => {
    const id = 'ab12cd34-0000-4000-8000-000000000001';
    await call('POST', `${server.api}/chatmessage/flow-prefix`, [{ id, role: 'apiMessage', content: 'x', chatType: 'INTERNAL', chatId: 'cp', sessionId: 'sp' }]);
    const r = await cli(['feedback', 'create', '--message-id', 'ab12cd34', '--chatflowid', 'flow-prefix', '--rating', 'up', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ messageId: id, chatflowid: 'flow-prefix' });
  });
});
