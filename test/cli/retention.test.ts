// Retention and privacy from the command line: `messages prune` and `privacy find|erase` against
// our service (SQLite) and against the Flowise fixture, through the client's exact deletes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliOptions } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const CUTOFF = '2026-02-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(CUTOFF) + ms).toISOString();

/** Per chatflow: a message a millisecond before the cut-off (goes), one exactly at it (stays), a later one. */
const messagesOf = (flow: string) => [
  { id: `${flow}-old`, role: 'userMessage', content: 'old', chatId: `${flow}-c1`, createdDate: at(-1) },
  { id: `${flow}-older`, role: 'apiMessage', content: 'older', chatId: `${flow}-c1`, createdDate: at(-86_400_000) },
  { id: `${flow}-at`, role: 'userMessage', content: 'at the cut-off', chatId: `${flow}-c2`, createdDate: at(0) },
  { id: `${flow}-new`, role: 'apiMessage', content: 'new', chatId: `${flow}-c2`, createdDate: at(86_400_000) },
];

describe('messages prune against our service', () => {
  let server: TestServer;
  const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });
  const ids = async (flow: string) => (await call<{ id: string }[]>('GET', `${server.api}/chatmessage/${flow}`)).body.map((m) => m.id).sort();

  beforeAll(async () => {
    server = await startTestServer();
    for (const flow of ['fa', 'fb', 'fc']) expect((await call('POST', `${server.api}/chatmessage/${flow}`, messagesOf(flow))).status).toBeLessThan(300);
    expect((await call('POST', `${server.api}/feedback`, { messageId: 'fa-older', rating: 'THUMBS_UP' })).status).toBeLessThan(300);
  });
  afterAll(() => server?.dispose());

  it('--dry-run counts per chatflow and deletes nothing; without --yes and no terminal it refuses', async () => {
    const dry = await cli(['messages', 'prune', '--older-than', CUTOFF, '--all-chatflows', '--dry-run', '-o', 'json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual(['fa', 'fb', 'fc'].map((f) => ({ chatflowId: f, name: expect.any(String), messages: 2 })));
    expect(dry.stderr).toContain(`6 messages (and 1 rating) created before ${CUTOFF} would be deleted from 3 chatflows`);
    const refused = await cli(['messages', 'prune', '--older-than', CUTOFF, '--chatflow', 'fa']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/refused without confirmation; pass --yes/);
    expect(await ids('fa')).toHaveLength(4);
  });

  it('deletes what is older than the cut-off in the chatflows named, with feedback; keeps the message at the cut-off; idempotent', async () => {
    const r = await cli(['messages', 'prune', '--older-than', CUTOFF, '--chatflow', 'fa', '--chatflow', 'fb', '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { chatflowId: 'fa', name: expect.any(String), messages: 2 },
      { chatflowId: 'fb', name: expect.any(String), messages: 2 },
    ]);
    expect(r.stderr).toContain(`deleted 4 messages (and 1 rating) created before ${CUTOFF} from 2 chatflows`);
    expect(await ids('fa')).toEqual(['fa-at', 'fa-new']);
    expect(await ids('fc')).toHaveLength(4); // outside the scope
    expect((await call<unknown[]>('GET', `${server.api}/feedback/fa`)).body).toEqual([]);
    const again = await cli(['messages', 'prune', '--older-than', CUTOFF, '--chatflow', 'fa', '--chatflow', 'fb', '--yes']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain('nothing was deleted');
  });

  it('a scope is required, and --older-than is read as a length of time or a date', async () => {
    const [none, bad] = await Promise.all([
      cli(['messages', 'prune', '--older-than', '90d']),
      cli(['messages', 'prune', '--older-than', 'ninety', '--all-chatflows']),
    ]);
    expect([none.exitCode, none.stderr.trim()]).toEqual([2, 'chatflow: say which chatflows: --chatflow ID|NAME (repeatable) or --all-chatflows']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/invalid --older-than "ninety"/);
  });
});

/**
 * A live conversation: two messages older than the cut-off and a newer rated answer (chat cz), beside
 * an old chat (co) whose own answer is rated. docs/spec/flowise-versions.md 1: Flowise's delete takes every
 * rating of a chat it touches.
 */
const liveChat = (flow: string) => ({
  messages: [
    { id: `${flow}-z1`, role: 'userMessage', content: 'old question', chatId: `${flow}-cz`, sessionId: `${flow}-sz`, createdDate: at(-2 * 86_400_000) },
    { id: `${flow}-z2`, role: 'apiMessage', content: 'old answer', chatId: `${flow}-cz`, sessionId: `${flow}-sz`, createdDate: at(-2 * 86_400_000 + 1000) },
    { id: `${flow}-z3`, role: 'userMessage', content: 'new question', chatId: `${flow}-cz`, sessionId: `${flow}-sz`, createdDate: at(86_400_000) },
    { id: `${flow}-z4`, role: 'apiMessage', content: 'new answer', chatId: `${flow}-cz`, sessionId: `${flow}-sz`, createdDate: at(86_400_000 + 1000) },
    { id: `${flow}-o1`, role: 'userMessage', content: 'gone question', chatId: `${flow}-co`, sessionId: `${flow}-so`, createdDate: at(-3 * 86_400_000) },
    { id: `${flow}-o2`, role: 'apiMessage', content: 'gone answer', chatId: `${flow}-co`, sessionId: `${flow}-so`, createdDate: at(-3 * 86_400_000 + 1000) },
  ],
  feedback: [
    { id: '0b6f3c9e-1d6a-4c55-9a59-7d0e1c2b3a41', messageId: `${flow}-z4`, chatId: `${flow}-cz`, rating: 'THUMBS_UP', createdDate: at(86_400_000 + 2000) },
    { id: '0b6f3c9e-1d6a-4c55-9a59-7d0e1c2b3a42', messageId: `${flow}-o2`, chatId: `${flow}-co`, rating: 'THUMBS_DOWN', createdDate: at(-3 * 86_400_000 + 2000) },
  ],
});

describe('a rating of a kept message is never lost', () => {
  let server: TestServer;
  let fx: FlowiseFixture;
  const ours = (args: string[]) => runCli(args, { url: server.url });
  const flowise = (args: string[]) => runCli(args, { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } });
  const listed = async (cli: typeof ours, what: string, flow: string) => {
    const r = await cli([what, 'list', flow, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { id: string; messageId?: string }[]).map((x) => x.messageId ?? x.id).sort();
  };

  beforeAll(async () => {
    [server, fx] = await Promise.all([startTestServer(), startFlowiseFixture()]);
    for (const flow of ['lz-a', 'lz-b']) {
      const { messages, feedback } = liveChat(flow);
      expect((await call('POST', `${server.api}/chatmessage/${flow}`, messages)).status).toBeLessThan(300);
      expect((await call('POST', `${server.api}/feedback/import`, feedback.map((f) => ({ ...f, chatflowid: flow })))).status).toBeLessThan(300);
      fx.seed(flow, { messages: messages.map((m) => ({ ...m, ms: true })), feedback: feedback.map((f) => ({ ...f, ms: true })) });
    }
  });
  afterAll(async () => {
    await Promise.all([server?.dispose(), fx?.close()]);
  });

  it('prune on our service: the old messages go, the newer rated answer keeps its rating', async () => {
    const r = await ours(['messages', 'prune', '--older-than', CUTOFF, '--chatflow', 'lz-a', '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deleted 4 messages (and 1 rating) created before ${CUTOFF} from 1 chatflow`);
    expect(await listed(ours, 'messages', 'lz-a')).toEqual(['lz-a-z3', 'lz-a-z4']);
    expect(await listed(ours, 'feedback', 'lz-a')).toEqual(['lz-a-z4']);
  });

  it('prune on Flowise: a chat whose newer answer is rated is kept whole, said on stderr; the old chat goes; the rating stays', async () => {
    const dry = await flowise(['messages', 'prune', '--older-than', CUTOFF, '--chatflow', 'lz-a', '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/would keep 2 messages created before .* in 1 chat whose newer messages are rated/);
    expect(dry.stderr).toContain(`2 messages (and 1 rating) created before ${CUTOFF} would be deleted`);
    const r = await flowise(['messages', 'prune', '--older-than', CUTOFF, '--chatflow', 'lz-a', '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/keeping 2 messages created before .* in 1 chat whose newer messages are rated/);
    expect(r.stderr).toContain(`deleted 2 messages (and 1 rating) created before ${CUTOFF} from 1 chatflow`);
    expect(await listed(flowise, 'messages', 'lz-a')).toEqual(['lz-a-z1', 'lz-a-z2', 'lz-a-z3', 'lz-a-z4']);
    expect(await listed(flowise, 'feedback', 'lz-a')).toEqual(['lz-a-z4']);
  });

  it('messages delete on Flowise that would unrate a kept message is refused (exit 2), naming the chat and what to run; nothing deleted', async () => {
    const before = fx.requests.filter((q) => q.method === 'DELETE').length;
    const r = await flowise(['messages', 'delete', 'lz-b', '--chat-id', 'lz-b-cz', '--end-date', CUTOFF, '--utc', '--yes']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('would also remove 1 rating of messages it keeps');
    expect(r.stderr).toContain('lz-b-cz (1 rated message kept)');
    expect(r.stderr).toContain(`'chatflow messages delete ${fx.idOf('lz-b')} --chat-id lz-b-cz'`);
    expect(fx.requests.filter((q) => q.method === 'DELETE').length).toBe(before);
    expect(await listed(flowise, 'feedback', 'lz-b')).toEqual(['lz-b-o2', 'lz-b-z4']);
    // The whole chat: its rating goes with it, and the other chat's stays.
    const whole = await flowise(['messages', 'delete', 'lz-b', '--chat-id', 'lz-b-cz', '--yes']);
    expect(whole.exitCode, whole.stderr).toBe(0);
    expect(whole.stderr).toContain('deleted 4 messages (and 1 rating)');
    expect(await listed(flowise, 'feedback', 'lz-b')).toEqual(['lz-b-o2']);
  });
});

describe('messages prune against Flowise', () => {
  let fx: FlowiseFixture;
  const cli = (args: string[]) => runCli(args, { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } });
  const ids = async (flow: string) => {
    const r = await cli(['messages', 'list', flow, '-o', 'json']);
    return (JSON.parse(r.stdout) as { id: string }[]).map((m) => m.id).sort();
  };

  beforeAll(async () => {
    fx = await startFlowiseFixture();
    for (const flow of ['fx-a', 'fx-b']) fx.seed(flow, { messages: messagesOf(flow).map((m) => ({ ...m, ms: true })) });
  });
  afterAll(() => fx?.close());

  it('one exact delete per chatflow, by name; the message at the cut-off stays; idempotent', async () => {
    const r = await cli(['messages', 'prune', '--older-than', CUTOFF, '--chatflow', 'fx-a', '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ chatflowId: fx.idOf('fx-a'), name: 'fx-a', messages: 2 }]);
    expect(await ids('fx-a')).toEqual(['fx-a-at', 'fx-a-new']);
    expect(await ids('fx-b')).toHaveLength(4);
    const deletes = fx.requests.filter((q) => q.method === 'DELETE');
    expect(deletes).toHaveLength(1);
    const again = await cli(['messages', 'prune', '--older-than', CUTOFF, '--chatflow', 'fx-a', '--yes']);
    expect([again.exitCode, fx.requests.filter((q) => q.method === 'DELETE').length]).toEqual([0, 1]);
  });
});

/** A person's chat (lead e-mail on its first message only) in a chatflow, beside someone else's. */
const people = (flow: string) => [
  { id: `${flow}-p1`, role: 'userMessage', content: 'hi, I am Ana', chatId: `${flow}-ana`, sessionId: `${flow}-s-ana`, leadEmail: 'Ana@Example.com', createdDate: at(0) },
  { id: `${flow}-p2`, role: 'apiMessage', content: 'hello Ana', chatId: `${flow}-ana`, sessionId: `${flow}-s-ana`, createdDate: at(1000) },
  { id: `${flow}-o1`, role: 'userMessage', content: 'someone else', chatId: `${flow}-bob`, sessionId: `${flow}-s-bob`, leadEmail: 'bob@example.com', createdDate: at(0) },
];

describe('privacy against our service', () => {
  let server: TestServer;
  const cli = (args: string[], opts: CliOptions = {}) => runCli(args, { url: server.url, ...opts });
  const ids = async (flow: string) => (await call<{ id: string }[]>('GET', `${server.api}/chatmessage/${flow}`)).body.map((m) => m.id).sort();

  beforeAll(async () => {
    server = await startTestServer();
    for (const flow of ['p1', 'p2', 'p3']) expect((await call('POST', `${server.api}/chatmessage/${flow}`, people(flow))).status).toBeLessThan(300);
    expect((await call('POST', `${server.api}/feedback`, { messageId: 'p2-p2', rating: 'THUMBS_UP' })).status).toBeLessThan(300);
  });
  afterAll(() => server?.dispose());

  it('find by lead e-mail: each chat whole, in every chatflow; erase: a JSON report of what went, and nothing else goes', async () => {
    const found = await cli(['privacy', 'find', '--lead-email', 'ana@example.com', '-o', 'json']);
    expect(found.exitCode, found.stderr).toBe(0);
    expect((JSON.parse(found.stdout) as { chatId: string; messages: number; feedback: number }[]).map((c) => [c.chatId, c.messages, c.feedback])).toEqual([
      ['p1-ana', 2, 0],
      ['p2-ana', 2, 1],
      ['p3-ana', 2, 0],
    ]);
    const r = await cli(['privacy', 'erase', '--lead-email', 'ana@example.com', '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      matching: { leadEmail: 'ana@example.com' },
      chatflowsSearched: 3,
      total: { chats: 3, messages: 6, feedback: 1 },
      chatflows: ['p1', 'p2', 'p3'].map((f) => ({ chatflowId: f, chats: 1, messages: 2 })),
    });
    expect(Date.parse(report.erasedAt)).toBeGreaterThan(0);
    for (const flow of ['p1', 'p2', 'p3']) expect(await ids(flow)).toEqual([`${flow}-o1`]);
    const again = await cli(['privacy', 'erase', '--lead-email', 'ana@example.com', '--yes', '-o', 'json']);
    expect([again.exitCode, JSON.parse(again.stdout).total]).toEqual([0, { chats: 0, messages: 0, feedback: 0 }]);
  });
});

describe('privacy against Flowise', () => {
  let fx: FlowiseFixture;
  const cli = (args: string[]) => runCli(args, { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } });

  beforeAll(async () => {
    fx = await startFlowiseFixture();
    for (const flow of ['fp-a', 'fp-b']) fx.seed(flow, { messages: people(flow).map((m) => ({ ...m, ms: true })) });
  });
  afterAll(() => fx?.close());

  it('erase by session id: one exact delete by chat id per chat, across chatflows', async () => {
    const r = await cli(['privacy', 'erase', '--session-id', 'fp-b-s-ana', '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).chats).toEqual([{ chatflowId: fx.idOf('fp-b'), chatId: 'fp-b-ana', messages: 2, feedback: 0 }]);
    const deletes = fx.requests.filter((q) => q.method === 'DELETE').map((q) => q.url);
    expect(deletes).toEqual([expect.stringContaining(`/chatmessage/${fx.idOf('fp-b')}?chatId=fp-b-ana`)]);
    const left = await cli(['privacy', 'find', '--lead-email', 'ANA@example.com', '-o', 'json']);
    expect((JSON.parse(left.stdout) as { chatId: string }[]).map((c) => c.chatId)).toEqual(['fp-a-ana']);
  });
});

describe('export --redact', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    const messages = [
      { id: 'r1', role: 'userMessage', content: 'write to ana.b+x@mail.example.org or Bob@Example.COM, not a@b', leadEmail: 'ana.b+x@mail.example.org', createdDate: at(0) },
      { id: 'r2', role: 'apiMessage', content: 'noted', usedTools: [{ tool: 'crm', toolInput: { to: 'ana.b+x@mail.example.org' }, toolOutput: 'ok' }], createdDate: at(1) },
    ];
    expect((await call('POST', `${server.api}/chatmessage/rf`, messages)).status).toBeLessThan(300);
  });
  afterAll(() => server?.dispose());

  it('masks every e-mail address in any string and each leadEmail; the rest as exported', async () => {
    const [plain, red] = await Promise.all([
      runCli(['export', '--resources', 'messages'], { url: server.url }),
      runCli(['export', '--resources', 'messages', '--redact'], { url: server.url }),
    ]);
    expect(red.exitCode, red.stderr).toBe(0);
    const data = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l).data);
    const [r1, r2] = data(red.stdout);
    expect(r1.content).toBe('write to [email redacted] or [email redacted], not a@b');
    expect(r1.leadEmail).toBe('[email redacted]');
    expect(r2.usedTools).toEqual([{ tool: 'crm', toolInput: { to: '[email redacted]' }, toolOutput: 'ok' }]);
    expect(red.stdout).not.toMatch(/example\.(org|com)/i);
    const [p1, p2] = data(plain.stdout);
    expect({ ...p1, content: r1.content, leadEmail: r1.leadEmail }).toEqual(r1);
    expect({ ...p2, usedTools: r2.usedTools }).toEqual(r2);
  });
});
