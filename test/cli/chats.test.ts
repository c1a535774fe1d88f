// `chatflow chats list|show` through the built CLI, on our service and on the Flowise fixture
// (3.1.2 and 3.1.4): the chats newest activity first (a sessionless chat at its place, a chat
// whose session id is not its chat id), each filter, ids for xargs, and one chat as a transcript
// in a terminal of 80 and 120 columns (its rating and comment, tools, sources), as Markdown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, waitForLine, type CliOptions } from '../helpers/cli.js';
import { startFlowiseFixture, type FlowiseFixture } from '../helpers/flowise-fixture.js';
import { call } from '../helpers/http.js';
import { runInPty } from '../helpers/pty.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const A = 'aaaa1111-0000-4000-8000-000000000001';
const B = 'bbbb2222-0000-4000-8000-000000000002';
const C = 'cccc3333-0000-4000-8000-000000000003';
const at2 = (minute: number) => new Date(Date.UTC(2026, 5, 1, 12, minute)).toISOString();
const M = (n: number) => `eeee0000-0000-4000-8000-00000000000${n}`;
const MESSAGES = [
  // A: a refund question, answered with a tool and a source, rated down.
  { id: M(1), role: 'userMessage', content: 'How do I get a refund?', chatId: A, sessionId: A, chatType: 'EXTERNAL', createdDate: '2026-06-01T10:00:00.000Z' },
  {
    id: M(2), role: 'apiMessage', content: 'Refunds are not possible after 30 days. '.repeat(4).trim(), chatId: A, sessionId: A, chatType: 'EXTERNAL',
    usedTools: [{ tool: 'policy_lookup', toolInput: {}, toolOutput: 'x' }], sourceDocuments: [{ pageContent: 'p', metadata: { source: 'refund-policy.pdf' } }],
    createdDate: '2026-06-01T10:01:00.000Z',
  },
  // B: its session id is not its chat id; last moved latest; rated up.
  { id: M(3), role: 'userMessage', content: 'Opening hours?', chatId: B, sessionId: 'session-b', chatType: 'INTERNAL', createdDate: '2026-06-01T09:00:00.000Z' },
  { id: M(4), role: 'apiMessage', content: '9 to 5.', chatId: B, sessionId: 'session-b', chatType: 'INTERNAL', createdDate: '2026-06-01T12:00:00.000Z' },
  // C: no session id (never in a Flowise session page), between the two.
  { id: M(5), role: 'userMessage', content: 'Hello, mail me at jo@example.com', chatId: C, sessionId: null, chatType: 'EXTERNAL', createdDate: '2026-06-01T11:00:00.000Z' },
  { id: M(6), role: 'apiMessage', content: 'Hi!', chatId: C, sessionId: null, chatType: 'EXTERNAL', createdDate: '2026-06-01T11:01:00.000Z' },
];
const FEEDBACK = [
  { id: 'ffff0000-0000-4000-8000-000000000001', chatId: A, messageId: M(2), rating: 'THUMBS_DOWN', content: 'wrong policy', createdDate: '2026-06-01T10:02:00.000Z' },
  { id: 'ffff0000-0000-4000-8000-000000000002', chatId: B, messageId: M(4), rating: 'THUMBS_UP', content: null, createdDate: '2026-06-01T12:01:00.000Z' },
];

let server: TestServer;
let fx312: FlowiseFixture;
let fx314: FlowiseFixture;
const FLOW = 'chats-flow';

beforeAll(async () => {
  [server, fx312, fx314] = await Promise.all([startTestServer(), startFlowiseFixture({ version: '3.1.2' }), startFlowiseFixture({ version: '3.1.4' })]);
  const r = await call('POST', `${server.api}/chatmessage/${FLOW}`, MESSAGES);
  expect(r.status, r.text).toBe(200);
  const f = await call('POST', `${server.api}/feedback/import`, FEEDBACK);
  expect(f.status, f.text).toBe(200);
  for (const fx of [fx312, fx314]) fx.seed(FLOW, { messages: MESSAGES, feedback: FEEDBACK });
});
afterAll(async () => {
  await Promise.all([server?.dispose(), fx312?.close(), fx314?.close()]);
});

const servers = () => [
  { name: 'our service', flow: FLOW, opts: { url: server.url } as CliOptions },
  { name: 'Flowise 3.1.2', flow: fx312.idOf(FLOW), opts: { url: fx312.url, env: { CHATFLOW_API_KEY: fx312.apiKey } } as CliOptions },
  { name: 'Flowise 3.1.4', flow: fx314.idOf(FLOW), opts: { url: fx314.url, env: { CHATFLOW_API_KEY: fx314.apiKey } } as CliOptions },
];

describe.each(['our service', 'Flowise 3.1.2', 'Flowise 3.1.4'])('chatflow chats on %s', (name) => {
  const on = () => servers().find((s) => s.name === name)!;
  const json = async (args: string[]) => {
    const { flow, opts } = on();
    const r = await runCli(['chats', ...args.map((a) => (a === 'FLOW' ? flow : a)), '-o', 'json'], opts);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { chatId: string; messages: number; firstQuestion: string; up: number; down: number; sessionId: string | null }[];
  };

  it('lists the chats newest activity first, the sessionless one at its place', async () => {
    const chats = await json(['list', 'FLOW']);
    expect(chats.map((c) => c.chatId)).toEqual([B, C, A]);
    expect(chats[0]).toMatchObject({ sessionId: 'session-b', messages: 2, firstQuestion: 'Opening hours?', up: 1, down: 0 });
    expect(chats[2]).toMatchObject({ messages: 2, firstQuestion: 'How do I get a refund?', up: 0, down: 1 });
  });

  it('filters by rating, text, chat type, session and date; -q gives the ids', async () => {
    expect((await json(['list', 'FLOW', '--feedback-type', 'down'])).map((c) => c.chatId)).toEqual([A]);
    expect((await json(['list', 'FLOW', '--search', 'HELLO'])).map((c) => c.chatId)).toEqual([C]);
    expect((await json(['list', 'FLOW', '--chat-type', 'external'])).map((c) => c.chatId)).toEqual([C, A]);
    expect((await json(['list', 'FLOW', '--session-id', 'session-b'])).map((c) => c.chatId)).toEqual([B]);
    expect((await json(['list', 'FLOW', '--start-date', '2026-06-01T10:30:00Z', '--utc'])).map((c) => c.chatId)).toEqual([B, C]);
    expect((await json(['list', 'FLOW', '--limit', '1', '--page', '2'])).map((c) => c.chatId)).toEqual([C]);
    const { flow, opts } = on();
    const q = await runCli(['chats', 'list', flow, '--feedback-type', 'down', '-q'], opts);
    expect(q.stdout).toBe(`${A}\n`);
  });

  it('shows a chat from the start of its id, in a terminal of 80 and 120 columns', async () => {
    const { flow, opts } = on();
    for (const columns of [80, 120]) {
      const r = await runInPty(['chats', 'show', flow, 'aaaa1111', '--no-pager'], { ...opts, columns });
      expect(r.exitCode, r.screen).toBe(0);
      const screen = r.screen.replace(/\u001b\[[0-9;]*m/g, '');
      expect(screen).toContain('How do I get a refund?');
      // The rating and its comment on a line of their own, under the answer.
      expect(screen).toMatch(/30 days\.\n.*tools: policy_lookup   sources: refund-policy\.pdf\n\s+▼ rated down "wrong policy"\n/);
      for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
    }
  });

  it('writes Markdown for a ticket, redacted on request; JSON with each rating', async () => {
    const { flow, opts } = on();
    const md = await runCli(['chats', 'show', flow, C, '--markdown', '--redact'], opts);
    expect(md.exitCode, md.stderr).toBe(0);
    expect(md.stdout).toContain(`# Chat ${C}`);
    expect(md.stdout).toContain('### User · 2026-06-01T11:00:00.000Z');
    expect(md.stdout).toContain('[email redacted]');
    expect(md.stdout).not.toContain('jo@example.com');
    const a = await runCli(['chats', 'show', flow, A, '--markdown'], opts);
    expect(a.stdout).toContain('- Rated ▼ down: “wrong policy”');
    const j = await runCli(['chats', 'show', flow, A, '-o', 'json'], opts);
    const messages = JSON.parse(j.stdout) as { id: string; feedback: { content: string } | null }[];
    expect(messages.map((m) => m.id)).toEqual([M(1), M(2)]);
    expect(messages[1]!.feedback?.content).toBe('wrong policy');
  });

  it('chats show F <TAB> completes the chat ids, newest first, with their first questions', async () => {
    const { flow, opts } = on();
    const r = await runCli(['__complete', '--', 'chats', 'show', flow, ''], opts);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([`${B}\tOpening hours?`, `${C}\tHello, mail me at jo@example.com`, `${A}\tHow do I get a refund?`]);
  });

  it('--follow prints the chat, then its new messages once, and none of other chats; Ctrl-C ends it', async () => {
    const { flow, opts } = on();
    const child = spawnCli(['chats', 'show', flow, B, '-f', '--interval', '100ms', '-o', 'ndjson'], opts);
    await waitForLine(child.stdout!, new RegExp(M(4)));
    const n = Math.floor(Math.random() * 1e6);
    const later = (id: string, chatId: string, minute: number) => ({ id, role: 'userMessage', content: `later ${n}`, chatId, sessionId: chatId === B ? 'session-b' : chatId, chatType: 'INTERNAL', createdDate: at2(minute) });
    const add = [later(`0000${n}-0000-4000-8000-00000000000a`, A, 30), later(`0000${n}-0000-4000-8000-00000000000b`, B, 31)];
    if (name === 'our service') expect((await call('POST', `${server.api}/chatmessage/${FLOW}`, add)).status).toBe(200);
    else (name === 'Flowise 3.1.2' ? fx312 : fx314).seed(FLOW, { messages: add });
    await waitForLine(child.stdout!, new RegExp(`0000${n}-0000-4000-8000-00000000000b`));
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(0);
    const ids = String(r.stdout).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).toEqual([M(3), M(4), `0000${n}-0000-4000-8000-00000000000b`]);
  });

  it('says so when no chat starts with what was given (exit 3)', async () => {
    const { flow, opts } = on();
    const r = await runCli(['chats', 'show', flow, 'dddd9999'], opts);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/chat dddd9999 not found/);
  });
});

describe.each(['3.1.2', '3.1.4'])('chatflow chats list on Flowise %s, 30 chats', (version) => {
  it('a screen of chats costs one session page (each costs Flowise a scan); the next screen follows exactly', async () => {
    const fx = version === '3.1.2' ? fx312 : fx314;
    const chatId = (i: number) => `9999${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`;
    // Chat i asks at minute i and is answered a minute later: chat 29 moved last.
    const messages = Array.from({ length: 30 }, (_, i) => [
      { id: `7777${String(i).padStart(4, '0')}-0000-4000-8000-000000000001`, role: 'userMessage', content: `q${i}`, chatId: chatId(i), sessionId: chatId(i), chatType: 'EXTERNAL', createdDate: at2(2 * i) },
      { id: `7777${String(i).padStart(4, '0')}-0000-4000-8000-000000000002`, role: 'apiMessage', content: `a${i}`, chatId: chatId(i), sessionId: chatId(i), chatType: 'EXTERNAL', createdDate: at2(2 * i + 1) },
    ]).flat();
    fx.seed('thirty', { messages });
    const opts = { url: fx.url, env: { CHATFLOW_API_KEY: fx.apiKey } };
    const flow = fx.idOf('thirty');
    const pages = () => fx.requests.filter((q) => q.url.startsWith(`/api/v1/chatmessage/${flow}`));
    const before = pages().length;
    const newest = (from: number) => Array.from({ length: 15 }, (_, k) => chatId(from - k));
    const first = await runCli(['chats', 'list', flow, '--limit', '15', '-q'], opts);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout.split('\n').filter(Boolean)).toEqual(newest(29));
    expect(pages().length - before).toBe(1);
    const second = await runCli(['chats', 'list', flow, '--limit', '15', '--page', '2', '-q'], opts);
    expect(second.stdout.split('\n').filter(Boolean)).toEqual(newest(14));
  });
});
